package vars

import (
	"container/heap"
	"slices"
	"strings"
)

// Snapshot returns copies of all variables, sorted by name, with their
// exact fields. It does not touch them.
func (s *System) Snapshot() []Variable {
	return s.List(Filter{})
}

// Restore replaces the contents of the System with vs, keeping every field
// as given (times, Keep, RefCount), as when a session is loaded from
// storage. Of two variables with the same name the later wins. Restore
// does not check names or limits and evicts nothing; the next write does.
// It clears the change tracking of TakeChanges.
func (s *System) Restore(vs []Variable) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.vars = make(map[string]*entry, len(vs))
	s.changes = make(map[string]struct{})
	s.bytes = 0
	for _, v := range vs {
		v = clone(v)
		if old, ok := s.vars[v.Name]; ok {
			s.bytes -= old.size
		}
		e := &entry{v: v, size: sizeOf(&v), index: -1}
		s.vars[v.Name] = e
		s.bytes += e.size
	}
	s.queue = make(evictQueue, 0, len(s.vars))
	for _, e := range s.vars {
		if evictable(&e.v) {
			e.index = len(s.queue)
			s.queue = append(s.queue, e)
		}
	}
	heap.Init(&s.queue)
}

// TakeChanges returns what changed since the last call (or since New or
// Restore) and starts a new record: upserted holds copies of the variables
// that were created, updated or visited (a visit changes LastVisited,
// which decides the eviction order, so storage must keep it); removed
// holds the names removed or evicted. A name removed and then written
// again appears only in upserted. Both are sorted by name.
func (s *System) TakeChanges() (upserted []Variable, removed []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name := range s.changes {
		if e, ok := s.vars[name]; ok {
			upserted = append(upserted, clone(e.v))
		} else {
			removed = append(removed, name)
		}
	}
	clear(s.changes)
	sortByName(upserted)
	slices.SortFunc(removed, strings.Compare)
	return upserted, removed
}

package vars

import (
	"container/heap"
	"strings"
)

// evictQueue is a min-heap of the evictable entries, ordered by the
// eviction order: oldest LastVisited, then Updated, then Created, then
// Name. Kept and RULE variables are not in it, so popping is O(log n).
type evictQueue []*entry

// evictsBefore reports whether a is evicted before b. Times are compared
// by value (time.Time.Compare), not by identity as in the seed, so the
// tie-breaks apply.
func evictsBefore(a, b *Variable) bool {
	if c := a.LastVisited.Compare(b.LastVisited); c != 0 {
		return c < 0
	}
	if c := a.Updated.Compare(b.Updated); c != 0 {
		return c < 0
	}
	if c := a.Created.Compare(b.Created); c != 0 {
		return c < 0
	}
	return strings.Compare(a.Name, b.Name) < 0
}

func (q evictQueue) Len() int           { return len(q) }
func (q evictQueue) Less(i, j int) bool { return evictsBefore(&q[i].v, &q[j].v) }

func (q evictQueue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index = i
	q[j].index = j
}

// Push and Pop are for container/heap only.
func (q *evictQueue) Push(x any) {
	e := x.(*entry)
	e.index = len(*q)
	*q = append(*q, e)
}

func (q *evictQueue) Pop() any {
	old := *q
	n := len(old) - 1
	e := old[n]
	old[n] = nil
	e.index = -1
	*q = old[:n]
	return e
}

func (q *evictQueue) remove(e *entry) { heap.Remove(q, e.index) }

// evictable reports whether v may be evicted: kept and RULE variables
// never are, whatever their Keep flag says.
func evictable(v *Variable) bool { return !v.Keep && v.Type != TypeRule }

// place puts e into the queue, takes it out, or fixes its position, after
// a change of its fields.
func (s *System) place(e *entry) {
	switch want := evictable(&e.v); {
	case want && e.index < 0:
		heap.Push(&s.queue, e)
	case !want && e.index >= 0:
		s.queue.remove(e)
	case want:
		heap.Fix(&s.queue, e.index)
	}
}

// evict removes evictable variables, in eviction order, until the System
// is within its capacity and byte budget or nothing evictable is left. It
// never evicts spare, the variable just written. Each eviction costs
// O(log n).
func (s *System) evict(spare *entry) {
	if len(s.vars) <= s.capacity && s.bytes <= s.maxBytes {
		return
	}
	if spare != nil && spare.index >= 0 {
		s.queue.remove(spare)
		defer heap.Push(&s.queue, spare)
	}
	for (len(s.vars) > s.capacity || s.bytes > s.maxBytes) && len(s.queue) > 0 {
		s.delete(heap.Pop(&s.queue).(*entry))
	}
}

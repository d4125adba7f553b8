package vars

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Default limits of a System.
const (
	DefaultCapacity  = 1000
	DefaultMaxBytes  = 32 << 20
	DefaultMaxExpand = 1 << 20
)

// Options configures a System. The zero value is usable.
type Options struct {
	// Capacity is the most variables the System holds before it evicts;
	// 0 means DefaultCapacity (1000).
	Capacity int
	// MaxBytes is the byte budget: the sum over all variables of
	// len(name)+len(value)+len(desc)+len of each tag. 0 means
	// DefaultMaxBytes (32 MiB).
	MaxBytes int64
	// MaxExpand is the most characters (runes) that the $VAR_REF
	// references in one string value may expand to. 0 means
	// DefaultMaxExpand (1<<20).
	MaxExpand int
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// System is the variable store of one session (the seed's VariableSystem).
// It is safe for concurrent use.
type System struct {
	mu        sync.Mutex
	capacity  int
	maxBytes  int64
	maxExpand int64
	now       func() time.Time

	vars  map[string]*entry
	queue evictQueue // the evictable entries, least recently visited first
	bytes int64
	// changes holds the names written, visited, removed or evicted since
	// the last TakeChanges.
	changes map[string]struct{}
}

// entry is a stored variable with its size and its place in the queue.
type entry struct {
	v     Variable
	size  int64
	index int // position in System.queue; -1 when not evictable
	// segs caches the parsed value for the resolver; nil until needed.
	segs []segment
}

// New returns an empty System. A zero Options means a capacity of 1000
// variables, a 32 MiB byte budget, a 1<<20-character expansion limit and
// time.Now.
func New(opts Options) *System {
	s := &System{
		capacity:  cmp.Or(max(opts.Capacity, 0), DefaultCapacity),
		maxBytes:  cmp.Or(max(opts.MaxBytes, 0), DefaultMaxBytes),
		maxExpand: int64(cmp.Or(max(opts.MaxExpand, 0), DefaultMaxExpand)),
		now:       opts.Now,
		vars:      make(map[string]*entry),
		changes:   make(map[string]struct{}),
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// ValidName reports whether name can name a variable: it is not empty and
// holds only letters, digits, '_', '-', '.' and '/'.
func ValidName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if !nameRune(r) {
			return false
		}
	}
	return true
}

func nameRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '.' || r == '/'
}

// sizeOf is what v counts against the byte budget.
func sizeOf(v *Variable) int64 {
	n := len(v.Name) + len(v.Value) + len(v.Desc)
	for _, t := range v.Tags {
		n += len(t)
	}
	return int64(n)
}

// clone returns a copy of v that shares no memory with it.
func clone(v Variable) Variable {
	v.Tags = slices.Clone(v.Tags)
	return v
}

// Set adds v, or replaces the variable of the same name. The time fields of
// v are ignored (use Restore to load exact times): a new variable gets
// Created, Updated and LastVisited set to now; a replaced one keeps its
// Created and gets Updated and LastVisited set to now. Every other field is
// taken from v. If the System is then over its capacity or byte budget, it
// evicts other variables (see the package documentation). Set returns
// ErrInvalidName for a bad name and ErrTooLarge when v alone exceeds the
// byte budget.
func (s *System) Set(v Variable) error {
	if !ValidName(v.Name) {
		return fmt.Errorf("set variable %q: %w", v.Name, ErrInvalidName)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.set(clone(v)); err != nil {
		return fmt.Errorf("set variable %q: %w", v.Name, err)
	}
	return nil
}

// set is Set with the lock held and the name checked; v is owned.
func (s *System) set(v Variable) error {
	size := sizeOf(&v)
	if size > s.maxBytes {
		return fmt.Errorf("%d bytes: %w", size, ErrTooLarge)
	}
	now := s.now()
	v.Created, v.Updated, v.LastVisited = now, now, now
	e, ok := s.vars[v.Name]
	if ok {
		v.Created = e.v.Created
		s.bytes -= e.size
	} else {
		e = &entry{index: -1}
		s.vars[v.Name] = e
	}
	e.v, e.size, e.segs = v, size, nil
	s.bytes += size
	s.place(e)
	s.changes[v.Name] = struct{}{}
	s.evict(e)
	return nil
}

// Add is Set for a variable built from its arguments. A RULE variable is
// marked Keep. It returns the errors of Set.
func (s *System) Add(name, value string, typ Type, desc string, tags []string) error {
	return s.Set(Variable{Name: name, Value: value, Type: typ, Desc: desc, Tags: tags, Keep: typ == TypeRule})
}

// SetKeep sets the Keep flag of the named variable without changing its
// times. Kept variables are never evicted. It returns an error wrapping
// ErrNotFound when there is no such variable.
func (s *System) SetKeep(name string, keep bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.vars[name]
	if !ok {
		return fmt.Errorf("set keep: variable %q %w", name, ErrNotFound)
	}
	if e.v.Keep == keep {
		return nil
	}
	e.v.Keep = keep
	s.place(e)
	s.changes[name] = struct{}{}
	s.evict(e)
	return nil
}

// Get returns a copy of the named variable and sets its LastVisited to now,
// which moves it to the back of the eviction order. Nothing else changes.
func (s *System) Get(name string) (Variable, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.vars[name]
	if !ok {
		return Variable{}, false
	}
	s.touch(e, s.now())
	return clone(e.v), true
}

// Peek returns a copy of the named variable without touching it.
func (s *System) Peek(name string) (Variable, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.vars[name]
	if !ok {
		return Variable{}, false
	}
	return clone(e.v), true
}

// touch records a visit of e at now.
func (s *System) touch(e *entry, now time.Time) {
	e.v.LastVisited = now
	s.place(e)
	s.changes[e.v.Name] = struct{}{}
}

// Update holds the fields that System.Update changes; nil means unchanged.
type Update struct {
	Value *string
	Type  *Type
	Desc  *string
	// Tags replaces the tags when not nil; an empty, non-nil slice clears
	// them.
	Tags []string
	Keep *bool
}

// Update changes the given fields of the named variable and sets its
// Updated and LastVisited to now. It returns an error wrapping ErrNotFound
// when there is no such variable, and ErrTooLarge when the variable would
// exceed the byte budget (nothing is changed then). A larger variable may
// make the System evict others.
func (s *System) Update(name string, u Update) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.vars[name]
	if !ok {
		return fmt.Errorf("update: variable %q %w", name, ErrNotFound)
	}
	if err := s.update(e, u); err != nil {
		return fmt.Errorf("update variable %q: %w", name, err)
	}
	return nil
}

func (s *System) update(e *entry, u Update) error {
	v := e.v
	if u.Value != nil {
		v.Value = *u.Value
	}
	if u.Type != nil {
		v.Type = *u.Type
	}
	if u.Desc != nil {
		v.Desc = *u.Desc
	}
	if u.Tags != nil {
		v.Tags = slices.Clone(u.Tags)
	}
	if u.Keep != nil {
		v.Keep = *u.Keep
	}
	size := sizeOf(&v)
	if size > s.maxBytes {
		return fmt.Errorf("%d bytes: %w", size, ErrTooLarge)
	}
	now := s.now()
	v.Updated, v.LastVisited = now, now
	s.bytes += size - e.size
	if v.Value != e.v.Value {
		e.segs = nil
	}
	e.v, e.size = v, size
	s.place(e)
	s.changes[v.Name] = struct{}{}
	s.evict(e)
	return nil
}

// Remove removes the named variables, whatever their type; it is for the
// runtime, not the model (see RemoveByModel). It returns the names removed,
// in the order given, and the names that could not be removed with the
// reason ("not found"); failed is nil when every name was removed.
func (s *System) Remove(names ...string) (removed []string, failed map[string]string) {
	return s.remove(names, false)
}

func (s *System) remove(names []string, protect bool) (removed []string, failed map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fail := func(name, reason string) {
		if failed == nil {
			failed = make(map[string]string)
		}
		failed[name] = reason
	}
	for _, name := range names {
		e, ok := s.vars[name]
		switch {
		case !ok:
			fail(name, "not found")
		case protect && e.v.Type == TypeRule:
			fail(name, "RULE variables cannot be removed")
		default:
			s.delete(e)
			removed = append(removed, name)
		}
	}
	return removed, failed
}

// delete removes e from the System and records the removal.
func (s *System) delete(e *entry) {
	if e.index >= 0 {
		s.queue.remove(e)
	}
	delete(s.vars, e.v.Name)
	s.bytes -= e.size
	s.changes[e.v.Name] = struct{}{}
}

// Filter selects variables in List. Zero fields match everything.
type Filter struct {
	Type Type
	// Tag matches variables that carry this exact tag.
	Tag string
	// Search matches a case-insensitive substring of the name or the
	// description.
	Search string
}

func (f *Filter) match(v *Variable) bool {
	if f.Type != "" && v.Type != f.Type {
		return false
	}
	if f.Tag != "" && !slices.Contains(v.Tags, f.Tag) {
		return false
	}
	if f.Search != "" {
		q := strings.ToLower(f.Search)
		return strings.Contains(strings.ToLower(v.Name), q) || strings.Contains(strings.ToLower(v.Desc), q)
	}
	return true
}

// List returns copies of the variables that match f, sorted by name. It
// does not touch them.
func (s *System) List(f Filter) []Variable {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Variable
	for _, e := range s.vars {
		if f.match(&e.v) {
			out = append(out, clone(e.v))
		}
	}
	sortByName(out)
	return out
}

func sortByName(vs []Variable) {
	slices.SortFunc(vs, func(a, b Variable) int { return strings.Compare(a.Name, b.Name) })
}

// Len returns the number of variables.
func (s *System) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.vars)
}

// Bytes returns what the variables count against the byte budget.
func (s *System) Bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes
}

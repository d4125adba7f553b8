package vars

import (
	"fmt"
	"slices"
	"strings"
)

// ResolveString expands the references in str. Each reference is replaced
// by the value of its variable, itself expanded, or by a slice of that.
// The referenced variables count as visited. The characters produced by
// the references in str may not exceed Options.MaxExpand; this is checked
// before anything is built, so a chain of references that doubles at each
// step fails at once. ResolveString returns an error wrapping ErrNotFound
// (`variable "x" not found`), ErrCircular, ErrSliceNonString, ErrBadSlice
// or ErrExpansionTooLarge.
func (s *System) ResolveString(str string) (string, error) {
	if !HasRef(str) {
		return str, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.newResolver()
	defer r.touchAll()
	return r.str(str)
}

// Resolve expands the references in every string of a JSON-like value:
// strings, []any and map[string]any, recursively; other values are
// returned as they are. Containers are copied, never changed in place.
// Each string is resolved on its own, so two elements that reference the
// same variable are fine, and the MaxExpand limit applies to each string.
// Object keys are visited in sorted order, so the error returned is always
// the same. Resolve returns the errors of ResolveString.
func (s *System) Resolve(v any) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.newResolver()
	defer r.touchAll()
	return r.value(v)
}

// resolver holds the state of one Resolve call; the System lock is held.
type resolver struct {
	s      *System
	length map[string]int64 // variable name -> length of its expansion
	path   []string         // the variables being measured, for cycles
	seen   []*entry         // the variables reached, to touch
}

func (s *System) newResolver() *resolver {
	return &resolver{s: s, length: make(map[string]int64)}
}

// touchAll records a visit of every variable reached.
func (r *resolver) touchAll() {
	if len(r.seen) == 0 {
		return
	}
	now := r.s.now()
	for _, e := range r.seen {
		r.s.touch(e, now)
	}
}

func (r *resolver) value(v any) (any, error) {
	switch x := v.(type) {
	case string:
		return r.str(x)
	case []any:
		out := make([]any, len(x))
		for i, el := range x {
			var err error
			if out[i], err = r.value(el); err != nil {
				return nil, err
			}
		}
		return out, nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out := make(map[string]any, len(x))
		for _, k := range keys {
			el, err := r.value(x[k])
			if err != nil {
				return nil, err
			}
			out[k] = el
		}
		return out, nil
	default:
		return v, nil
	}
}

// maxLen caps computed lengths so that sums cannot overflow.
const maxLen = 1 << 62

func addLen(a, b int64) int64 {
	if a > maxLen-b {
		return maxLen
	}
	return a + b
}

// str expands the references in one top-level string.
func (r *resolver) str(s string) (string, error) {
	segs := parse(s, false)
	var produced int64
	for _, seg := range segs {
		if seg.ref == nil {
			continue
		}
		n, err := r.refLen(seg.ref)
		if err != nil {
			return "", err
		}
		if produced = addLen(produced, n); produced > r.s.maxExpand {
			return "", fmt.Errorf("%w: more than %d characters", ErrExpansionTooLarge, r.s.maxExpand)
		}
	}
	var b strings.Builder
	b.Grow(len(s) + int(produced))
	for _, seg := range segs {
		if seg.ref == nil {
			b.WriteString(seg.lit)
			continue
		}
		from, n := r.span(seg.ref)
		r.emit(&b, seg.ref.name, from, from+n)
	}
	return b.String(), nil
}

// refLen returns the length of what ref expands to, measuring the
// variables it reaches.
func (r *resolver) refLen(ref *ref) (int64, error) {
	if ref.bad {
		return 0, fmt.Errorf("%s: %w", ref.text, ErrBadSlice)
	}
	if _, err := r.measure(ref.name); err != nil {
		return 0, err
	}
	if ref.sliced && r.s.vars[ref.name].v.Type == TypeToolCallArgs {
		return 0, fmt.Errorf("%w %q (type %s)", ErrSliceNonString, ref.name, TypeToolCallArgs)
	}
	_, n := r.span(ref)
	return n, nil
}

// span returns where the text of a measured reference starts in the
// expansion of its variable, and its length.
func (r *resolver) span(ref *ref) (from, n int64) {
	total := r.length[ref.name]
	if !ref.sliced {
		return 0, total
	}
	if ref.start >= total {
		return total, 0
	}
	n = total - ref.start
	if ref.length > 0 && ref.length < n {
		n = ref.length
	}
	return ref.start, n
}

// measure returns the length of the expansion of the named variable,
// parsing and measuring every variable it reaches once.
func (r *resolver) measure(name string) (int64, error) {
	if n, ok := r.length[name]; ok {
		return n, nil
	}
	if i := slices.Index(r.path, name); i >= 0 {
		cycle := append(slices.Clone(r.path[i:]), name)
		return 0, fmt.Errorf("%w: %s", ErrCircular, strings.Join(cycle, " -> "))
	}
	e, ok := r.s.vars[name]
	if !ok {
		return 0, fmt.Errorf("variable %q %w", name, ErrNotFound)
	}
	r.seen = append(r.seen, e)
	r.path = append(r.path, name)
	var total int64
	for _, seg := range e.segments() {
		n := seg.runes
		if seg.ref != nil {
			var err error
			if n, err = r.refLen(seg.ref); err != nil {
				return 0, err
			}
		}
		total = addLen(total, n)
	}
	r.path = r.path[:len(r.path)-1]
	r.length[name] = total
	return total, nil
}

// emit writes the characters [from, to) of the expansion of the named,
// measured variable. It visits only the segments that overlap the range,
// so a short slice of a long expansion costs little.
func (r *resolver) emit(b *strings.Builder, name string, from, to int64) {
	if from >= to {
		return
	}
	var off int64
	for _, seg := range r.s.vars[name].segments() {
		if off >= to {
			return
		}
		n, start := seg.runes, int64(0)
		if seg.ref != nil {
			start, n = r.span(seg.ref)
		}
		lo, hi := max(from-off, 0), min(to-off, n)
		off += n
		if lo >= hi {
			continue
		}
		if seg.ref == nil {
			b.WriteString(seg.slice(lo, hi))
		} else {
			r.emit(b, seg.ref.name, start+lo, start+hi)
		}
	}
}

// slice returns the runes [lo, hi) of a literal segment.
func (seg *segment) slice(lo, hi int64) string {
	s := seg.lit
	if lo == 0 && hi == seg.runes {
		return s
	}
	if int64(len(s)) == seg.runes { // one byte per rune
		return s[lo:hi]
	}
	var i int64
	start, end := len(s), len(s)
	for off := range s {
		if i == lo {
			start = off
		}
		if i == hi {
			end = off
			break
		}
		i++
	}
	return s[start:end]
}

package vars

import (
	"sync"
	"testing"
	"time"
)

// clock is a fake clock for Options.Now. It only moves when told to.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func newClock() *clock { return &clock{t: t0} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// tick moves the clock one second on.
func (c *clock) tick() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
}

// at returns t0 plus n seconds.
func at(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }

// check verifies the invariants of s: the byte count, and a queue that
// holds exactly the evictable entries, in heap order, with true indices.
func check(t *testing.T, s *System) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var bytes int64
	evictables := 0
	for name, e := range s.vars {
		if e.v.Name != name {
			t.Errorf("entry %q holds variable %q", name, e.v.Name)
		}
		if got, want := e.size, sizeOf(&e.v); got != want {
			t.Errorf("%s: size = %d, want %d", name, got, want)
		}
		bytes += e.size
		if evictable(&e.v) {
			evictables++
			if e.index < 0 || e.index >= len(s.queue) || s.queue[e.index] != e {
				t.Errorf("%s: evictable but index %d is wrong", name, e.index)
			}
		} else if e.index != -1 {
			t.Errorf("%s: not evictable but index = %d", name, e.index)
		}
	}
	if got, want := s.bytes, bytes; got != want {
		t.Errorf("bytes = %d, want %d", got, want)
	}
	if got, want := len(s.queue), evictables; got != want {
		t.Errorf("queue length = %d, want %d", got, want)
	}
	for i := 1; i < len(s.queue); i++ {
		if s.queue.Less(i, (i-1)/2) {
			t.Errorf("queue is not a heap at %d", i)
		}
	}
}

// names returns the names of vs.
func names(vs []Variable) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Name)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

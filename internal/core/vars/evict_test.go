package vars

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

func TestEvictionOrder(t *testing.T) {
	// v builds a variable visited, updated and created at the given
	// seconds after t0.
	v := func(name string, visited, updated, created int) Variable {
		return Variable{Name: name, Value: "x", Type: TypeLLMAdd,
			LastVisited: at(visited), Updated: at(updated), Created: at(created)}
	}
	tests := []struct {
		name    string
		vars    []Variable
		now     int // when the new variable is written
		evicted []string
	}{
		{"oldest visit first", []Variable{v("a", 3, 1, 1), v("b", 2, 5, 5), v("c", 4, 0, 0)}, 10, []string{"b"}},
		{"then oldest update", []Variable{v("a", 3, 2, 0), v("b", 3, 1, 2), v("c", 4, 0, 0)}, 10, []string{"b"}},
		{"then oldest creation", []Variable{v("a", 3, 2, 1), v("b", 3, 2, 2), v("c", 4, 0, 0)}, 10, []string{"a"}},
		{"then name", []Variable{v("b", 3, 2, 1), v("a", 3, 2, 1), v("c", 3, 2, 1)}, 10, []string{"a"}},
		{"times by value, not location", []Variable{
			{Name: "b", Value: "x", LastVisited: at(3).In(fixedZone), Updated: at(2), Created: at(1)},
			v("a", 3, 2, 1), v("c", 4, 0, 0)}, 10, []string{"a"}},
		{"keep never", []Variable{{Name: "a", Value: "x", Keep: true}, v("b", 2, 2, 2), v("c", 3, 3, 3)}, 10, []string{"b"}},
		{"RULE never, even without Keep", []Variable{{Name: "Rule/G/R", Value: "x", Type: TypeRule}, v("b", 2, 2, 2), v("c", 3, 3, 3)}, 10, []string{"b"}},
		{"not the variable just written", []Variable{v("a", 3, 3, 3), v("b", 2, 2, 2), v("c", 4, 4, 4)}, -5, []string{"b"}},
		{"nothing evictable", []Variable{{Name: "a", Value: "x", Keep: true}, {Name: "b", Value: "x", Keep: true}, {Name: "c", Value: "x", Type: TypeRule}}, 10, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClock()
			s := New(Options{Now: c.Now, Capacity: 3})
			s.Restore(tt.vars)
			c.t = at(tt.now)
			if err := s.Add("new", "x", TypeLLMAdd, "", nil); err != nil {
				t.Fatal(err)
			}
			_, removed := s.TakeChanges()
			if !slices.Equal(removed, tt.evicted) {
				t.Errorf("evicted %q, want %q", removed, tt.evicted)
			}
			if _, ok := s.Peek("new"); !ok {
				t.Error("the new variable was evicted")
			}
			check(t, s)
		})
	}
}

func TestGetRefreshesOrder(t *testing.T) {
	c := newClock()
	s := New(Options{Now: c.Now, Capacity: 3})
	for _, name := range []string{"a", "b", "c"} {
		c.tick()
		s.Add(name, "x", TypeLLMAdd, "", nil)
	}
	c.tick()
	s.Get("a")
	c.tick()
	s.Peek("b") // does not count
	s.Add("d", "x", TypeLLMAdd, "", nil)
	c.tick()
	s.Add("e", "x", TypeLLMAdd, "", nil)
	if got, want := names(s.Snapshot()), []string{"a", "d", "e"}; !slices.Equal(got, want) {
		t.Errorf("left %q, want %q", got, want)
	}
	check(t, s)
}

func TestUpdateRefreshesOrder(t *testing.T) {
	c := newClock()
	s := New(Options{Now: c.Now, Capacity: 2})
	s.Add("a", "x", TypeLLMAdd, "", nil)
	c.tick()
	s.Add("b", "x", TypeLLMAdd, "", nil)
	c.tick()
	s.Update("a", Update{Desc: ptr("d")})
	s.Add("c", "x", TypeLLMAdd, "", nil)
	if got, want := names(s.Snapshot()), []string{"a", "c"}; !slices.Equal(got, want) {
		t.Errorf("left %q, want %q", got, want)
	}
}

func TestKeepToggle(t *testing.T) {
	c := newClock()
	s := New(Options{Now: c.Now, Capacity: 2})
	s.Add("a", "x", TypeLLMAdd, "", nil)
	s.SetKeep("a", true)
	c.tick()
	s.Add("b", "x", TypeLLMAdd, "", nil)
	c.tick()
	s.Add("c", "x", TypeLLMAdd, "", nil) // evicts b: a is kept
	s.SetKeep("a", false)                // a is now the oldest but just changed: spared
	c.tick()
	s.Add("d", "x", TypeLLMAdd, "", nil) // evicts a
	if got, want := names(s.Snapshot()), []string{"c", "d"}; !slices.Equal(got, want) {
		t.Errorf("left %q, want %q", got, want)
	}
	check(t, s)
}

func TestByteBudget(t *testing.T) {
	c := newClock()
	// Each variable below is 1 + 9 = 10 bytes.
	s := New(Options{Now: c.Now, MaxBytes: 35})
	for _, name := range []string{"a", "b", "c"} {
		c.tick()
		if err := s.Add(name, "123456789", TypeLLMAdd, "", nil); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := s.Bytes(), int64(30); got != want {
		t.Errorf("Bytes() = %d, want %d", got, want)
	}
	c.tick()
	s.Add("d", "123456789", TypeLLMAdd, "", nil)
	if got, want := names(s.Snapshot()), []string{"b", "c", "d"}; !slices.Equal(got, want) {
		t.Errorf("left %q, want %q", got, want)
	}
	// One large variable evicts several.
	c.tick()
	s.Add("e", "1234567890123456789012", TypeLLMAdd, "", nil)
	if got, want := names(s.Snapshot()), []string{"d", "e"}; !slices.Equal(got, want) {
		t.Errorf("left %q, want %q", got, want)
	}
	if got, want := s.Bytes(), int64(33); got != want {
		t.Errorf("Bytes() = %d, want %d", got, want)
	}
	// Growing a variable by Update evicts others too.
	c.tick()
	s.Update("d", Update{Value: ptr("12345678901234567890")})
	if got, want := names(s.Snapshot()), []string{"d"}; !slices.Equal(got, want) {
		t.Errorf("left %q, want %q", got, want)
	}
	check(t, s)
}

func TestCapacityHolds(t *testing.T) {
	c := newClock()
	s := New(Options{Now: c.Now, Capacity: 10})
	for i := range 100 {
		c.tick()
		s.Add(fmt.Sprintf("v%03d", i), "x", TypeLLMAdd, "", nil)
		if i%3 == 0 {
			s.Get(fmt.Sprintf("v%03d", i/2))
		}
		if got := s.Len(); got > 10 {
			t.Fatalf("Len() = %d after %d adds, want <= 10", got, i+1)
		}
	}
	check(t, s)
}

var fixedZone = time.FixedZone("X", 3600)

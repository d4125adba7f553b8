package vars

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestNewDefaults(t *testing.T) {
	s := New(Options{})
	if got, want := s.capacity, DefaultCapacity; got != want {
		t.Errorf("capacity = %d, want %d", got, want)
	}
	if got, want := s.maxBytes, int64(DefaultMaxBytes); got != want {
		t.Errorf("maxBytes = %d, want %d", got, want)
	}
	if got, want := s.maxExpand, int64(DefaultMaxExpand); got != want {
		t.Errorf("maxExpand = %d, want %d", got, want)
	}
	if s.now == nil {
		t.Error("now is nil")
	}
}

func TestValidName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"a", true},
		{"Rule/Agent/VarRef", true},
		{"web_fetch_call-1.2_result", true},
		{"变量", true},
		{"", false},
		{"a b", false},
		{"a:b", false},
		{"a}}", false},
		{"a$", false},
		{"\xff", false},
	}
	for _, tt := range tests {
		if got := ValidName(tt.name); got != tt.want {
			t.Errorf("ValidName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestSetTimes(t *testing.T) {
	c := newClock()
	s := New(Options{Now: c.Now})
	if err := s.Set(Variable{Name: "a", Value: "1", Created: at(-100), LastVisited: at(-100)}); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Peek("a")
	if !got.Created.Equal(t0) || !got.Updated.Equal(t0) || !got.LastVisited.Equal(t0) {
		t.Errorf("new: times = %v %v %v, want all %v", got.Created, got.Updated, got.LastVisited, t0)
	}
	c.tick()
	if err := s.Set(Variable{Name: "a", Value: "2", Type: TypeUserAdd}); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Peek("a")
	if !got.Created.Equal(t0) || !got.Updated.Equal(at(1)) || !got.LastVisited.Equal(at(1)) {
		t.Errorf("replaced: times = %v %v %v, want %v %v %v", got.Created, got.Updated, got.LastVisited, t0, at(1), at(1))
	}
	if got.Value != "2" || got.Type != TypeUserAdd {
		t.Errorf("replaced: value, type = %q, %q; want %q, %q", got.Value, got.Type, "2", TypeUserAdd)
	}
	check(t, s)
}

func TestSetErrors(t *testing.T) {
	s := New(Options{MaxBytes: 10})
	tests := []struct {
		v    Variable
		want error
	}{
		{Variable{Name: "", Value: "x"}, ErrInvalidName},
		{Variable{Name: "a b", Value: "x"}, ErrInvalidName},
		{Variable{Name: "a", Value: "0123456789"}, ErrTooLarge},
		{Variable{Name: "a", Value: "1", Desc: "123456", Tags: []string{"123"}}, ErrTooLarge},
		{Variable{Name: "a", Value: "1", Desc: "1234", Tags: []string{"123"}}, nil},
	}
	for _, tt := range tests {
		if got := s.Set(tt.v); !errors.Is(got, tt.want) {
			t.Errorf("Set(%+v) = %v, want %v", tt.v, got, tt.want)
		}
	}
	if got, want := s.Len(), 1; got != want {
		t.Errorf("Len() = %d, want %d", got, want)
	}
	if got, want := s.Bytes(), int64(9); got != want {
		t.Errorf("Bytes() = %d, want %d", got, want)
	}
}

func TestGetPeekCopies(t *testing.T) {
	c := newClock()
	s := New(Options{Now: c.Now})
	if err := s.Add("a", "1", TypeUserAdd, "d", []string{"x"}); err != nil {
		t.Fatal(err)
	}
	c.tick()
	p, ok := s.Peek("a")
	if !ok || !p.LastVisited.Equal(t0) {
		t.Errorf("Peek: ok = %v, LastVisited = %v; want true, %v", ok, p.LastVisited, t0)
	}
	p.Tags[0] = "changed"
	g, ok := s.Get("a")
	if !ok || !g.LastVisited.Equal(at(1)) || !g.Updated.Equal(t0) {
		t.Errorf("Get: ok = %v, LastVisited = %v, Updated = %v; want true, %v, %v", ok, g.LastVisited, g.Updated, at(1), t0)
	}
	if got, want := g.Tags, []string{"x"}; !slices.Equal(got, want) {
		t.Errorf("tags after changing a copy = %q, want %q", got, want)
	}
	if _, ok := s.Get("missing"); ok {
		t.Error("Get(missing) ok = true")
	}
	if _, ok := s.Peek("missing"); ok {
		t.Error("Peek(missing) ok = true")
	}
}

func TestUpdate(t *testing.T) {
	c := newClock()
	s := New(Options{Now: c.Now, MaxBytes: 20})
	if err := s.Add("a", "value", TypeUserAdd, "desc", []string{"t1"}); err != nil {
		t.Fatal(err)
	}
	c.tick()
	tests := []struct {
		name string
		u    Update
		want Variable
		err  error
	}{
		{"nothing", Update{}, Variable{Value: "value", Type: TypeUserAdd, Desc: "desc", Tags: []string{"t1"}}, nil},
		{"value", Update{Value: ptr("v2")}, Variable{Value: "v2", Type: TypeUserAdd, Desc: "desc", Tags: []string{"t1"}}, nil},
		{"type and desc", Update{Type: ptr(TypeLLMAdd), Desc: ptr("")}, Variable{Value: "v2", Type: TypeLLMAdd, Tags: []string{"t1"}}, nil},
		{"tags", Update{Tags: []string{"t2", "t3"}}, Variable{Value: "v2", Type: TypeLLMAdd, Tags: []string{"t2", "t3"}}, nil},
		{"clear tags", Update{Tags: []string{}}, Variable{Value: "v2", Type: TypeLLMAdd, Tags: []string{}}, nil},
		{"keep", Update{Keep: ptr(true)}, Variable{Value: "v2", Type: TypeLLMAdd, Tags: []string{}, Keep: true}, nil},
		{"too large", Update{Value: ptr(strings.Repeat("x", 20))}, Variable{Value: "v2", Type: TypeLLMAdd, Tags: []string{}, Keep: true}, ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.Update("a", tt.u); !errors.Is(err, tt.err) {
				t.Fatalf("Update() = %v, want %v", err, tt.err)
			}
			got, _ := s.Peek("a")
			want := tt.want
			want.Name, want.Created = "a", t0
			want.Updated, want.LastVisited = got.Updated, got.LastVisited
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
			if tt.err == nil && !got.Updated.Equal(at(1)) {
				t.Errorf("Updated = %v, want %v", got.Updated, at(1))
			}
			check(t, s)
		})
	}
	if err := s.Update("missing", Update{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("Update(missing) = %v, want %v", err, ErrNotFound)
	}
}

func TestSetKeep(t *testing.T) {
	s := New(Options{Now: newClock().Now})
	if err := s.Add("a", "1", TypeUserAdd, "", nil); err != nil {
		t.Fatal(err)
	}
	for _, keep := range []bool{true, true, false} {
		if err := s.SetKeep("a", keep); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Peek("a"); got.Keep != keep {
			t.Errorf("Keep = %v, want %v", got.Keep, keep)
		}
		check(t, s)
	}
	if err := s.SetKeep("missing", true); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetKeep(missing) = %v, want %v", err, ErrNotFound)
	}
}

func TestList(t *testing.T) {
	s := New(Options{})
	for _, v := range []Variable{
		{Name: "b", Value: "1", Type: TypeLLMAdd, Desc: "Second TODO", Tags: []string{"todo"}},
		{Name: "TODO_01_a", Value: "1", Type: TypeLLMAdd, Tags: []string{"todo", "x"}},
		{Name: "c_result", Value: "1", Type: TypeToolCallResult, Desc: "fetch"},
		{Name: "a", Value: "1", Type: TypeUserAdd},
	} {
		if err := s.Set(v); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		f    Filter
		want []string
	}{
		{Filter{}, []string{"TODO_01_a", "a", "b", "c_result"}},
		{Filter{Type: TypeLLMAdd}, []string{"TODO_01_a", "b"}},
		{Filter{Type: TypeRule}, nil},
		{Filter{Tag: "todo"}, []string{"TODO_01_a", "b"}},
		{Filter{Tag: "x"}, []string{"TODO_01_a"}},
		{Filter{Tag: "TODO"}, nil},
		{Filter{Search: "todo"}, []string{"TODO_01_a", "b"}},
		{Filter{Search: "FETCH"}, []string{"c_result"}},
		{Filter{Search: "todo_"}, []string{"TODO_01_a"}},
		{Filter{Type: TypeLLMAdd, Tag: "todo", Search: "second"}, []string{"b"}},
	}
	for _, tt := range tests {
		if got := names(s.List(tt.f)); !slices.Equal(got, tt.want) {
			t.Errorf("List(%+v) = %q, want %q", tt.f, got, tt.want)
		}
	}
}

func TestTakeChanges(t *testing.T) {
	c := newClock()
	s := New(Options{Now: c.Now, Capacity: 3})
	type want struct {
		upserted []string
		removed  []string
	}
	steps := []struct {
		name string
		do   func()
		want want
	}{
		{"set", func() {
			s.Add("b", "1", TypeLLMAdd, "", nil)
			s.Add("a", "$VAR_REF{{c}}", TypeLLMAdd, "", nil)
			s.Add("c", "x", TypeLLMAdd, "", nil)
		}, want{[]string{"a", "b", "c"}, nil}},
		{"nothing", func() {}, want{}},
		{"peek and list do not count", func() { s.Peek("a"); s.List(Filter{}); s.Snapshot() }, want{}},
		{"get counts", func() { s.Get("b") }, want{[]string{"b"}, nil}},
		{"resolve touches", func() { s.ResolveString("$VAR_REF{{a}}") }, want{[]string{"a", "c"}, nil}},
		{"update", func() { s.Update("a", Update{Desc: ptr("d")}) }, want{[]string{"a"}, nil}},
		{"remove", func() { s.Remove("a", "missing") }, want{nil, []string{"a"}}},
		{"remove then add", func() { s.Remove("b"); s.Add("b", "2", TypeLLMAdd, "", nil) }, want{[]string{"b"}, nil}},
		{"add then remove", func() { s.Add("d", "2", TypeLLMAdd, "", nil); s.Remove("d") }, want{nil, []string{"d"}}},
		{"evict", func() {
			c.tick()
			s.Add("d", "1", TypeLLMAdd, "", nil)
			s.Add("e", "1", TypeLLMAdd, "", nil)
		}, want{[]string{"d", "e"}, []string{"b"}}},
		{"restore clears", func() {
			s.Add("f", "1", TypeLLMAdd, "", nil)
			s.Restore(s.Snapshot())
		}, want{}},
	}
	for _, st := range steps {
		st.do()
		upserted, removed := s.TakeChanges()
		if got := names(upserted); !slices.Equal(got, st.want.upserted) {
			t.Errorf("%s: upserted = %q, want %q", st.name, got, st.want.upserted)
		}
		if !slices.Equal(removed, st.want.removed) {
			t.Errorf("%s: removed = %q, want %q", st.name, removed, st.want.removed)
		}
		for _, v := range upserted {
			if p, _ := s.Peek(v.Name); !reflect.DeepEqual(p, v) {
				t.Errorf("%s: upserted %+v, stored %+v", st.name, v, p)
			}
		}
		check(t, s)
	}
}

func TestSnapshotRestore(t *testing.T) {
	c := newClock()
	s := New(Options{Now: c.Now, Capacity: 20})
	for i := range 10 {
		c.tick()
		if err := s.Add(fmt.Sprintf("v%d", i), "x", TypeLLMAdd, "", []string{"t"}); err != nil {
			t.Fatal(err)
		}
	}
	s.SetKeep("v1", true)
	s.Add("Rule/G/R", "rule", TypeRule, "", nil)
	for _, name := range []string{"v3", "v0", "v7"} {
		c.tick()
		s.Get(name)
	}
	c.tick()
	s.Update("v5", Update{Value: ptr("y")})
	snap := s.Snapshot()

	r := New(Options{Now: c.Now, Capacity: 20})
	r.Add("stale", "x", TypeLLMAdd, "", nil)
	r.Restore(snap)
	if got := r.Snapshot(); !reflect.DeepEqual(got, snap) {
		t.Errorf("Snapshot after Restore:\n got %+v\nwant %+v", got, snap)
	}
	if got, want := r.Bytes(), s.Bytes(); got != want {
		t.Errorf("Bytes() = %d, want %d", got, want)
	}
	check(t, r)

	// The eviction order survives the round trip.
	order := func(s *System) []string {
		s.TakeChanges()
		s.mu.Lock()
		s.capacity = len(s.vars) // each new variable evicts one
		s.mu.Unlock()
		var out []string
		for i := range 20 {
			s.Add(fmt.Sprintf("new%02d", i), "x", TypeLLMAdd, "", nil)
			_, removed := s.TakeChanges()
			out = append(out, removed...)
		}
		return out
	}
	want := []string{"v2", "v4", "v6", "v8", "v9", "v3", "v0", "v7", "v5"}
	if got := order(s); !slices.Equal(got[:len(want)], want) {
		t.Errorf("original eviction order = %q, want %q", got, want)
	}
	if got := order(r); !slices.Equal(got[:len(want)], want) {
		t.Errorf("restored eviction order = %q, want %q", got, want)
	}
}

func TestRestoreDuplicates(t *testing.T) {
	s := New(Options{})
	s.Restore([]Variable{{Name: "a", Value: "1"}, {Name: "a", Value: "22"}})
	if got, _ := s.Peek("a"); got.Value != "22" {
		t.Errorf("value = %q, want %q", got.Value, "22")
	}
	if got, want := s.Bytes(), int64(3); got != want {
		t.Errorf("Bytes() = %d, want %d", got, want)
	}
	check(t, s)
}

func TestConcurrent(t *testing.T) {
	s := New(Options{Capacity: 50, Now: newClock().Now})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				name := fmt.Sprintf("v%d", (g*7+i)%80)
				switch i % 5 {
				case 0:
					s.Add(name, fmt.Sprintf("$VAR_REF{{v%d}}", i%80), TypeLLMAdd, "", nil)
				case 1:
					s.Get(name)
				case 2:
					s.ResolveString("$VAR_REF{{" + name + "}}")
				case 3:
					s.TakeChanges()
				case 4:
					s.Remove(name)
				}
			}
		})
	}
	wg.Wait()
	if s.Len() > 50 {
		t.Errorf("Len() = %d, want <= 50", s.Len())
	}
	check(t, s)
}

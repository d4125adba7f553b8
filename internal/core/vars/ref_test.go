package vars

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// refSystem returns a System holding the variables of the resolver tests.
func refSystem(t testing.TB, c *clock) *System {
	t.Helper()
	s := New(Options{Now: c.Now})
	for _, v := range []Variable{
		{Name: "greet", Value: "hello"},
		{Name: "who", Value: "world"},
		{Name: "msg", Value: "$VAR_REF{{greet}}, $VAR_REF{{who}}!"},
		{Name: "deep", Value: "<$VAR_REF{{msg:7:5}}>"},
		{Name: "uni", Value: "héllo wörld"},
		{Name: "empty", Value: ""},
		{Name: "Rule/G/R", Value: "rule text", Type: TypeRule},
		{Name: "tool_call1_args", Value: `{"path":"a.txt"}`, Type: TypeToolCallArgs},
		{Name: "tool_call1_result", Value: `{"ok":true}`, Type: TypeToolCallResult},
		{Name: "a", Value: "A$VAR_REF{{b}}"},
		{Name: "b", Value: "B$VAR_REF{{a}}"},
		{Name: "self", Value: "x$VAR_REF{{self:0:1}}"},
		{Name: "c1", Value: "$VAR_REF{{c2}}"},
		{Name: "c2", Value: "$VAR_REF{{c3}}"},
		{Name: "c3", Value: "$VAR_REF{{c1}}"},
		{Name: "to_missing", Value: "$VAR_REF{{nope}}"},
		{Name: "literal", Value: "$VAR_REF{{greet"},
	} {
		if err := s.Set(v); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestResolveString(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr error
		errText string
	}{
		{name: "no reference", in: "plain $VAR_REF text", want: "plain $VAR_REF text"},
		{name: "full", in: "$VAR_REF{{greet}}", want: "hello"},
		{name: "inside text", in: "say $VAR_REF{{greet}} to $VAR_REF{{who}}.", want: "say hello to world."},
		{name: "same variable twice", in: "$VAR_REF{{greet}}$VAR_REF{{greet}}", want: "hellohello"},
		{name: "slice", in: "$VAR_REF{{greet:1:3}}", want: "ell"},
		{name: "slice from 0", in: "$VAR_REF{{greet:0:2}}", want: "he"},
		{name: "length 0 reads to the end", in: "$VAR_REF{{greet:2:0}}", want: "llo"},
		{name: "length past the end is clamped", in: "$VAR_REF{{greet:3:100}}", want: "lo"},
		{name: "start at the end", in: "[$VAR_REF{{greet:5:1}}]", want: "[]"},
		{name: "start past the end", in: "[$VAR_REF{{greet:99:1}}]", want: "[]"},
		{name: "huge length", in: "$VAR_REF{{greet:1:9223372036854775807}}", want: "ello"},
		{name: "slice counts characters", in: "$VAR_REF{{uni:1:4}}|$VAR_REF{{uni:7:3}}", want: "éllo|örl"},
		{name: "empty variable", in: "[$VAR_REF{{empty}}]", want: "[]"},
		{name: "recursive", in: "$VAR_REF{{msg}}", want: "hello, world!"},
		{name: "slice across references", in: "$VAR_REF{{msg:3:6}}", want: "lo, wo"},
		{name: "nested slices", in: "$VAR_REF{{deep}}", want: "<world>"},
		{name: "Rule name", in: "$VAR_REF{{Rule/G/R:0:4}}", want: "rule"},
		{name: "whole ToolCallArgs", in: "$VAR_REF{{tool_call1_args}}", want: `{"path":"a.txt"}`},
		{name: "slice JSON tool result", in: "$VAR_REF{{tool_call1_result:1:4}}", want: `"ok"`},
		{name: "value not a reference", in: "$VAR_REF{{literal}}", want: "$VAR_REF{{greet"},
		{name: "unclosed", in: "$VAR_REF{{greet", want: "$VAR_REF{{greet"},
		{name: "not references", in: "$VAR_REF{{}} $VAR_REF{{a b}} $VAR_REF{{greet:1}} $VAR_REF{{greet:x:1}} $VAR_REF{greet} $VAR_REF{{greet:1:2}", want: "$VAR_REF{{}} $VAR_REF{{a b}} $VAR_REF{{greet:1}} $VAR_REF{{greet:x:1}} $VAR_REF{greet} $VAR_REF{{greet:1:2}"},
		{name: "reference after a false start", in: "$VAR_REF{{$VAR_REF{{greet}}", want: "$VAR_REF{{hello"},

		{name: "missing", in: "$VAR_REF{{nope}}", wantErr: ErrNotFound, errText: `variable "nope" not found`},
		{name: "missing through a variable", in: "$VAR_REF{{to_missing}}", wantErr: ErrNotFound, errText: `variable "nope" not found`},
		{name: "circular", in: "$VAR_REF{{a}}", wantErr: ErrCircular, errText: "circular variable reference: a -> b -> a"},
		{name: "circular from the middle", in: "x $VAR_REF{{c2}}", wantErr: ErrCircular, errText: "circular variable reference: c2 -> c3 -> c1 -> c2"},
		{name: "self", in: "$VAR_REF{{self}}", wantErr: ErrCircular, errText: "circular variable reference: self -> self"},
		{name: "slice non-string", in: "$VAR_REF{{tool_call1_args:0:5}}", wantErr: ErrSliceNonString, errText: `cannot slice non-string variable "tool_call1_args" (type ToolCallArgs)`},
		{name: "negative start", in: "$VAR_REF{{greet:-1:2}}", wantErr: ErrBadSlice},
		{name: "negative length", in: "$VAR_REF{{greet:1:-2}}", wantErr: ErrBadSlice},
		{name: "overflowing start", in: "$VAR_REF{{greet:99999999999999999999:1}}", wantErr: ErrBadSlice},
		{name: "bad slice of a missing variable", in: "$VAR_REF{{nope:-1:1}}", wantErr: ErrBadSlice},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := refSystem(t, newClock())
			got, err := s.ResolveString(tt.in)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("ResolveString(%q) error = %v, want %v", tt.in, err, tt.wantErr)
			}
			if err != nil {
				if tt.errText != "" && err.Error() != tt.errText {
					t.Errorf("error = %q, want %q", err, tt.errText)
				}
				return
			}
			if got != tt.want {
				t.Errorf("ResolveString(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if got, want := HasRef(tt.in), got != tt.in; got != want {
				t.Errorf("HasRef(%q) = %v, want %v", tt.in, got, want)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	s := refSystem(t, newClock())
	in := map[string]any{
		"path":  "$VAR_REF{{greet}}.txt",
		"n":     3.5,
		"ok":    true,
		"none":  nil,
		"list":  []any{"$VAR_REF{{msg}}", "$VAR_REF{{msg}}", 1, []any{"$VAR_REF{{who:0:1}}"}},
		"inner": map[string]any{"x": "$VAR_REF{{deep}}", "y": map[string]any{}},
	}
	want := map[string]any{
		"path":  "hello.txt",
		"n":     3.5,
		"ok":    true,
		"none":  nil,
		"list":  []any{"hello, world!", "hello, world!", 1, []any{"w"}},
		"inner": map[string]any{"x": "<world>", "y": map[string]any{}},
	}
	got, err := s.Resolve(in)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Resolve() = %#v\nwant %#v", got, want)
	}
	if got := in["list"].([]any)[0]; got != "$VAR_REF{{msg}}" {
		t.Errorf("input changed: list[0] = %q", got)
	}

	for _, tt := range []struct {
		in   any
		want any
	}{
		{nil, nil},
		{42, 42},
		{"$VAR_REF{{who}}", "world"},
		{[]any{}, []any{}},
	} {
		if got, err := s.Resolve(tt.in); err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Resolve(%#v) = %#v, %v; want %#v", tt.in, got, err, tt.want)
		}
	}

	// The first error in key order is reported, whatever the map order.
	bad := map[string]any{"z": "$VAR_REF{{a}}", "b": []any{"ok", "$VAR_REF{{nope}}"}, "c": "$VAR_REF{{self}}"}
	for range 10 {
		if _, err := s.Resolve(bad); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Resolve(bad) = %v, want %v", err, ErrNotFound)
		}
	}
}

func TestResolveTouches(t *testing.T) {
	c := newClock()
	s := refSystem(t, c)
	c.tick()
	if _, err := s.ResolveString("$VAR_REF{{deep}}"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"deep", "msg", "greet", "who"} {
		if v, _ := s.Peek(name); !v.LastVisited.Equal(at(1)) {
			t.Errorf("%s: LastVisited = %v, want %v", name, v.LastVisited, at(1))
		}
	}
	if v, _ := s.Peek("uni"); !v.LastVisited.Equal(t0) {
		t.Errorf("uni: LastVisited = %v, want %v", v.LastVisited, t0)
	}
	check(t, s)
}

func TestExpandLimit(t *testing.T) {
	tests := []struct {
		name      string
		maxExpand int
		in        string
		wantErr   error
	}{
		{"at the limit", 10, "$VAR_REF{{ten}}", nil},
		{"over the limit", 9, "$VAR_REF{{ten}}", ErrExpansionTooLarge},
		{"literal text does not count", 10, strings.Repeat("-", 100) + "$VAR_REF{{ten}}", nil},
		{"references add up", 19, "$VAR_REF{{ten}}$VAR_REF{{ten}}", ErrExpansionTooLarge},
		{"slices count what they take", 10, "$VAR_REF{{ten:0:5}}$VAR_REF{{ten:5:0}}", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Options{MaxExpand: tt.maxExpand})
			s.Add("ten", "0123456789", TypeLLMAdd, "", nil)
			got, err := s.ResolveString(tt.in)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			if err == nil && utf8.RuneCountInString(got) > utf8.RuneCountInString(tt.in)+tt.maxExpand {
				t.Errorf("len(%q) is over the limit", got)
			}
		})
	}
	// The limit applies to each string of a value on its own.
	s := New(Options{MaxExpand: 10})
	s.Add("ten", "0123456789", TypeLLMAdd, "", nil)
	if _, err := s.Resolve([]any{"$VAR_REF{{ten}}", "$VAR_REF{{ten}}"}); err != nil {
		t.Errorf("Resolve(two strings) = %v, want nil", err)
	}
}

// doubling stores a chain d0 … dN where each variable references the
// previous one twice, so dN expands to 2^N copies of d0.
func doubling(t testing.TB, s *System, n int, d0 string) {
	t.Helper()
	if err := s.Add("d0", d0, TypeLLMAdd, "", nil); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		v := fmt.Sprintf("$VAR_REF{{d%d}}$VAR_REF{{d%d}}", i-1, i-1)
		if err := s.Add(fmt.Sprintf("d%d", i), v, TypeLLMAdd, "", nil); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDoublingChain(t *testing.T) {
	s := New(Options{})
	doubling(t, s, 100, "0123456789abcdef")

	// A small chain expands in full.
	got, err := s.ResolveString("$VAR_REF{{d10}}")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Repeat("0123456789abcdef", 1<<10); got != want {
		t.Errorf("d10 expands to %d characters, want %d", len(got), len(want))
	}

	// A long chain fails at once, without building anything large.
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = s.ResolveString("$VAR_REF{{d100}}")
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrExpansionTooLarge) {
		t.Fatalf("d100: error = %v, want %v", err, ErrExpansionTooLarge)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("d100: allocated %d bytes, want at most 1 MiB", got)
	}

	// Just over the limit: 2^17 * 16 = 2 MiB.
	if _, err := s.ResolveString("$VAR_REF{{d17}}"); !errors.Is(err, ErrExpansionTooLarge) {
		t.Errorf("d17: error = %v, want %v", err, ErrExpansionTooLarge)
	}

	// A slice of a huge expansion builds only the slice.
	got, err = s.ResolveString("$VAR_REF{{d100:1000000000000:20}}")
	if err != nil {
		t.Fatal(err)
	}
	if want := "0123456789abcdef0123"; got != want {
		t.Errorf("slice of d100 = %q, want %q", got, want)
	}
}

// FuzzResolve resolves arbitrary strings against a fixed set of variables
// that includes cycles, slices and a doubling chain. It checks that
// nothing panics, that the output grows by at most MaxExpand characters,
// and that every error is one of the documented ones.
func FuzzResolve(f *testing.F) {
	for _, seed := range []string{
		"", "plain", "$VAR_REF{{greet}}", "$VAR_REF{{msg:3:6}}", "$VAR_REF{{self}}",
		"$VAR_REF{{d8}}$VAR_REF{{d8}}", "$VAR_REF{{d30:5:10}}", "$VAR_REF{{uni:2:3}}",
		"$VAR_REF{{a}}", "$VAR_REF{{greet:-1:2}}", "$VAR_REF{{tool_call1_args:0:1}}",
		"$VAR_REF{{$VAR_REF{{greet}}}}", "é$VAR_REF{{uni}}\xff$VAR_REF{{nope}}",
	} {
		f.Add(seed)
	}
	const maxExpand = 256
	s := New(Options{MaxExpand: maxExpand, Now: newClock().Now})
	s.Restore(refSystem(f, newClock()).Snapshot())
	doubling(f, s, 30, "ab")
	s.Add("bad", "\xffé$VAR_REF{{uni:1:2}}", TypeLLMAdd, "", nil)
	sentinels := []error{ErrNotFound, ErrCircular, ErrSliceNonString, ErrBadSlice, ErrExpansionTooLarge}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := s.ResolveString(in)
		if err != nil {
			for _, want := range sentinels {
				if errors.Is(err, want) {
					return
				}
			}
			t.Fatalf("ResolveString(%q) = unexpected error %v", in, err)
		}
		if n, limit := utf8.RuneCountInString(got), utf8.RuneCountInString(in)+maxExpand; n > limit {
			t.Fatalf("ResolveString(%q) gave %d characters, want at most %d", in, n, limit)
		}
		if !HasRef(in) && got != in {
			t.Fatalf("ResolveString(%q) = %q without a reference", in, got)
		}
		if utf8.ValidString(in) && !utf8.ValidString(got) && !strings.Contains(in, "bad") {
			t.Fatalf("ResolveString(%q) = %q is not valid UTF-8", in, got)
		}
	})
}

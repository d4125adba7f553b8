package vars

import (
	"strconv"
	"strings"
	"testing"
)

// full returns a System holding n variables of about 100 bytes each.
func full(b *testing.B, n int) *System {
	b.Helper()
	s := New(Options{Capacity: n})
	value := strings.Repeat("x", 100)
	for i := range n {
		if err := s.Add("v"+strconv.Itoa(i), value, TypeToolCallResult, "", nil); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkSetAtCapacity inserts into a full 1000-variable System, so that
// every insert evicts one variable.
func BenchmarkSetAtCapacity(b *testing.B) {
	s := full(b, 1000)
	value := strings.Repeat("y", 100)
	names := make([]string, 4096)
	for i := range names {
		names[i] = "new" + strconv.Itoa(i)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := s.Add(names[i%len(names)], value, TypeToolCallResult, "", nil); err != nil {
			b.Fatal(err)
		}
		i++
	}
	if got := s.Len(); got != 1000 {
		b.Fatalf("Len() = %d, want 1000", got)
	}
}

// BenchmarkGet reads variables of a full 1000-variable System; each read
// moves the variable in the eviction queue.
func BenchmarkGet(b *testing.B) {
	s := full(b, 1000)
	names := make([]string, 1000)
	for i := range names {
		names[i] = "v" + strconv.Itoa(i)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, ok := s.Get(names[i%len(names)]); !ok {
			b.Fatal("not found")
		}
		i++
	}
}

// BenchmarkResolve resolves typical tool arguments: an object with a path,
// a whole 4 KB tool result, and a 2,000-character slice of a 100 KB one,
// in a full 1000-variable System.
func BenchmarkResolve(b *testing.B) {
	s := full(b, 1000)
	s.Add("fetch_call1_result", strings.Repeat("ab\n", 100<<10/3), TypeToolCallResult, "", nil)
	s.Add("read_call2_result", strings.Repeat("é", 4<<10), TypeToolCallResult, "", nil)
	s.Add("dir", "out/$VAR_REF{{v7:0:10}}", TypeLLMAdd, "", nil)
	args := map[string]any{
		"path":    "$VAR_REF{{dir}}/page.md",
		"content": "# Page\n\n$VAR_REF{{read_call2_result}}\n\n$VAR_REF{{fetch_call1_result:50000:2000}}",
		"append":  true,
		"tags":    []any{"a", "b"},
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Resolve(args); err != nil {
			b.Fatal(err)
		}
	}
}

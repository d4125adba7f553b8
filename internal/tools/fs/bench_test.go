package fs_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/threadbot/threadbot/internal/tools/fs"
)

// goLike returns a 5,000-line file of 1,000 small functions.
func goLike() string {
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "func f%d(x int) int {\n\tv := compute(%d, x)\n\treturn v + %d\n}\n\n", i, i, i)
	}
	return b.String()
}

// BenchmarkEditBlockAnchor runs edit through the executor on a 5,000-line
// file with an old_string whose middle line differs from the file, so
// exact and line-trimmed fail and block-anchor matches. The file is
// written back (atomically, with fsync) each time.
func BenchmarkEditBlockAnchor(b *testing.B) {
	e := newEnv(b, fs.Options{}, false)
	e.file("sandbox/big.go", goLike())
	old := "func f500(x int) int {\n\tv := compute(500, y)\n\treturn v + 500\n}"
	news := []string{
		"func f500(x int) int {\n\tv := compute(500, z)\n\treturn v + 500\n}",
		"func f500(x int) int {\n\tv := compute(500, w)\n\treturn v + 500\n}",
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		r := e.run("edit", map[string]any{"path": "big.go", "old_string": old, "new_string": news[i%2]})
		if !strings.Contains(r.Text, "replacer block-anchor") {
			b.Fatalf("%s: %s", r.Status, r.Text)
		}
	}
}

// BenchmarkReplaceNotFound runs the replacer chain alone, on the same
// file, for an old_string none of the nine replacers finds: the slowest
// path, ending with the closest-line hint.
func BenchmarkReplaceNotFound(b *testing.B) {
	content := goLike()
	old := "func nothing(x int) int {\n\tv := compute(1, q)\n\treturn 0\n}"
	for b.Loop() {
		if _, _, err := fs.Replace(content, old, "x", false); err == nil || !strings.Contains(err.Error(), "not found") {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplaceBlockAnchor is the replacer chain alone for the
// block-anchor case of BenchmarkEditBlockAnchor.
func BenchmarkReplaceBlockAnchor(b *testing.B) {
	content := goLike()
	old := "func f500(x int) int {\n\tv := compute(500, y)\n\treturn v + 500\n}"
	for b.Loop() {
		if _, r, err := fs.Replace(content, old, "x", false); err != nil || r != "block-anchor" {
			b.Fatal(r, err)
		}
	}
}

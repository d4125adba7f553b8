package fs_test

import (
	"os"
	"strings"
	"testing"

	"github.com/threadbot/threadbot/internal/tools/fs"
)

// Each case is built so that the named replacer is the first to pin
// old_string down; the comments say why the earlier ones do not.
var replacerCases = []struct {
	name     string
	content  string
	old, new string
	all      bool
	want     string // the file afterwards
	replacer string
	note     string // also in the text
}{
	{
		name:    "exact",
		content: "alpha\nbeta\ngamma\n", old: "beta", new: "BETA",
		want: "alpha\nBETA\ngamma\n", replacer: "exact",
	},
	{
		// The model re-indented the block with spaces.
		name:    "line-trimmed",
		content: "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n",
		old:     "if x {\n  return 1\n}", new: "\tif x {\n\t\treturn 2\n\t}",
		want: "func f() {\n\tif x {\n\t\treturn 2\n\t}\n}\n", replacer: "line-trimmed",
	},
	{
		// The middle line differs by one character: not line-trimmed.
		name:    "block-anchor",
		content: "func f() {\n\treturn computeValue(a, b)\n}\n",
		old:     "func f() {\n\treturn computeValue(a, c)\n}", new: "func f() {\n\treturn 0\n}",
		want: "func f() {\n\treturn 0\n}\n", replacer: "block-anchor",
	},
	{
		// Two spaces inside the line; one line, so no block-anchor.
		name:    "whitespace-normalised",
		content: "package p\n\tx := foo(a,  b)\n",
		old:     "x := foo(a, b)", new: "\tx := foo(a, b, c)",
		want: "package p\n\tx := foo(a, b, c)\n", replacer: "whitespace-normalised",
	},
	{
		// line-trimmed, block-anchor (a tie) and whitespace-normalised
		// each find both blocks; only the first has x() indented one
		// level deeper than its if, as old_string does.
		name:    "indentation-flexible",
		content: "if a {\n    x()\n}\nfunc g() {\n    if a {\n    x()\n    }\n}\n",
		old:     "  if a {\n      x()\n  }", new: "if a {\n    y()\n}",
		want: "if a {\n    y()\n}\nfunc g() {\n    if a {\n    x()\n    }\n}\n", replacer: "indentation-flexible",
	},
	{
		// The model double-escaped both strings.
		name:    "escape-normalised",
		content: "fmt.Println(\"a\")\n\treturn nil\n",
		old:     `fmt.Println(\"a\")\n\treturn nil`, new: `fmt.Println(\"b\")\n\treturn nil`,
		want: "fmt.Println(\"b\")\n\treturn nil\n", replacer: "escape-normalised", note: "new_string was unescaped too",
	},
	{
		// Blank lines around old_string that the file lacks.
		name:    "trimmed-boundary",
		content: "func f() {\n  a()\n  b()\n}\n",
		old:     "\n  a()\n  b()\n\n", new: "c()",
		want: "func f() {\n  c()\n}\n", replacer: "trimmed-boundary",
	},
	{
		// Half of the non-blank middle lines agree; block-anchor scores
		// the blank lines 0 and stays below 0.3.
		name:    "context-aware",
		content: "func f() {\n\n\n\n\tx()\n\tzzzzz\n}\n",
		old:     "func f() {\n\n\n\n\tx()\n\ty()\n}", new: "func f() {\n\tx()\n}",
		want: "func f() {\n\tx()\n}\n", replacer: "context-aware",
	},
	{
		name:    "multi-occurrence",
		content: "x = 1\ny = 0\nx = 1\n", old: "x = 1", new: "x = 2", all: true,
		want: "x = 2\ny = 0\nx = 2\n", replacer: "multi-occurrence", note: "2 replacements",
	},
	{
		name:    "replace_all with one occurrence",
		content: "x = 1\ny = 0\n", old: "x = 1", new: "x = 2", all: true,
		want: "x = 2\ny = 0\n", replacer: "exact", note: "1 replacement",
	},
	{
		name:    "replace_all through a fuzzy replacer",
		content: "\tfoo(a,  b)\n\tfoo(a,  b)\n", old: "foo(a, b)", new: "\tfoo(a, b)", all: true,
		want: "\tfoo(a, b)\n\tfoo(a, b)\n", replacer: "whitespace-normalised", note: "2 replacements",
	},
	{
		name:    "crlf file",
		content: "a\r\nb\r\nc\r\n", old: "a\nb", new: "A\nB",
		want: "A\r\nB\r\nc\r\n", replacer: "exact",
	},
}

func TestEditReplacers(t *testing.T) {
	for _, tt := range replacerCases {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, fs.Options{}, false)
			p := e.file("sandbox/f.txt", tt.content)
			r := e.run("edit", map[string]any{"path": "f.txt", "old_string": tt.old, "new_string": tt.new, "replace_all": tt.all})
			mustOK(t, r)
			if !strings.Contains(r.Text, "replacer "+tt.replacer+" ") {
				t.Errorf("text does not name replacer %s:\n%s", tt.replacer, r.Text)
			}
			if tt.note != "" && !strings.Contains(r.Text, tt.note) {
				t.Errorf("text lacks %q:\n%s", tt.note, r.Text)
			}
			got, _ := os.ReadFile(p)
			if string(got) != tt.want {
				t.Errorf("file = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestEditErrors(t *testing.T) {
	tests := []struct {
		name, content string
		args          map[string]any
		want          string
	}{
		{"ambiguous exact", "x = 1\nx = 1\n",
			map[string]any{"old_string": "x = 1", "new_string": "x = 2"},
			"f.txt: old_string matches 2 places (replacer multi-occurrence; lines 1, 2); add more context to make it unique, or set replace_all"},
		{"ambiguous fuzzy", "\tfoo()\n  foo()\n",
			map[string]any{"old_string": "foo() ", "new_string": "bar()"},
			"old_string matches 2 places (replacer line-trimmed; lines 1, 2)"},
		{"not found, with the closest line", "alpha\nbeta\ngamma\n",
			map[string]any{"old_string": "betta", "new_string": "b"},
			`old_string not found (the most similar line is 2: "beta"); read the file again`},
		{"dissimilar single block-anchor candidate", "func f() {\n\tcompletely()\n\tdifferent()\n}\n",
			// opencode accepts this block: its anchors match and a lone
			// candidate needed no similarity at all.
			map[string]any{"old_string": "func f() {\n\tfoo := 1\n\tbar := 2\n}", "new_string": "x"},
			"old_string not found"},
		{"two lines cannot anchor a block", "a\nsomething\nelse\nb\n",
			map[string]any{"old_string": "a\nb\n", "new_string": "x"},
			"old_string not found"},
		{"identical strings", "a\n",
			map[string]any{"old_string": "a", "new_string": "a"},
			"old_string and new_string are identical"},
		{"empty old_string on a file with content", "a\n",
			map[string]any{"old_string": "", "new_string": "b"},
			"old_string is empty but f.txt already has content"},
		{"binary", "a\x00b",
			map[string]any{"old_string": "a", "new_string": "b"},
			"f.txt is a binary file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, fs.Options{}, false)
			p := e.file("sandbox/f.txt", tt.content)
			tt.args["path"] = "f.txt"
			mustFail(t, e.run("edit", tt.args), tt.want)
			if got, _ := os.ReadFile(p); string(got) != tt.content {
				t.Errorf("a failed edit changed the file: %q", got)
			}
		})
	}
}

func TestEditCreatesAndRefusesMissing(t *testing.T) {
	e := newEnv(t, fs.Options{}, false)
	mustFail(t, e.run("edit", map[string]any{"path": "new.txt", "old_string": "a", "new_string": "b"}),
		"new.txt does not exist; create it with write")
	r := e.run("edit", map[string]any{"path": "sub/new.txt", "old_string": "", "new_string": "hello\nworld\n"})
	mustOK(t, r)
	if r.Text != "Created sub/new.txt with 2 lines." {
		t.Errorf("text = %q", r.Text)
	}
	if got, _ := os.ReadFile(e.in("sub/new.txt")); string(got) != "hello\nworld\n" {
		t.Errorf("content = %q", got)
	}
}

func TestEditDiff(t *testing.T) {
	e := newEnv(t, fs.Options{}, false)
	e.file("sandbox/f.go", "package p\n\nfunc f() int {\n\treturn 1\n}\n\nfunc g() {}\n")
	r := e.run("edit", map[string]any{"path": "f.go", "old_string": "\treturn 1\n", "new_string": "\tx := 1\n\treturn x\n"})
	mustOK(t, r)
	want := "Edited f.go: 1 replacement, replacer exact (+2 -1 lines).\n@@ -4,1 +4,2 @@\n-\treturn 1\n+\tx := 1\n+\treturn x"
	if r.Text != want {
		t.Errorf("text =\n%s\nwant\n%s", r.Text, want)
	}
	// Deleting whole lines shows no + lines.
	r = e.run("edit", map[string]any{"path": "f.go", "old_string": "\nfunc g() {}\n", "new_string": ""})
	mustOK(t, r)
	if !strings.Contains(r.Text, "(+0 -2 lines)") || strings.Contains(r.Text, "\n+") {
		t.Errorf("text =\n%s", r.Text)
	}
}

func TestLevenshtein(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"flaw", "lawn", 2}, {"héllo", "hello", 1}, {"y()", "zzzzz", 5},
	} {
		if got := fs.Levenshtein(c.a, c.b); got != c.want {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

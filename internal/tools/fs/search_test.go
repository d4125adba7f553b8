package fs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/tools/fs"
)

// tree lays out a sandbox with .gitignore files and modification times
// one hour apart, in the order given (the last is the newest).
func tree(e *env) {
	files := []struct{ path, content string }{
		{".gitignore", "*.log\nbuild/\n!keep.log\n"},
		{"a.go", "package a\nfunc A() {}\n"},
		{"b.go", "package b\nfunc B() {}\n"},
		{"x.log", "func inLog()\n"},
		{"keep.log", "func kept()\n"},
		{"build/d.go", "func Built() {}\n"},
		{".git/config", "func git()\n"},
		{"sub/.gitignore", "secret.go\n"},
		{"sub/secret.go", "func Secret() {}\n"},
		{"sub/y.log", "func subLog()\n"},
		{"bin.dat", "func\x00binary\n"},
		{"sub/c.go", "package sub\nfunc C() {}\nfunc C2() {}\n"},
	}
	now := time.Now()
	for i, f := range files {
		p := e.file("sandbox/"+f.path, f.content)
		mt := now.Add(time.Duration(i-len(files)) * time.Hour)
		if err := os.Chtimes(p, mt, mt); err != nil {
			e.t.Fatal(err)
		}
	}
}

func TestGlob(t *testing.T) {
	tests := []struct {
		name string
		opts fs.Options
		args map[string]any
		want string
	}{
		{"newest first, gitignore respected", fs.Options{}, map[string]any{"pattern": "*.go"},
			"sub/c.go\nb.go\na.go"},
		{"negation re-includes", fs.Options{}, map[string]any{"pattern": "**/*.log"}, "keep.log"},
		{"path pattern", fs.Options{}, map[string]any{"pattern": "sub/*"}, "sub/c.go\nsub/.gitignore"},
		{"parent .gitignore applies below", fs.Options{}, map[string]any{"pattern": "*", "path": "sub"},
			"sub/c.go\nsub/.gitignore"},
		{"braces", fs.Options{}, map[string]any{"pattern": "*.{dat,log}"}, "bin.dat\nkeep.log"},
		{"cap", fs.Options{MaxResults: 2}, map[string]any{"pattern": "**"},
			"sub/c.go\nbin.dat\n(5 more not shown; narrow the pattern or path)"},
		{"nothing", fs.Options{}, map[string]any{"pattern": "*.rs"}, `No files match "*.rs" in the sandbox.`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.opts, false)
			tree(e)
			r := e.run("glob", tt.args)
			mustOK(t, r)
			if r.Text != tt.want {
				t.Errorf("text =\n%s\nwant\n%s", r.Text, tt.want)
			}
		})
	}
}

func TestGlobErrors(t *testing.T) {
	e := newEnv(t, fs.Options{}, false)
	tree(e)
	mustFail(t, e.run("glob", map[string]any{"pattern": "[a"}), `invalid glob pattern "[a"`)
	mustFail(t, e.run("glob", map[string]any{"pattern": "../*"}), "must be relative and stay below path")
	mustFail(t, e.run("glob", map[string]any{"pattern": "/etc/*"}), "must be relative")
	mustFail(t, e.run("glob", map[string]any{"pattern": "*", "path": "a.go"}), "a.go is a file, not a directory")
	mustFail(t, e.run("glob", map[string]any{"pattern": "*", "path": "nope"}), "nope does not exist")
}

func TestGlobStopsAtMaxWalk(t *testing.T) {
	e := newEnv(t, fs.Options{MaxWalk: 3}, false)
	tree(e)
	r := e.run("glob", map[string]any{"pattern": "**"})
	mustOK(t, r)
	if !strings.Contains(r.Text, "The search stopped after visiting 3 entries") {
		t.Errorf("text = %s", r.Text)
	}
}

func TestGrep(t *testing.T) {
	long := strings.Repeat("z", 3000) + " needle"
	tests := []struct {
		name string
		opts fs.Options
		args map[string]any
		want string
	}{
		{"newest file first, ignored and binary skipped", fs.Options{}, map[string]any{"pattern": `^func \w+\(`},
			"5 matches in 4 files (newest file first):\nsub/c.go:2: func C() {}\nsub/c.go:3: func C2() {}\nkeep.log:1: func kept()\nb.go:2: func B() {}\na.go:2: func A() {}"},
		{"include", fs.Options{}, map[string]any{"pattern": "package", "include": "*.go"},
			"3 matches in 3 files (newest file first):\nsub/c.go:1: package sub\nb.go:1: package b\na.go:1: package a"},
		{"path", fs.Options{}, map[string]any{"pattern": "C", "path": "sub"},
			"2 matches in 1 file (newest file first):\nsub/c.go:2: func C() {}\nsub/c.go:3: func C2() {}"},
		{"one file", fs.Options{}, map[string]any{"pattern": "(?i)FUNC", "path": "a.go"},
			"1 match in 1 file (newest file first):\na.go:2: func A() {}"},
		{"cap", fs.Options{MaxResults: 2}, map[string]any{"pattern": "func"},
			"5 matches in 4 files (newest file first):\nsub/c.go:2: func C() {}\nsub/c.go:3: func C2() {}\n(3 more matches not shown; narrow the pattern, path or include)"},
		{"no match", fs.Options{}, map[string]any{"pattern": "nothing here"}, `No matches for "nothing here" in the sandbox.`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.opts, false)
			tree(e)
			r := e.run("grep", tt.args)
			mustOK(t, r)
			if r.Text != tt.want {
				t.Errorf("text =\n%s\nwant\n%s", r.Text, tt.want)
			}
		})
	}
	t.Run("long line cut", func(t *testing.T) {
		e := newEnv(t, fs.Options{}, false)
		e.file("sandbox/l.txt", long+"\n")
		r := e.run("grep", map[string]any{"pattern": "needle"})
		mustOK(t, r)
		if !strings.Contains(r.Text, "l.txt:1: "+strings.Repeat("z", 2000)+"… [line cut: 1007 more characters]") {
			t.Errorf("text = %.200s…", r.Text)
		}
	})
}

func TestGrepErrors(t *testing.T) {
	e := newEnv(t, fs.Options{MaxFileBytes: 10}, false)
	e.file("sandbox/big.txt", strings.Repeat("needle\n", 10))
	mustFail(t, e.run("grep", map[string]any{"pattern": "(a"}), "invalid regular expression: error parsing regexp: missing closing ): `(a` (Go RE2 syntax")
	mustFail(t, e.run("grep", map[string]any{"pattern": "a", "include": "[x"}), "invalid glob pattern")
	r := e.run("grep", map[string]any{"pattern": "needle"})
	mustOK(t, r)
	if !strings.Contains(r.Text, "(1 file over 10 B skipped)") {
		t.Errorf("text = %s", r.Text)
	}
}

func TestList(t *testing.T) {
	tests := []struct {
		name string
		opts fs.Options
		args map[string]any
		want string
	}{
		{"top level", fs.Options{}, map[string]any{},
			"./ (7 entries)\n.gitignore  23 B\na.go  22 B\nb.go  22 B\nbin.dat  12 B\nkeep.log  12 B\nlink -> a.go\nsub/"},
		{"depth 2", fs.Options{}, map[string]any{"path": ".", "depth": 2},
			"./ (9 entries)\n.gitignore  23 B\na.go  22 B\nb.go  22 B\nbin.dat  12 B\nkeep.log  12 B\nlink -> a.go\nsub/\n  .gitignore  10 B\n  c.go  37 B"},
		{"subdirectory", fs.Options{}, map[string]any{"path": "sub"}, "sub/ (2 entries)\n.gitignore  10 B\nc.go  37 B"},
		{"cap", fs.Options{ListMaxEntries: 2}, map[string]any{},
			"./ (7 entries)\n.gitignore  23 B\na.go  22 B\n(5 more entries not shown; list a subdirectory)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.opts, false)
			tree(e)
			if err := os.Symlink("a.go", e.in("link")); err != nil {
				t.Fatal(err)
			}
			r := e.run("list", tt.args)
			mustOK(t, r)
			if r.Text != tt.want {
				t.Errorf("text =\n%s\nwant\n%s", r.Text, tt.want)
			}
		})
	}
}

func TestListErrors(t *testing.T) {
	e := newEnv(t, fs.Options{}, false)
	e.file("sandbox/f.txt", "x")
	mustFail(t, e.run("list", map[string]any{"path": "f.txt"}), "f.txt is a file, not a directory; use read to see it")
	mustFail(t, e.run("list", map[string]any{"path": "nope"}), "nope does not exist")
	mustFail(t, e.run("list", map[string]any{"depth": 11}), "/depth")
	if r := e.run("list", map[string]any{"path": "."}); r.Text != "./ (1 entry)\nf.txt  1 B" {
		t.Errorf("text = %q", r.Text)
	}
	os.Remove(filepath.Join(e.sandbox, "f.txt"))
	if r := e.run("list", map[string]any{}); r.Text != "./ (0 entries)\n(empty directory)" {
		t.Errorf("text = %q", r.Text)
	}
}

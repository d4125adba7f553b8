package fs_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/threadbot/threadbot/internal/tools/fs"
)

func numberedFile(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestRead(t *testing.T) {
	long := strings.Repeat("x", 2500)
	// huge is longer than what a line keeps in memory.
	huge := strings.Repeat("é", 10000)
	// In split, é spans bytes 8191-8192, across the end of the sniffed head.
	split := strings.Repeat(strings.Repeat("a", 99)+"\n", 81) + strings.Repeat("a", 91) + "é and more"
	tests := []struct {
		name    string
		opts    fs.Options
		content string
		args    map[string]any
		want    []string // substrings of the text, in order
		wantNot []string
	}{
		{"numbering", fs.Options{}, "alpha\nbeta\ngamma\n", nil,
			[]string{"     1\talpha\n     2\tbeta\n     3\tgamma\n", "(End of file: 3 lines.)"}, nil},
		{"no final newline", fs.Options{}, "alpha\nbeta", nil,
			[]string{"     2\tbeta\n", "(End of file: 2 lines.)"}, nil},
		{"crlf", fs.Options{}, "alpha\r\nbeta\r\n", nil,
			[]string{"     1\talpha\n     2\tbeta\n"}, []string{"\r"}},
		{"offset and limit", fs.Options{}, numberedFile(10), map[string]any{"offset": 3, "limit": 2},
			[]string{"     3\tline 3\n     4\tline 4\n", "(Lines 3-4 of 10 shown. Use offset=5 to read more.)"},
			[]string{"line 2\n", "line 5\n"}},
		{"offset to the end", fs.Options{}, numberedFile(10), map[string]any{"offset": 9},
			[]string{"     9\tline 9\n    10\tline 10\n", "(End of file: 10 lines.)"}, nil},
		{"default limit", fs.Options{ReadMaxLines: 5}, numberedFile(10), nil,
			[]string{"     5\tline 5\n", "(Lines 1-5 of 10 shown. Use offset=6 to read more.)"}, []string{"line 6"}},
		{"limit above the maximum", fs.Options{ReadMaxLines: 5}, numberedFile(10), map[string]any{"limit": 8},
			[]string{"(Lines 1-5 of 10 shown."}, []string{"line 6"}},
		{"long line cut", fs.Options{}, "short\n" + long + "\n", nil,
			[]string{"     2\t" + strings.Repeat("x", 2000) + "… [line cut: 500 more characters]\n"}, nil},
		{"huge line cut", fs.Options{}, huge + "\nnext\n", nil,
			[]string{"     1\t" + strings.Repeat("é", 2000) + "… [line cut: 8000 more characters]\n", "     2\tnext\n"}, nil},
		{"rune split at the sniff boundary is text", fs.Options{}, split, nil,
			[]string{"é and more"}, nil},
		{"byte cap", fs.Options{}, strings.Repeat(strings.Repeat("y", 99)+"\n", 2000), nil,
			[]string{"(Output capped at 50 KB: lines 1-478 of 2000 shown. Use offset=479 to continue.)"}, nil},
		{"empty", fs.Options{}, "", nil, []string{"(f.txt is empty.)"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.opts, false)
			e.file("sandbox/f.txt", tt.content)
			args := map[string]any{"path": "f.txt"}
			for k, v := range tt.args {
				args[k] = v
			}
			r := e.run("read", args)
			mustOK(t, r)
			if r.Truncated {
				t.Errorf("the executor truncated read's output")
			}
			rest := r.Text
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("text lacks %q (in order); text ends:\n%s", w, r.Text[max(0, len(r.Text)-300):])
				}
				rest = rest[i+len(w):]
			}
			for _, w := range tt.wantNot {
				if strings.Contains(r.Text, w) {
					t.Errorf("text contains %q", w)
				}
			}
		})
	}
}

func TestReadCapFitsTheLimit(t *testing.T) {
	e := newEnv(t, fs.Options{}, false)
	e.file("sandbox/f.txt", strings.Repeat(strings.Repeat("y", 99)+"\n", 2000))
	r := e.run("read", map[string]any{"path": "f.txt"})
	mustOK(t, r)
	if len(r.Text) > 51<<10 {
		t.Errorf("output is %d bytes, want about 50 KB", len(r.Text))
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, path, content string
		args                map[string]any
		want                string
	}{
		{"nul byte", "bin.dat", "abc\x00def", nil, "bin.dat is a binary file (application/octet-stream, 7 B); read shows only text files"},
		{"invalid utf-8", "latin1.txt", "caf\xe9 au lait", nil, "latin1.txt is a binary file"},
		{"png", "img.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", nil, "(image/png, "},
		{"directory", "dir/x.txt", "x", map[string]any{"path": "dir"}, "dir is a directory; use list to see its entries"},
		{"missing with a near name", "notes.txt", "x", map[string]any{"path": "note.txt"}, "note.txt does not exist; did you mean notes.txt?"},
		{"missing", "notes.txt", "x", map[string]any{"path": "zzz/q.txt"}, "zzz/q.txt does not exist"},
		{"offset past the end", "f.txt", "a\nb\n", map[string]any{"offset": 5}, "offset 5 is past the end of f.txt, which has 2 lines"},
		{"bad offset", "f.txt", "a\n", map[string]any{"offset": 0}, "/offset"},
		{"unknown argument", "f.txt", "a\n", map[string]any{"file_path": "f.txt"}, "additional"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, fs.Options{}, false)
			e.file("sandbox/"+tt.path, tt.content)
			args := map[string]any{"path": tt.path}
			for k, v := range tt.args {
				args[k] = v
			}
			mustFail(t, e.run("read", args), tt.want)
		})
	}
}

func TestReadLargeFileUncounted(t *testing.T) {
	defer fs.SetCountLimit(10)()
	e := newEnv(t, fs.Options{ReadMaxLines: 2}, false)
	e.file("sandbox/f.txt", numberedFile(10))
	r := e.run("read", map[string]any{"path": "f.txt", "offset": 3})
	mustOK(t, r)
	want := "     3\tline 3\n     4\tline 4\n\n(Lines 3-4 shown of a 71 B file whose lines were not counted. Use offset=5 to read more.)"
	if r.Text != want {
		t.Errorf("text = %q, want %q", r.Text, want)
	}
	mustFail(t, e.run("read", map[string]any{"path": "f.txt", "offset": 30}), "offset 30 is past the end of f.txt, which has 10 lines")
}

func TestReadNotRegular(t *testing.T) {
	e := newEnv(t, fs.Options{}, true)
	mustFail(t, e.run("read", map[string]any{"path": "/dev/null"}), "/dev/null is not a regular file")
}

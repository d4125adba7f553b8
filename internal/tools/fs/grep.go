package fs

import (
	"bytes"
	"context"
	"fmt"
	iofs "io/fs"
	"os"
	"regexp"
	"strings"

	"github.com/threadbot/threadbot/internal/core/executor"
)

// grepLimit is grep's output limit in characters.
const grepLimit = 30000

func grepTool(o Options) *executor.Tool {
	return &executor.Tool{
		Name: "grep",
		Description: fmt.Sprintf("Search file contents with a regular expression (Go RE2 syntax: no lookaround or backreferences; (?i) for case-insensitive). "+
			"Prints matching lines as path:line: text, newest file first, at most %d matches; long lines are cut. "+
			"Skips binary files, what .gitignore files exclude, and .git. path may be a directory or one file; include filters file names with a glob.",
			o.MaxResults),
		Parameters: schema(map[string]any{
			"pattern": prop("string", "The regular expression to find in each line, e.g. \"func \\\\w+Handler\" or \"(?i)todo\".", "minLength", 1),
			"path":    prop("string", "The directory or file to search (default \".\", the sandbox)."),
			"include": prop("string", "Only search files matching this glob, e.g. \"*.go\" or \"*.{ts,tsx}\" (a pattern without a slash matches file names at any depth)."),
		}, "pattern"),
		Permission: executor.Permission{Execution: executor.Auto, Result: executor.Never},
		Limit:      grepLimit,
		Run: func(ctx context.Context, call executor.Call, args map[string]any) (executor.Output, error) {
			return runGrep(ctx, call, args, o)
		},
	}
}

// fileMatches is what grep found in one file.
type fileMatches struct {
	found
	lines []lineMatch
}

type lineMatch struct {
	n    int
	text string
}

func runGrep(ctx context.Context, call executor.Call, args map[string]any, o Options) (executor.Output, error) {
	pattern, include := str(args, "pattern", ""), str(args, "include", "")
	re, err := regexp.Compile(pattern)
	if err != nil {
		return executor.Output{}, fmt.Errorf("invalid regular expression: %v (Go RE2 syntax: no lookaround or backreferences)", err)
	}
	// A whole-file prefilter in multi-line mode finds every file a line
	// could match in, unless the pattern anchors at the text's ends.
	var pre *regexp.Regexp
	if !strings.Contains(pattern, `\z`) && !strings.Contains(pattern, `\A`) {
		pre, _ = regexp.Compile("(?m)" + pattern)
	}
	if include != "" {
		if err := checkGlob(include); err != nil {
			return executor.Output{}, err
		}
	}
	t, err := resolve(ctx, call, "grep", dirArg(args))
	if err != nil {
		return executor.Output{}, err
	}
	call.Progress("Searching "+t.Show+" for "+pattern, map[string]any{"path": t.Show, "pattern": pattern})
	s := &grepper{re: re, pre: pre, o: o}
	if fi, err := os.Stat(t.Path); err == nil && !fi.IsDir() {
		// One file: open it through the root of its directory.
		r, name, err := t.root(false)
		if err != nil {
			return executor.Output{}, err
		}
		defer r.Close()
		s.file(r.FS(), name, t.Show)
	} else {
		r, start, err := dirRoot(t, "give it as path without include")
		if err != nil {
			return executor.Output{}, err
		}
		defer r.Close()
		w := &walker{fsys: r.FS(), max: o.MaxWalk}
		err = w.walk(ctx, start, 0, func(e entry, _ int) error {
			if !e.d.Type().IsRegular() || include != "" && !globMatch(include, e.rel) {
				return nil
			}
			s.file(r.FS(), e.path, t.show(e.rel))
			return nil
		})
		if err != nil {
			return executor.Output{}, t.explain("grep", err)
		}
		s.stopped = w
	}
	return s.output(pattern, t), nil
}

// grepper searches files and collects matches.
type grepper struct {
	re, pre *regexp.Regexp
	o       Options
	files   []fileMatches
	total   int
	large   int
	stopped *walker
}

// file searches one file; it skips files it cannot read, binary files and
// files over MaxFileBytes (counted).
func (s *grepper) file(fsys iofs.FS, name, show string) {
	info, err := iofs.Stat(fsys, name)
	if err != nil || !info.Mode().IsRegular() {
		return
	}
	if info.Size() > s.o.MaxFileBytes {
		s.large++
		return
	}
	data, err := iofs.ReadFile(fsys, name)
	if err != nil {
		return
	}
	if bin, _ := binaryKind(data, true); bin {
		return
	}
	if s.pre != nil && !s.pre.Match(data) {
		return
	}
	fm := fileMatches{found: found{show, info.ModTime()}}
	n := 0
	for len(data) > 0 {
		n++
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if s.re.Match(line) {
			fm.lines = append(fm.lines, lineMatch{n, cutLine(string(line), s.o.ReadMaxLineChars, 0)})
		}
	}
	if len(fm.lines) > 0 {
		s.files = append(s.files, fm)
		s.total += len(fm.lines)
	}
}

func (s *grepper) output(pattern string, t target) executor.Output {
	order := make([]found, len(s.files))
	byShow := map[string]fileMatches{}
	for i, f := range s.files {
		order[i] = f.found
		byShow[f.show] = f
	}
	sortNewest(order)
	var b strings.Builder
	if s.total == 0 {
		fmt.Fprintf(&b, "No matches for %q in %s.\n", pattern, t.where())
	} else {
		fmt.Fprintf(&b, "%s in %s (newest file first):\n", plural(s.total, "match"), plural(len(s.files), "file"))
	}
	shown := 0
	for _, f := range order {
		for _, l := range byShow[f.show].lines {
			if shown == s.o.MaxResults {
				break
			}
			fmt.Fprintf(&b, "%s:%d: %s\n", f.show, l.n, l.text)
			shown++
		}
	}
	if shown < s.total {
		fmt.Fprintf(&b, "(%d more matches not shown; narrow the pattern, path or include)\n", s.total-shown)
	}
	if s.large > 0 {
		fmt.Fprintf(&b, "(%s over %s skipped)\n", plural(s.large, "file"), humanSize(s.o.MaxFileBytes))
	}
	if s.stopped != nil {
		stoppedNote(&b, s.stopped)
	}
	return executor.Output{
		Data:  strings.TrimRight(b.String(), "\n"),
		Title: fmt.Sprintf("Grep %s in %s: %s", pattern, t.Show, plural(s.total, "match")),
	}
}

package fs

import (
	"context"
	"fmt"
	iofs "io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/threadbot/threadbot/internal/core/executor"
)

func globTool(o Options) *executor.Tool {
	return &executor.Tool{
		Name: "glob",
		Description: fmt.Sprintf("Find files by name pattern, newest first (by modification time), at most %d. "+
			"Patterns use *, ?, [abc], {a,b} and ** for any number of directories. A pattern without a slash matches file names at any depth (\"*.go\"); "+
			"a pattern with a slash is matched against the path relative to path (\"cmd/**/*.go\"). Skips what .gitignore files exclude, and .git.",
			o.MaxResults),
		Parameters: schema(map[string]any{
			"pattern": prop("string", "The glob pattern, e.g. \"**/*.md\" or \"*_test.go\".", "minLength", 1),
			"path":    prop("string", "The directory to search (default \".\", the sandbox)."),
		}, "pattern"),
		Permission: executor.Permission{Execution: executor.Auto, Result: executor.Never},
		Run: func(ctx context.Context, call executor.Call, args map[string]any) (executor.Output, error) {
			return runGlob(ctx, call, args, o)
		},
	}
}

// found is a file a search found.
type found struct {
	show  string
	mtime time.Time
}

func runGlob(ctx context.Context, call executor.Call, args map[string]any, o Options) (executor.Output, error) {
	pattern := str(args, "pattern", "")
	if err := checkGlob(pattern); err != nil {
		return executor.Output{}, err
	}
	t, err := resolve(ctx, call, "glob", dirArg(args))
	if err != nil {
		return executor.Output{}, err
	}
	call.Progress("Searching "+t.Show+" for "+pattern, map[string]any{"path": t.Show, "pattern": pattern})
	r, start, err := dirRoot(t, "glob searches directories")
	if err != nil {
		return executor.Output{}, err
	}
	defer r.Close()
	w := &walker{fsys: r.FS(), max: o.MaxWalk}
	var files []found
	err = w.walk(ctx, start, 0, func(e entry, _ int) error {
		if e.d.IsDir() || !globMatch(pattern, e.rel) {
			return nil
		}
		info, err := e.d.Info()
		if err != nil {
			return nil // gone since the directory was read
		}
		files = append(files, found{t.show(e.rel), info.ModTime()})
		return nil
	})
	if err != nil {
		return executor.Output{}, t.explain("glob", err)
	}
	sortNewest(files)
	var b strings.Builder
	if len(files) == 0 {
		fmt.Fprintf(&b, "No files match %q in %s.", pattern, t.where())
	}
	for i, f := range files {
		if i == o.MaxResults {
			fmt.Fprintf(&b, "(%d more not shown; narrow the pattern or path)\n", len(files)-i)
			break
		}
		b.WriteString(f.show)
		b.WriteByte('\n')
	}
	stoppedNote(&b, w)
	return executor.Output{
		Data:  strings.TrimRight(b.String(), "\n"),
		Title: fmt.Sprintf("Glob %s in %s: %s", pattern, t.Show, plural(len(files), "file")),
	}, nil
}

// checkGlob refuses patterns that are invalid or try to leave the search
// directory.
func checkGlob(pattern string) error {
	if !doublestar.ValidatePattern(pattern) {
		return fmt.Errorf("invalid glob pattern %q", pattern)
	}
	if strings.HasPrefix(pattern, "/") || slices.Contains(strings.Split(pattern, "/"), "..") {
		return fmt.Errorf("glob pattern %q must be relative and stay below path; put the directory to search in path", pattern)
	}
	return nil
}

// globMatch matches a "/"-separated relative path: a pattern without a
// slash against its last element, any other against the whole path.
func globMatch(pattern, rel string) bool {
	target := rel
	if !strings.Contains(pattern, "/") {
		target = rel[strings.LastIndexByte(rel, '/')+1:]
	}
	ok, _ := doublestar.Match(pattern, target)
	return ok
}

// sortNewest orders files newest first, then by path.
func sortNewest(files []found) {
	slices.SortStableFunc(files, func(a, b found) int {
		if c := b.mtime.Compare(a.mtime); c != 0 {
			return c
		}
		return strings.Compare(a.show, b.show)
	})
}

// stoppedNote says when a walk stopped at its entry limit.
func stoppedNote(b *strings.Builder, w *walker) {
	if w.stopped {
		fmt.Fprintf(b, "(The search stopped after visiting %d entries; results are incomplete. Search a smaller directory.)\n", w.visited)
	}
}

// dirRoot opens the directory t for walking and returns the root and the
// directory inside it to start at. notDir ends the error for a file.
func dirRoot(t target, notDir string) (*os.Root, string, error) {
	fileErr := fmt.Errorf("%s is a file, not a directory; %s", t.Show, notDir)
	if !t.Inside {
		// An os.Root cannot be opened at a file; say so plainly.
		if fi, err := os.Stat(t.Path); err == nil && !fi.IsDir() {
			return nil, "", fileErr
		}
	}
	r, start, err := t.root(true)
	if err != nil {
		return nil, "", err
	}
	fi, err := iofs.Stat(r.FS(), start)
	if err != nil {
		r.Close()
		return nil, "", t.explain("open", err)
	}
	if !fi.IsDir() {
		r.Close()
		return nil, "", fileErr
	}
	return r, start, nil
}

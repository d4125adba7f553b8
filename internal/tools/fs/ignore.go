package fs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	iofs "io/fs"
	"path"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// maxIgnoreFile bounds how much of one .gitignore file is read.
const maxIgnoreFile = 1 << 20

// errSkipDir tells walk not to descend into a directory.
var errSkipDir = errors.New("skip this directory")

// walker visits a directory tree through an fs.FS (an os.Root's, so the walk
// cannot leave it), skipping .git and whatever the .gitignore files on the
// way exclude. Patterns are matched by go-git's gitignore package against
// paths relative to the root of the FS, so a .gitignore above the starting
// directory applies as well. Symbolic links are listed, never followed.
type walker struct {
	fsys iofs.FS
	// max is how many entries the walk visits at most; stopped is set when
	// it got there.
	max     int
	visited int
	stopped bool
}

// entry is one thing the walk found.
type entry struct {
	path string // relative to the FS root, "/"-separated
	rel  string // relative to where the walk started
	d    iofs.DirEntry
}

// walk calls fn for every entry below start (a directory relative to the FS
// root), a directory before its contents, the entries of each directory in
// name order. depth is 1 for start's own entries; maxDepth 0 means no
// limit. fn may return errSkipDir for a directory; any other error ends the
// walk and is returned, as is the context's cause when it ends.
func (w *walker) walk(ctx context.Context, start string, maxDepth int, fn func(e entry, depth int) error) error {
	var pats []gitignore.Pattern
	if start != "." {
		parts := strings.Split(start, "/")
		for i := range parts {
			pats = w.load(path.Join(parts[:i]...), pats)
		}
	}
	return w.dir(ctx, start, "", 1, maxDepth, pats, fn)
}

func (w *walker) dir(ctx context.Context, dir, rel string, depth, maxDepth int, pats []gitignore.Pattern, fn func(entry, int) error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	pats = w.load(dir, pats)
	entries, err := iofs.ReadDir(w.fsys, dir)
	if err != nil && depth == 1 {
		return err
	}
	for _, d := range entries {
		if w.visited >= w.max {
			w.stopped = true
			return nil
		}
		w.visited++
		if d.Name() == ".git" {
			continue
		}
		p := path.Join(dir, d.Name())
		isDir := d.IsDir()
		if len(pats) > 0 && gitignore.NewMatcher(pats).Match(strings.Split(p, "/"), isDir) {
			continue
		}
		e := entry{path: p, rel: path.Join(rel, d.Name()), d: d}
		switch err := fn(e, depth); {
		case errors.Is(err, errSkipDir):
			continue
		case err != nil:
			return err
		}
		if isDir && (maxDepth == 0 || depth < maxDepth) {
			if err := w.dir(ctx, p, e.rel, depth+1, maxDepth, pats, fn); err != nil {
				return err
			}
		}
		if w.stopped {
			return nil
		}
	}
	return nil
}

// load appends the patterns of dir's .gitignore, if any, to pats (without
// changing pats' backing array, which a sibling directory shares).
func (w *walker) load(dir string, pats []gitignore.Pattern) []gitignore.Pattern {
	f, err := w.fsys.Open(path.Join(dir, ".gitignore"))
	if err != nil {
		return pats
	}
	defer f.Close()
	var domain []string
	if dir != "." && dir != "" {
		domain = strings.Split(dir, "/")
	}
	pats = slices.Clip(pats)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), maxIgnoreFile)
	for sc.Scan() {
		line := string(bytes.TrimSuffix(sc.Bytes(), []byte("\r")))
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		pats = append(pats, gitignore.ParsePattern(line, domain))
	}
	return pats
}

package fs

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"

	"github.com/threadbot/threadbot/internal/core/executor"
)

// newFileMode is the mode of files write and edit create.
const newFileMode = 0o644

func writeTool(o Options) *executor.Tool {
	return &executor.Tool{
		Name: "write",
		Description: "Create a file, or replace a whole file, with content. Missing parent directories are created. " +
			"The file is replaced atomically (written to a temporary file beside it, then renamed), and an existing file keeps its permissions. " +
			"To change part of an existing file use edit instead.",
		Parameters: schema(map[string]any{
			"path":    prop("string", "The file: relative to the sandbox, or absolute (outside the sandbox needs a person's approval).", "minLength", 1),
			"content": prop("string", "The complete new content of the file."),
		}, "path", "content"),
		Permission: executor.Permission{Execution: executor.AskAlways, Result: executor.Never},
		Run: func(ctx context.Context, call executor.Call, args map[string]any) (executor.Output, error) {
			t, err := resolve(ctx, call, "write", str(args, "path", ""))
			if err != nil {
				return executor.Output{}, err
			}
			content := str(args, "content", "")
			call.Progress("Writing "+t.Show, map[string]any{"path": t.Show, "bytes": len(content)})
			created, err := writeFile(t, []byte(content))
			if err != nil {
				return executor.Output{}, err
			}
			verb := "Replaced"
			if created {
				verb = "Created"
			}
			return executor.Output{
				Data:  fmt.Sprintf("%s %s: wrote %s (%s).", verb, t.Show, plural(len(content), "byte"), plural(countLines(content), "line")),
				Title: verb + " " + t.Show,
			}, nil
		},
	}
}

// writeFile replaces t's content with data atomically: a temporary file in
// the same directory, synced, given the mode of the file it replaces, then
// renamed over it. It creates missing parent directories and reports
// whether the file is new. All of it happens through the os.Root of t.
func writeFile(t target, data []byte) (created bool, err error) {
	if !t.Inside {
		// A person approved this path; its directory may not exist yet.
		if err := os.MkdirAll(filepath.Dir(t.Path), 0o755); err != nil {
			return false, t.explain("create the directory of", err)
		}
	}
	r, name, err := t.root(false)
	if err != nil {
		return false, err
	}
	defer r.Close()
	dir := path.Dir(name)
	if dir != "." {
		if err := r.MkdirAll(dir, 0o755); err != nil {
			return false, t.explain("create the directory of", err)
		}
	}
	mode, created := iofs.FileMode(newFileMode), true
	fi, err := r.Lstat(name)
	switch {
	case err == nil && fi.IsDir():
		return false, fmt.Errorf("%s is a directory; give a file path", t.Show)
	case err == nil && !fi.Mode().IsRegular():
		return false, fmt.Errorf("%s is not a regular file", t.Show)
	case err == nil:
		mode, created = fi.Mode().Perm(), false
	case !errors.Is(err, iofs.ErrNotExist):
		return false, t.explain("write", err)
	}
	tmp := path.Join(dir, fmt.Sprintf(".%s.%016x.tmp", path.Base(name), rand.Uint64()))
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return false, t.explain("write", err)
	}
	defer func() {
		if err != nil {
			r.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err == nil {
		if err = f.Chmod(mode); err == nil {
			err = f.Sync()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, t.explain("write", err)
	}
	if err = r.Rename(tmp, name); err != nil {
		return false, t.explain("write", err)
	}
	return created, nil
}

package fs_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/tools/fs"
)

func TestWriteCreatesDirectories(t *testing.T) {
	e := newEnv(t, fs.Options{}, false)
	r := e.run("write", map[string]any{"path": "a/b/c/new.txt", "content": "one\ntwo\n"})
	mustOK(t, r)
	if want := "Created a/b/c/new.txt: wrote 8 bytes (2 lines)."; r.Text != want {
		t.Errorf("text = %q, want %q", r.Text, want)
	}
	got, err := os.ReadFile(e.in("a/b/c/new.txt"))
	if err != nil || string(got) != "one\ntwo\n" {
		t.Fatalf("content = %q, %v", got, err)
	}
	fi, _ := os.Stat(e.in("a/b/c/new.txt"))
	if fi.Mode().Perm()&0o600 != 0o600 {
		t.Errorf("mode = %v", fi.Mode())
	}
	// write asks before every call.
	if len(r.Decisions) != 1 || !r.Decisions[0].Approved {
		t.Errorf("decisions = %+v, want one approval", r.Decisions)
	}
}

func TestWriteAtomicKeepsMode(t *testing.T) {
	e := newEnv(t, fs.Options{}, false)
	p := e.file("sandbox/dir/f.sh", "old content\n")
	if err := os.Chmod(p, 0o751); err != nil {
		t.Fatal(err)
	}
	// A reader holding the old file keeps reading the old content: the
	// new content arrives by rename, not by rewriting in place.
	old, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()

	r := e.run("write", map[string]any{"path": "dir/f.sh", "content": "new"})
	mustOK(t, r)
	if want := "Replaced dir/f.sh: wrote 3 bytes (1 line)."; r.Text != want {
		t.Errorf("text = %q, want %q", r.Text, want)
	}
	if b, _ := io.ReadAll(old); string(b) != "old content\n" {
		t.Errorf("the old file was changed in place: %q", b)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("content = %q", b)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o751 {
		t.Errorf("mode = %v, want 0751", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only f.sh (no temporary files)", len(entries))
	}
}

func TestWriteErrors(t *testing.T) {
	e := newEnv(t, fs.Options{}, false)
	e.file("sandbox/dir/x", "x")
	mustFail(t, e.run("write", map[string]any{"path": "dir", "content": "x"}), "dir is a directory")
	mustFail(t, e.run("write", map[string]any{"path": "dir/x/y", "content": "x"}), "dir/x/y")
	mustFail(t, e.run("write", map[string]any{"path": "f"}), "missing property")

	e.x.SetApprover(executor.ApproverFunc(func(_ context.Context, req executor.ApprovalRequest) (executor.Decision, error) {
		return executor.Decision{Reason: "no writes"}, nil
	}))
	r := e.run("write", map[string]any{"path": "g", "content": "x"})
	if r.Status != executor.StatusExecutionRejected {
		t.Fatalf("status = %s", r.Status)
	}
	if _, err := os.Stat(e.in("g")); err == nil {
		t.Error("a rejected write wrote")
	}
}

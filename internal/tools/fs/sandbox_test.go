package fs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/threadbot/threadbot/internal/tools/fs"
)

const secret = "TOP SECRET"

// escapeSetup lays out base/outside/secret.txt, base/other/secret.txt and,
// in the sandbox, ok.txt, a directory a/, and links that lead out.
func escapeSetup(e *env) {
	e.file("outside/secret.txt", secret)
	e.file("other/secret.txt", "OTHER SECRET")
	e.file("sandbox/ok.txt", "fine")
	e.file("sandbox/a/in.txt", "in")
	links := map[string]string{
		"link":     filepath.Join(e.base, "outside", "secret.txt"),
		"dirlink":  filepath.Join(e.base, "outside"),
		"up":       "..",
		"relchain": "a/../up/outside",
		"selfroot": "/proc/self/root" + filepath.Join(e.base, "outside"),
	}
	for name, dest := range links {
		if err := os.Symlink(dest, e.in(name)); err != nil {
			e.t.Fatal(err)
		}
	}
}

func escapePaths(e *env) map[string]string {
	return map[string]string{
		"dot-dot":               "../outside/secret.txt",
		"dot-dot after a dir":   "a/../../outside/secret.txt",
		"dot-dot after missing": "missing/../../outside/secret.txt",
		"absolute":              filepath.Join(e.base, "outside", "secret.txt"),
		"symlink to a file":     "link",
		"symlinked directory":   "dirlink/secret.txt",
		"symlink to parent":     "up/outside/secret.txt",
		"chain of symlinks":     "relchain/secret.txt",
		"proc self root":        "/proc/self/root" + filepath.Join(e.base, "outside", "secret.txt"),
		"link into proc root":   "selfroot/secret.txt",
		"dot-dot inside a link": "dirlink/../outside/secret.txt",
	}
}

func TestEscapesRefused(t *testing.T) {
	e := newEnv(t, fs.Options{}, false)
	escapeSetup(e)
	for name, p := range escapePaths(e) {
		t.Run(name, func(t *testing.T) {
			before := len(e.ap.permissions())
			r := e.run("read", map[string]any{"path": p})
			mustFail(t, r, "is outside the sandbox and access was not approved (not today)")
			if strings.Contains(r.Text, secret) {
				t.Fatalf("secret leaked: %s", r.Text)
			}
			asked := e.ap.permissions()[before:]
			if len(asked) != 1 {
				t.Fatalf("asked %d times, want 1", len(asked))
			}
			want := "read: " + filepath.Join(e.base, "outside", "secret.txt") + " is outside the sandbox"
			if asked[0].Title != want {
				t.Errorf("title = %q, want %q", asked[0].Title, want)
			}
			if asked[0].Tool != "read" || asked[0].Requester != "" && asked[0].SessionID != "s" {
				t.Errorf("request = %+v", asked[0])
			}
		})
	}
}

func TestEscapesReachableWhenApproved(t *testing.T) {
	e := newEnv(t, fs.Options{}, true)
	escapeSetup(e)
	for name, p := range escapePaths(e) {
		t.Run(name, func(t *testing.T) {
			before := len(e.ap.permissions())
			r := e.run("read", map[string]any{"path": p})
			mustOK(t, r)
			if !strings.Contains(r.Text, "     1\t"+secret) {
				t.Fatalf("text = %q, want the secret", r.Text)
			}
			if n := len(e.ap.permissions()) - before; n != 1 {
				t.Fatalf("asked %d times, want 1", n)
			}
		})
	}
}

// Unicode look-alikes are ordinary characters in file names: they never
// climb out, and nobody is asked.
func TestLookAlikesStayInside(t *testing.T) {
	e := newEnv(t, fs.Options{}, true)
	escapeSetup(e)
	for _, p := range []string{
		"‥/outside/secret.txt",        // U+2025 TWO DOT LEADER
		"..／outside／secret.txt",       // U+FF0F FULLWIDTH SOLIDUS
		"．．/outside/secret.txt",       // U+FF0E FULLWIDTH FULL STOP
		"․․/outside/secret.txt",       // U+2024 ONE DOT LEADER
		"..∕outside∕secret.txt",       // U+2215 DIVISION SLASH
		".\u200b./outside/secret.txt", // ZERO WIDTH SPACE
		`..\outside\secret.txt`,
		"%2e%2e/outside/secret.txt",
	} {
		t.Run(p, func(t *testing.T) {
			r := e.run("read", map[string]any{"path": p})
			mustFail(t, r, "does not exist")
			if strings.Contains(r.Text, secret) {
				t.Fatalf("secret leaked: %s", r.Text)
			}
			if n := len(e.ap.permissions()); n != 0 {
				t.Fatalf("asked %d times, want 0", n)
			}
		})
	}
	// Written, such a name lands inside the sandbox as it is.
	mustOK(t, e.run("write", map[string]any{"path": "‥/x.txt", "content": "x"}))
	if _, err := os.Stat(e.in("‥/x.txt")); err != nil {
		t.Fatal(err)
	}
}

// Every tool checks its path.
func TestEscapesRefusedByEveryTool(t *testing.T) {
	for _, approved := range []bool{false, true} {
		e := newEnv(t, fs.Options{}, approved)
		escapeSetup(e)
		calls := []struct {
			tool string
			args map[string]any
		}{
			{"read", map[string]any{"path": "../outside/secret.txt"}},
			{"write", map[string]any{"path": "../outside/new.txt", "content": "new"}},
			{"edit", map[string]any{"path": "../outside/secret.txt", "old_string": "TOP", "new_string": "NOT"}},
			{"glob", map[string]any{"pattern": "*.txt", "path": "../outside"}},
			{"grep", map[string]any{"pattern": "SECRET", "path": "dirlink"}},
			{"list", map[string]any{"path": "up/outside"}},
		}
		for _, c := range calls {
			t.Run(c.tool+map[bool]string{false: " rejected", true: " approved"}[approved], func(t *testing.T) {
				r := e.run(c.tool, c.args)
				if !approved {
					mustFail(t, r, "is outside the sandbox and access was not approved")
					return
				}
				mustOK(t, r)
				if c.tool != "write" && c.tool != "edit" && !strings.Contains(r.Text, "secret.txt") && !strings.Contains(r.Text, secret) {
					t.Errorf("text = %q", r.Text)
				}
			})
		}
		_, err := os.Stat(filepath.Join(e.base, "outside", "new.txt"))
		if approved != (err == nil) {
			t.Errorf("approved=%v: outside/new.txt exists = %v", approved, err == nil)
		}
		got, _ := os.ReadFile(filepath.Join(e.base, "outside", "secret.txt"))
		if want := map[bool]string{false: secret, true: "NOT SECRET"}[approved]; string(got) != want {
			t.Errorf("approved=%v: secret.txt = %q, want %q", approved, got, want)
		}
	}
}

// A directory swapped for a link to the outside between the check and the
// open is refused, even by an approver that approves everything: nobody
// was asked about the new target. The next call sees the link, asks, and
// gets the file only when approved.
func TestSymlinkSwappedAfterCheck(t *testing.T) {
	e := newEnv(t, fs.Options{}, true)
	escapeSetup(e)
	e.file("sandbox/dir/ok.txt", "fine")
	e.file("outside/ok.txt", secret)
	swap := func(string) {
		if err := os.Rename(e.in("dir"), e.in("dir.old")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(e.base, "outside"), e.in("dir")); err != nil {
			t.Fatal(err)
		}
	}
	restore := fs.SetBeforeOpen(swap)
	r := e.run("read", map[string]any{"path": "dir/ok.txt"})
	restore()
	mustFail(t, r, "changed while it was being opened")
	if strings.Contains(r.Text, secret) {
		t.Fatalf("secret leaked: %s", r.Text)
	}
	if n := len(e.ap.permissions()); n != 0 {
		t.Fatalf("asked %d times, want 0", n)
	}

	r = e.run("read", map[string]any{"path": "dir/ok.txt"})
	mustOK(t, r)
	if !strings.Contains(r.Text, secret) || len(e.ap.permissions()) != 1 {
		t.Fatalf("after approval: %q, asked %d", r.Text, len(e.ap.permissions()))
	}
}

func TestSymlinkSwappedBeforeWrite(t *testing.T) {
	e := newEnv(t, fs.Options{}, true)
	escapeSetup(e)
	e.file("sandbox/dir/keep.txt", "k")
	restore := fs.SetBeforeOpen(func(string) {
		os.Rename(e.in("dir"), e.in("dir.old"))
		os.Symlink(filepath.Join(e.base, "outside"), e.in("dir"))
	})
	r := e.run("write", map[string]any{"path": "dir/new.txt", "content": "planted"})
	restore()
	mustFail(t, r, "changed while it was being opened")
	if _, err := os.Stat(filepath.Join(e.base, "outside", "new.txt")); err == nil {
		t.Fatal("write created a file outside the sandbox")
	}
}

// An approved outside directory swapped for another one before the open is
// refused too.
func TestApprovedPathSwapped(t *testing.T) {
	e := newEnv(t, fs.Options{}, true)
	escapeSetup(e)
	outside := filepath.Join(e.base, "outside")
	restore := fs.SetBeforeOpen(func(string) {
		os.Rename(outside, outside+".old")
		os.Symlink(filepath.Join(e.base, "other"), outside)
	})
	r := e.run("read", map[string]any{"path": filepath.Join(outside, "secret.txt")})
	restore()
	mustFail(t, r, "changed while it was being opened")
	if strings.Contains(r.Text, "OTHER") {
		t.Fatalf("read the swapped-in file: %s", r.Text)
	}
}

func TestSandboxCreatedAndGuarded(t *testing.T) {
	e := newEnv(t, fs.Options{}, true)
	if _, err := os.Stat(e.sandbox); err == nil {
		t.Fatal("sandbox exists before first use")
	}
	mustOK(t, e.run("list", map[string]any{}))
	fi, err := os.Stat(e.sandbox)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("sandbox: %v, mode %v", err, fi.Mode())
	}
	// A session that replaces its sandbox with a link to / gains nothing.
	os.Remove(e.sandbox)
	if err := os.Symlink("/", e.sandbox); err != nil {
		t.Fatal(err)
	}
	mustFail(t, e.run("read", map[string]any{"path": "etc/hostname"}), "not a plain directory")
}

func TestApprovalTitleShowsLookAlikes(t *testing.T) {
	e := newEnv(t, fs.Options{}, false)
	dir := filepath.Join(e.base, "x／y")
	e.file("x／y/f.txt", "f")
	e.run("read", map[string]any{"path": filepath.Join(dir, "f.txt")})
	asked := e.ap.permissions()
	if len(asked) != 1 || !strings.Contains(asked[0].Title, `x\uFF0Fy`) {
		t.Fatalf("asked = %+v", asked)
	}
}

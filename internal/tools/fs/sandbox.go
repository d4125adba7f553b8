package fs

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unicode"

	"github.com/threadbot/threadbot/internal/core/executor"
)

// How a path is kept inside the sandbox.
//
// Check: resolve first, then compare. A path is made absolute (relative
// paths start at the sandbox), then resolvePath walks it one component at a
// time with os.Lstat, following every symbolic link (including the /proc
// magic links such as /proc/self/root, whose targets read as ordinary
// paths) and applying ".." to what has been resolved so far, never to the
// text as written. Components that do not exist yet are kept as written.
// Only the result is compared with the (equally resolved) sandbox. Paths are
// never normalised beyond that: a FULLWIDTH SOLIDUS or a TWO DOT LEADER is
// an ordinary character in a file name, so "‥／etc" names a file in the
// sandbox and cannot climb out of it.
//
// Use: open through an os.Root. Inside targets are opened as the resolved
// path relative to an os.Root of the sandbox. os.Root resolves each
// component with openat and O_NOFOLLOW and refuses any symbolic link that
// would leave the root, so a directory or link swapped in between the check
// and the open cannot carry the open outside, whatever the kernel offers;
// that is why it is used rather than openat2(RESOLVE_BENEATH), which needs
// Linux 5.6 and a fallback. Outside targets (approved by a person) are
// opened through an os.Root of their directory, and that directory is
// verified after opening: the kernel's own name for the open descriptor
// (/proc/self/fd/N) must be the approved path, or, without /proc, the path
// must still resolve to itself and name the same directory (os.SameFile).
//
// The sandbox itself must be a plain directory, not a symbolic link, so a
// session that replaces its own sandbox with a link to / gains nothing.

// maxLinks bounds the symbolic links followed while resolving one path, as
// the kernel's ELOOP limit does.
const maxLinks = 40

// beforeOpen, when a test sets it, runs between the check of a path and its
// use, to simulate a symbolic link swapped in during that window.
var beforeOpen func(t target)

// target is a path resolved and checked for one operation.
type target struct {
	// Path is the absolute path with every ".." and symbolic link resolved.
	Path string
	// Show is how output names the path: relative to the sandbox with "/"
	// separators when inside it ("." for the sandbox itself), else Path.
	Show string
	// Inside reports whether Path is inside the sandbox.
	Inside bool
	// sandbox is the resolved sandbox directory.
	sandbox string
}

// resolve turns the path argument p into a checked target for op (a tool
// name, used in the approval title). A relative path starts at the sandbox;
// an absolute one is taken as is. A target outside the sandbox needs a
// person's approval; without it resolve returns an error wrapping
// ErrNotApproved.
func resolve(ctx context.Context, call executor.Call, op, p string) (target, error) {
	sb, err := sandboxDir(call.Sandbox)
	if err != nil {
		return target{}, err
	}
	if p == "" {
		return target{}, errors.New("path is empty; give a file path relative to the sandbox")
	}
	if strings.ContainsRune(p, 0) {
		return target{}, errors.New("path contains a NUL byte")
	}
	abs := p
	if !filepath.IsAbs(p) {
		abs = sb + string(filepath.Separator) + p
	}
	real, err := resolvePath(abs)
	if err != nil {
		return target{}, fmt.Errorf("resolve %s: %v", p, bareErr(err))
	}
	t := target{Path: real, sandbox: sb}
	if rel, ok := within(sb, real); ok {
		t.Inside, t.Show = true, rel
		return t, nil
	}
	t.Show = real
	title := fmt.Sprintf("%s: %s is outside the sandbox", op, humanPath(real))
	detail := fmt.Sprintf("The %s tool was asked for %s, which resolves to %s, outside this session's sandbox %s.",
		op, humanPath(p), humanPath(real), sb)
	d, err := call.Ask(ctx, title, detail)
	if err != nil || !d.Approved {
		reason := d.Reason
		if err != nil {
			reason = err.Error()
		}
		if reason != "" {
			reason = " (" + reason + ")"
		}
		return target{}, fmt.Errorf("%s %w%s; work inside the sandbox with relative paths", p, ErrNotApproved, reason)
	}
	return t, nil
}

// sandboxDir creates the sandbox on first use (mode 0700) and returns its
// resolved path. The sandbox's own last component must be a plain
// directory.
func sandboxDir(dir string) (string, error) {
	if dir == "" {
		return "", ErrNoSandbox
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("sandbox %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return "", fmt.Errorf("create sandbox: %w", err)
	}
	parent, err := resolvePath(filepath.Dir(abs))
	if err != nil {
		return "", fmt.Errorf("resolve sandbox: %w", err)
	}
	real := filepath.Join(parent, filepath.Base(abs))
	fi, err := os.Lstat(real)
	if err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("the sandbox %s is not a plain directory (it may have been replaced by a symbolic link); file tools refuse to use it", real)
	}
	return real, nil
}

// resolvePath returns the absolute path p with every symbolic link and ".."
// resolved, component by component, as the kernel would walk it.
// Components that do not exist are kept as written; a ".." after them
// removes them again, and resolution resumes once the path is back on
// existing ground.
func resolvePath(p string) (string, error) {
	sep := string(filepath.Separator)
	todo := strings.Split(p, sep)
	done := sep
	missing := 0 // trailing components of done that do not exist
	links := 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done)
			if missing > 0 {
				missing--
			}
			continue
		}
		next := filepath.Join(done, c)
		if missing > 0 {
			done, missing = next, missing+1
			continue
		}
		fi, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, iofs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				done, missing = next, 1
				continue
			}
			return "", err
		}
		if fi.Mode()&iofs.ModeSymlink == 0 {
			done = next
			continue
		}
		if links++; links > maxLinks {
			return "", errors.New("too many levels of symbolic links")
		}
		dest, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(dest) {
			done = sep
		}
		todo = append(strings.Split(dest, sep), todo...)
	}
	return done, nil
}

// within reports whether p is sb or below it, and returns p relative to sb
// with "/" separators.
func within(sb, p string) (string, bool) {
	rel, err := filepath.Rel(sb, p)
	if err != nil || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// show names a path found below t (rel is relative to t, "/"-separated)
// the way output does.
func (t target) show(rel string) string {
	if rel == "" || rel == "." {
		return t.Show
	}
	if t.Inside {
		if t.Show == "." {
			return rel
		}
		return t.Show + "/" + rel
	}
	return filepath.Join(t.Path, filepath.FromSlash(rel))
}

// where names t in a sentence.
func (t target) where() string {
	if t.Inside && t.Show == "." {
		return "the sandbox"
	}
	return t.Show
}

// root opens an os.Root through which t is used and returns the name of t
// inside it. Inside targets get a root of the sandbox; outside targets a
// root of their parent directory, or, with dir set, of t itself (the name
// is then "."). The caller closes the root.
func (t target) root(dir bool) (*os.Root, string, error) {
	if beforeOpen != nil {
		beforeOpen(t)
	}
	d, name := t.sandbox, t.Show
	if !t.Inside {
		d, name = t.Path, "."
		if !dir {
			d, name = filepath.Dir(t.Path), filepath.Base(t.Path)
		}
	}
	r, err := os.OpenRoot(d)
	if err != nil {
		return nil, "", t.explain("open", err)
	}
	if err := verifyRoot(r, d); err != nil {
		r.Close()
		return nil, "", fmt.Errorf("%s: %w", t.Show, err)
	}
	return r, name, nil
}

// verifyRoot checks that r is the directory want names now. The kernel's
// name for the open descriptor is authoritative; without /proc the path
// must still resolve to itself and be the same directory as r.
func verifyRoot(r *os.Root, want string) error {
	f, err := r.Open(".")
	if err != nil {
		return err
	}
	defer f.Close()
	if got, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd()))); err == nil {
		if got != want {
			return ErrChanged
		}
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	now, err := resolvePath(want)
	if err != nil || now != want {
		return ErrChanged
	}
	wi, err := os.Stat(want)
	if err != nil || !os.SameFile(fi, wi) {
		return ErrChanged
	}
	return nil
}

// explain turns an error from using t into a message the model can act on.
// When an inside target now resolves outside the sandbox, a link was
// swapped in after the check: the error wraps ErrChanged.
func (t target) explain(op string, err error) error {
	if t.Inside {
		if now, e := resolvePath(t.Path); e == nil {
			if _, ok := within(t.sandbox, now); !ok {
				return fmt.Errorf("%s %w: it now leads outside the sandbox", t.Show, ErrChanged)
			}
		}
	}
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		return fmt.Errorf("%s does not exist", t.Show)
	case errors.Is(err, iofs.ErrPermission):
		return fmt.Errorf("%s %s: permission denied", op, t.Show)
	}
	return fmt.Errorf("%s %s: %v", op, t.Show, bareErr(err))
}

// bareErr drops the path an *os.PathError repeats, since messages name the
// path the model gave.
func bareErr(err error) error {
	var pe *iofs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// humanPath shows a path to a person deciding about it: characters that
// look like "/", "\" or "." and invisible format characters are written as
// \u escapes, so "‥／etc" cannot pass for "../etc".
func humanPath(p string) string {
	var b strings.Builder
	for _, r := range p {
		if confusable(r) {
			fmt.Fprintf(&b, `\u%04X`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func confusable(r rune) bool {
	switch r {
	case '\u2024', '\u2025', '\u2026', // one and two dot leaders, ellipsis
		'\uFF0E', '\uFE52', '\u3002', // fullwidth, small and ideographic full stops
		'\uFF0F', '\u2215', '\u2044', '\u29F8', '\u2571', // solidus look-alikes
		'\uFF3C', '\u2216', '\u29F9', '\uFE68': // reverse solidus look-alikes
		return true
	}
	return unicode.Is(unicode.Cf, r) || !unicode.IsGraphic(r)
}

package fs_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/tools/fs"
)

// approver approves every execution request and approves or rejects
// permission requests (paths outside the sandbox) as outside says,
// recording them.
type approver struct {
	outside bool
	mu      sync.Mutex
	asked   []executor.ApprovalRequest
}

func (a *approver) Approve(_ context.Context, req executor.ApprovalRequest) (executor.Decision, error) {
	if req.Kind != executor.KindPermission {
		return executor.Decision{Approved: true}, nil
	}
	a.mu.Lock()
	a.asked = append(a.asked, req)
	a.mu.Unlock()
	if a.outside {
		return executor.Decision{Approved: true, By: "U1"}, nil
	}
	return executor.Decision{Reason: "not today", By: "U1"}, nil
}

func (a *approver) permissions() []executor.ApprovalRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]executor.ApprovalRequest(nil), a.asked...)
}

// env is an executor with the fs group over a sandbox in a temporary
// directory.
type env struct {
	t       testing.TB
	x       *executor.Executor
	ap      *approver
	base    string // the temporary directory holding the sandbox
	sandbox string
}

func newEnv(t testing.TB, opts fs.Options, approveOutside bool) *env {
	t.Helper()
	base := t.TempDir()
	// Resolve the temporary directory itself (it may sit under a link).
	base, err := filepath.EvalSymlinks(base)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, ap: &approver{outside: approveOutside}, base: base, sandbox: filepath.Join(base, "sandbox")}
	lg := slog.New(slog.NewTextHandler(testWriter{t}, nil))
	e.x = executor.New(lg, executor.Options{SessionID: "s", Sandbox: e.sandbox, Approver: e.ap})
	if err := e.x.Register(fs.Group(opts)); err != nil {
		t.Fatal(err)
	}
	if err := e.x.SetGroupEnabled("fs", true); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *env) run(tool string, args map[string]any) executor.Result {
	e.t.Helper()
	return e.x.Execute(context.Background(), tool, args, executor.CallOptions{CallID: "c1"})
}

// file writes a file below base (creating directories) and returns its
// path.
func (e *env) file(rel, content string) string {
	e.t.Helper()
	p := filepath.Join(e.base, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// in returns the path of rel inside the sandbox.
func (e *env) in(rel string) string { return filepath.Join(e.sandbox, rel) }

func mustOK(t *testing.T, r executor.Result) {
	t.Helper()
	if r.Status != executor.StatusSuccess {
		t.Fatalf("status = %s, want SUCCESS; text:\n%s", r.Status, r.Text)
	}
}

func mustFail(t *testing.T, r executor.Result, want string) {
	t.Helper()
	if r.Status != executor.StatusError {
		t.Fatalf("status = %s, want ERROR; text:\n%s", r.Status, r.Text)
	}
	if !strings.Contains(r.Text, want) {
		t.Fatalf("error text does not contain %q:\n%s", want, r.Text)
	}
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

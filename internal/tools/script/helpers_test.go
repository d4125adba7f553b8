package script

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/threadbot/threadbot/internal/core/executor"
)

// recorder is an Approver that approves everything and records what it was
// asked.
type recorder struct {
	mu   sync.Mutex
	reqs []executor.ApprovalRequest
}

func (r *recorder) Approve(_ context.Context, req executor.ApprovalRequest) (executor.Decision, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	return executor.Decision{Approved: true, By: "U1"}, nil
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs)
}

// logRecorder is a slog handler that keeps records and echoes them to t.Log.
type logRecorder struct {
	t       testing.TB
	mu      sync.Mutex
	records []slog.Record
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *logRecorder) WithGroup(string) slog.Handler            { return h }
func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	h.records = append(h.records, r)
	h.mu.Unlock()
	var b strings.Builder
	b.WriteString(r.Level.String() + " " + r.Message)
	r.Attrs(func(a slog.Attr) bool { b.WriteString(" " + a.String()); return true })
	h.t.Log(b.String())
	return nil
}

// attr returns the value of attribute key of the first record with msg.
func (h *logRecorder) attrs(msg, key string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, r := range h.records {
		if r.Message != msg {
			continue
		}
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == key {
				out = append(out, a.Value.String())
			}
			return true
		})
	}
	return out
}

func newLogger(t testing.TB) (*slog.Logger, *logRecorder) {
	h := &logRecorder{t: t}
	return slog.New(h), h
}

// newExec returns an executor with groups registered and enabled, its
// sandbox directory (not created yet) and its approver.
func newExec(t *testing.T, groups ...*executor.Group) (*executor.Executor, string, *recorder) {
	t.Helper()
	sandbox := filepath.Join(t.TempDir(), "session")
	rec := &recorder{}
	x := executor.New(nil, executor.Options{SessionID: "s", Sandbox: sandbox, Approver: rec})
	for _, g := range groups {
		if err := x.Register(g); err != nil {
			t.Fatalf("Register(%s): %v", g.Name, err)
		}
		if err := x.SetGroupEnabled(g.Name, true); err != nil {
			t.Fatal(err)
		}
	}
	return x, sandbox, rec
}

// load loads dir and fails the test on any error.
func load(t *testing.T, dir string, opts Options) []*executor.Group {
	t.Helper()
	lg, _ := newLogger(t)
	groups, errs := Load(lg, dir, opts)
	for _, err := range errs {
		t.Errorf("Load: %v", err)
	}
	return groups
}

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skipf("python3 is not installed: %v", err)
	}
}

// write creates the files (name -> content) in dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func call(t *testing.T, x *executor.Executor, tool string, args map[string]any) executor.Result {
	t.Helper()
	return x.Execute(context.Background(), tool, args, executor.CallOptions{CallID: "c-" + tool})
}

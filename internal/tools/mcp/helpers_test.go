package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/threadbot/threadbot/internal/core/executor"
)

// echoBin is the echoserver test program, built once by TestMain.
var echoBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "threadbot-mcp-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	echoBin = filepath.Join(dir, "echoserver")
	build := exec.Command("go", "build", "-o", echoBin, "./testdata/echoserver")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build echoserver: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testLogger routes logs to t.Log until the test ends; goroutines that log
// later (a server's stderr) are dropped instead of failing the test.
func testLogger(t *testing.T) (*slog.Logger, *logBuffer) {
	t.Helper()
	w := &logBuffer{t: t}
	t.Cleanup(func() {
		w.mu.Lock()
		w.done = true
		w.mu.Unlock()
	})
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})), w
}

// logBuffer keeps every log line so tests can check what was logged.
type logBuffer struct {
	t    *testing.T
	mu   sync.Mutex
	done bool
	all  strings.Builder
}

func (w *logBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.all.Write(p)
	if !w.done {
		w.t.Log(strings.TrimSuffix(string(p), "\n"))
	}
	return len(p), nil
}

func (w *logBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.all.String()
}

// approvals counts the approval requests of an executor that approves all.
type approvals struct {
	mu   sync.Mutex
	reqs []executor.ApprovalRequest
}

func (a *approvals) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.reqs)
}

// newExecutor returns an executor that approves everything, with the
// groups registered and enabled.
func newExecutor(t *testing.T, groups ...*executor.Group) (*executor.Executor, *approvals) {
	t.Helper()
	a := &approvals{}
	x := executor.New(nil, executor.Options{SessionID: "s", Approver: executor.ApproverFunc(
		func(_ context.Context, req executor.ApprovalRequest) (executor.Decision, error) {
			a.mu.Lock()
			a.reqs = append(a.reqs, req)
			a.mu.Unlock()
			return executor.Decision{Approved: true}, nil
		})})
	for _, g := range groups {
		if err := x.Register(g); err != nil {
			t.Fatalf("Register(%s): %v", g.Name, err)
		}
		if err := x.SetGroupEnabled(g.Name, true); err != nil {
			t.Fatalf("SetGroupEnabled(%s): %v", g.Name, err)
		}
	}
	return x, a
}

// connectAll connects the servers and closes them when the test ends.
func connectAll(t *testing.T, servers ...Server) ([]*executor.Group, *Clients, []error) {
	t.Helper()
	lg, _ := testLogger(t)
	groups, clients, errs := Connect(t.Context(), lg, servers)
	t.Cleanup(func() {
		if err := clients.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return groups, clients, errs
}

func toolNames(g *executor.Group) []string {
	var out []string
	for _, t := range g.Tools {
		out = append(out, t.Name)
	}
	return out
}

func execute(t *testing.T, x *executor.Executor, tool string, args map[string]any) executor.Result {
	t.Helper()
	return x.Execute(t.Context(), tool, args, executor.CallOptions{CallID: "c1"})
}

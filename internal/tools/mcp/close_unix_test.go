//go:build unix

package mcp

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/core/executor"
)

func TestCloseKillsStdioServer(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"polite", nil},
		// A stubborn server ignores stdin EOF and SIGTERM: only a kill stops it.
		{"stubborn", []string{"-stubborn"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lg, _ := testLogger(t)
			groups, clients, errs := Connect(t.Context(), lg, []Server{{
				Name: "echoserver", Command: append([]string{echoBin}, tt.args...),
				Policy: executor.Permission{Execution: executor.Auto},
			}})
			if len(errs) > 0 {
				t.Fatalf("errs = %v", errs)
			}
			clients.grace = 200 * time.Millisecond
			x, _ := newExecutor(t, groups...)
			r := execute(t, x, "echoserver_pid", nil)
			pid, err := strconv.Atoi(r.Text)
			if err != nil {
				t.Fatalf("pid: %s %q", r.Status, r.Text)
			}
			if err := syscall.Kill(pid, 0); err != nil {
				t.Fatalf("server %d not running before Close: %v", pid, err)
			}

			start := time.Now()
			if err := clients.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("Close took %s", d)
			}
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("after Close, signalling %d gives %v, want ESRCH (process gone)", pid, err)
			}
			if err := clients.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}

			r = execute(t, x, "echoserver_echo", map[string]any{"text": "hi"})
			if r.Status != executor.StatusError || !strings.Contains(r.Text, "shut down") {
				t.Errorf("call after Close: %s %q, want ERROR saying the server was shut down", r.Status, r.Text)
			}
		})
	}
}

func TestFailedRestartBacksOff(t *testing.T) {
	// The wrapper runs the server the first time only; later starts fail.
	flag := filepath.Join(t.TempDir(), "started")
	script := `if [ -e "$FLAG" ]; then echo "refusing to start twice" >&2; exit 1; fi; touch "$FLAG"; exec "$BIN"`
	groups, _, errs := connectAll(t, Server{
		Name:    "echoserver",
		Command: []string{"/bin/sh", "-c", script},
		Env:     map[string]string{"FLAG": flag, "BIN": echoBin},
		Policy:  executor.Permission{Execution: executor.Auto},
	})
	if len(errs) > 0 {
		t.Fatalf("errs = %v", errs)
	}
	x, _ := newExecutor(t, groups...)
	execute(t, x, "echoserver_crash", nil)
	r := execute(t, x, "echoserver_echo", map[string]any{"text": "hi"})
	if r.Status != executor.StatusError || !strings.Contains(r.Text, "could not be restarted") || !strings.Contains(r.Text, "refusing to start twice") {
		t.Fatalf("after a crash with a failing restart: got %s %q", r.Status, r.Text)
	}
	start := time.Now()
	r = execute(t, x, "echoserver_echo", map[string]any{"text": "hi"})
	if r.Status != executor.StatusError || !strings.Contains(r.Text, "could not be restarted") {
		t.Errorf("second call: got %s %q", r.Status, r.Text)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("second call took %s; it should fail fast during the back-off", d)
	}
}

package procgroup

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gone polls (bounded) until pid no longer exists or is a zombie.
func gone(t *testing.T, pid int) bool {
	t.Helper()
	for i := 0; i < 500; i++ {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(b), ") Z ") {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

func childPID(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func TestBackgroundChildKilledWhenLeaderExits(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	var out bytes.Buffer
	cmd := exec.Command("bash", "-c", "sleep 1000 & echo $! > "+pidFile+"; echo out; echo err >&2")
	if err := Run(context.Background(), cmd, nil, &out, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "out") || !strings.Contains(got, "err") {
		t.Errorf("output = %q, want both streams", got)
	}
	if pid := childPID(t, pidFile); !gone(t, pid) {
		t.Errorf("background child %d outlived the command", pid)
	}
}

func TestContextEndKillsGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("bash", "-c", "sleep 1000 & echo $! > "+pidFile+"; echo ready; wait")
	done := make(chan error, 1)
	go func() { done <- Run(ctx, cmd, nil, &stdout, &stderr) }()
	for i := 0; i < 500; i++ {
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err == nil {
		t.Error("a killed command reported success")
	}
	if pid := childPID(t, pidFile); !gone(t, pid) {
		t.Errorf("child %d survived cancellation", pid)
	}
}

package shell

import (
	"bytes"
	"fmt"
	"github.com/threadbot/threadbot/internal/procgroup"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/core/executor"
)

// needBwrap skips the test when bubblewrap is not installed. CI installs
// it, so there the isolation is always tested for real.
func needBwrap(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skipf("bubblewrap (bwrap) is not installed: %v", err)
	}
}

func TestBwrapWritesOnlyToSessionDir(t *testing.T) {
	needBwrap(t)
	x, sandbox, _ := newExec(t, Options{Bubblewrap: BwrapOn})
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	hostTmp := t.TempDir()
	marker := fmt.Sprintf("threadbot-bwrap-test-%d", time.Now().UnixNano())
	cmd := strings.Join([]string{
		"touch /usr/" + marker + " && echo wrote-usr",
		"touch /etc/" + marker + " && echo wrote-etc",
		"touch " + filepath.Join(cwd, marker) + " && echo wrote-cwd",
		"touch " + filepath.Join(hostTmp, marker) + " && echo wrote-host-tmp",
		"ls " + cwd + " >/dev/null 2>&1 && echo saw-cwd",
		"ls /root /home >/dev/null 2>&1 && echo saw-home",
		"touch /tmp/" + marker + " && echo wrote-private-tmp",
		"echo inside > inside.txt && echo wrote-session",
	}, "; ")
	r := bash(t, x, map[string]any{"command": cmd})
	if r.Status != executor.StatusSuccess {
		t.Fatalf("status %s text %q", r.Status, r.Text)
	}
	for _, bad := range []string{"wrote-usr", "wrote-etc", "wrote-cwd", "wrote-host-tmp", "saw-cwd", "saw-home"} {
		if strings.Contains(r.Text, bad) {
			t.Errorf("sandbox allowed %s:\n%s", bad, r.Text)
		}
	}
	for _, good := range []string{"wrote-private-tmp", "wrote-session"} {
		if !strings.Contains(r.Text, good) {
			t.Errorf("sandbox refused %s:\n%s", good, r.Text)
		}
	}
	for _, p := range []string{"/usr/" + marker, "/etc/" + marker, filepath.Join(cwd, marker), filepath.Join(hostTmp, marker), "/tmp/" + marker} {
		if _, err := os.Stat(p); err == nil {
			os.Remove(p)
			t.Errorf("%s was created on the host", p)
		}
	}
	if b, err := os.ReadFile(filepath.Join(sandbox, "inside.txt")); err != nil || string(b) != "inside\n" {
		t.Errorf("session file on the host: %q, %v", b, err)
	}
}

// dial asks the sandbox to connect to a listener of the test and reports
// whether the command said it connected and whether the listener saw it.
func dial(t *testing.T, network bool) (said, accepted bool) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan bool, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Close()
		}
		got <- err == nil
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	x, _, _ := newExec(t, Options{Bubblewrap: BwrapOn, Network: network})
	r := bash(t, x, map[string]any{"command": fmt.Sprintf("(exec 3<>/dev/tcp/127.0.0.1/%d) 2>/dev/null && echo connected || echo no-connection", port)})
	if r.Status != executor.StatusSuccess {
		t.Fatalf("status %s text %q", r.Status, r.Text)
	}
	// The command has finished: a connection it made is already queued.
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(200 * time.Millisecond))
	return strings.Contains(r.Text, "connected\n"), <-got
}

func TestBwrapNetwork(t *testing.T) {
	needBwrap(t)
	if said, accepted := dial(t, false); said || accepted {
		t.Errorf("without network: command connected = %v, listener accepted = %v; want false, false", said, accepted)
	}
	if said, accepted := dial(t, true); !said || !accepted {
		t.Errorf("with network: command connected = %v, listener accepted = %v; want true, true", said, accepted)
	}
}

// procsWith returns the host pids whose command line contains s.
func procsWith(s string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(s)) && !gone(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestBwrapTimeoutKillsSandbox(t *testing.T) {
	needBwrap(t)
	x, _, _ := newExec(t, Options{Bubblewrap: BwrapOn})
	// A sleep time no other process uses identifies the command's processes.
	secs := fmt.Sprintf("1000.%d", time.Now().UnixNano()%1e9)
	cmd := fmt.Sprintf("sleep %s & (sleep %s & wait) & setsid sleep %s & sleep %s", secs, secs, secs, secs)
	r := bash(t, x, map[string]any{"command": cmd, "timeout_ms": 1000})
	if r.Status != executor.StatusError || !strings.Contains(r.Error, "timed out") {
		t.Fatalf("status %s error %q; want a timeout", r.Status, r.Error)
	}
	for i := 0; i < 200 && len(procsWith(secs)) > 0; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if left := procsWith(secs); len(left) > 0 {
		t.Errorf("sandboxed processes still running after the timeout: %v", left)
		for _, p := range left {
			procgroup.Kill(p)
		}
	}
}

func TestBwrapArgs(t *testing.T) {
	args := strings.Join(bwrapArgs("/srv/ws/s1", []string{"/usr", "/nonexistent-path"}, false, []string{"/bin/bash", "-c", "ls"}), " ")
	for _, want := range []string{
		"--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-net",
		"--ro-bind /usr /usr", "--proc /proc", "--dev /dev", "--tmpfs /tmp",
		"--bind /srv/ws/s1 /srv/ws/s1 --chdir /srv/ws/s1 -- /bin/bash -c ls",
	} {
		if !strings.Contains(args, want) {
			t.Errorf("bwrap arguments lack %q:\n%s", want, args)
		}
	}
	if strings.Contains(args, "nonexistent") {
		t.Errorf("bwrap arguments bind a missing path:\n%s", args)
	}
	// Other sessions (the session's siblings) are hidden under a tmpfs.
	if !strings.Contains(args, "--tmpfs /srv/ws --bind /srv/ws/s1") {
		t.Errorf("bwrap arguments do not hide the other sessions:\n%s", args)
	}
	// The session directory is bound after /tmp, so a session under /tmp
	// stays visible.
	if strings.Index(args, "--tmpfs /tmp") > strings.Index(args, "--bind /srv") {
		t.Errorf("session bound before the private /tmp:\n%s", args)
	}
	if net := strings.Join(bwrapArgs("/s", nil, true, []string{"true"}), " "); strings.Contains(net, "--unshare-net") {
		t.Errorf("network on still unshares it:\n%s", net)
	}
}

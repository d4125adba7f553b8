package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/fakeopenai"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "threadbot-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "threadbot")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build threadbot: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// proc is a running threadbot console.
type proc struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	mu    sync.Mutex
	out   []string
	lines chan string
	done  chan error
}

const configYAML = `tools:
  policies:
    time: {execution: ask-always}
`

func start(t *testing.T, dir, modelURL string) *proc {
	t.Helper()
	cfg := filepath.Join(dir, "threadbot.yaml")
	if err := os.WriteFile(cfg, []byte(configYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "console")
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"THREADBOT_CONFIG=" + cfg,
		"THREADBOT_DB=" + filepath.Join(dir, "bot.db"),
		"THREADBOT_WORKSPACE_ROOT=" + filepath.Join(dir, "ws"),
		"OPENAI_BASE_URL=" + modelURL,
		"OPENAI_API_KEY=sk-test-secret-key",
		"THREADBOT_MODEL=fake-model",
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := os.Create(filepath.Join(dir, fmt.Sprint("stderr-", time.Now().UnixNano(), ".log")))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, cmd: cmd, stdin: stdin, lines: make(chan string, 1000), done: make(chan error, 1)}
	go func() {
		// Prompts end without a newline: split on "\n" and on "? [y]es…: ".
		r := bufio.NewReader(stdout)
		var cur strings.Builder
		for {
			b, err := r.ReadByte()
			if err != nil {
				if cur.Len() > 0 {
					p.add(cur.String())
				}
				close(p.lines)
				return
			}
			if b == '\n' {
				p.add(cur.String())
				cur.Reset()
				continue
			}
			cur.WriteByte(b)
			if strings.HasSuffix(cur.String(), "[reason]: ") {
				p.add(cur.String())
				cur.Reset()
			}
		}
	}()
	go func() { p.done <- cmd.Wait(); stderr.Close() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return p
}

func (p *proc) add(line string) {
	p.mu.Lock()
	p.out = append(p.out, line)
	p.mu.Unlock()
	p.lines <- line
}

func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.out, "\n")
}

// expect waits for a line matching re and returns it.
func (p *proc) expect(re string) string {
	p.t.Helper()
	rx := regexp.MustCompile(re)
	guard := time.After(60 * time.Second) // a hang guard, not a timing assertion
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("output ended before %q:\n%s", re, p.output())
			}
			if rx.MatchString(line) {
				return line
			}
		case <-guard:
			p.t.Fatalf("no line matching %q:\n%s", re, p.output())
		}
	}
}

func (p *proc) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

// quit closes stdin and waits for a clean exit.
func (p *proc) quit() {
	p.t.Helper()
	p.stdin.Close()
	select {
	case err := <-p.done:
		if err != nil {
			p.t.Fatalf("threadbot exited with %v\n%s", err, p.output())
		}
	case <-time.After(60 * time.Second):
		p.t.Fatalf("threadbot did not exit\n%s", p.output())
	}
}

// model answers like a model that asks for the time, then reports it, and
// on "what did you find" reads the cached result back.
func model(t *testing.T) *fakeopenai.Server {
	srv := fakeopenai.New(t)
	var hung atomic.Bool // the first "hang once" request hangs
	varRx := regexp.MustCompile(`result=\$VAR_REF\{\{(time_[A-Za-z0-9_]+_result)\}\}`)
	srv.SetHandler(func(r fakeopenai.Request) fakeopenai.Response {
		last := r.LastMessage()
		switch {
		case last.Role == "tool":
			return fakeopenai.Response{Content: "Tool said: " + firstLine(last.Content)}
		case strings.Contains(last.Content, "hang once") && !hung.Swap(true):
			return fakeopenai.Response{Hang: true}
		case strings.Contains(last.Content, "what time"):
			return fakeopenai.Response{ToolCalls: []fakeopenai.ToolCall{{ID: "call_t1", Name: "time", Arguments: `{"zone":"UTC"}`}}}
		case strings.Contains(last.Content, "what did you find"):
			for _, m := range r.Messages {
				if m.Role == "assistant" {
					if v := varRx.FindStringSubmatch(m.Content); v != nil {
						return fakeopenai.Response{ToolCalls: []fakeopenai.ToolCall{{ID: "call_r1", Name: "ReadVar", Arguments: fmt.Sprintf(`{"name":%q}`, v[1])}}}
					}
				}
			}
			return fakeopenai.Response{Content: "I have no history."}
		}
		return fakeopenai.Response{Content: "Hello."}
	})
	return srv
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 60 {
		s = s[:60]
	}
	return s
}

func TestConsoleEndToEnd(t *testing.T) {
	dir := t.TempDir()
	srv := model(t)
	p := start(t, dir, srv.URL())
	p.expect(`^Model: fake-model at http://127\.0\.0\.1`)
	p.send("what time is it?")
	p.expect(`^\? Approve: run .time. \{"zone":"UTC"\}`)
	p.expect(`\[reason\]: $`)
	p.send("y")
	p.expect(`✔ time approved by you`)
	p.expect(`🔧 \*\*time\*\* .* ✓ Success`)
	p.expect(`^bot> Tool said: \d{4}-\d\d-\d\dT`)
	p.expect(`✅ Done · 1 tool calls`)
	p.quit()
	if strings.Contains(p.output(), "sk-test-secret-key") {
		t.Error("the API key was printed")
	}

	// Restart on the same database: the next turn sees the compressed
	// history and reads the cached result back.
	p = start(t, dir, srv.URL())
	p.send("what did you find?")
	p.expect(`🔧 \*\*ReadVar\*\* .* ✓ Success`)
	line := p.expect(`^bot> `)
	if !strings.Contains(line, "Tool said: 20") {
		t.Errorf("answer after restart = %q, want the cached time result", line)
	}
	p.quit()
	reqs := srv.Requests()
	ctx := reqs[len(reqs)-2].Messages
	if len(ctx) != 4 || ctx[1].Content != "what time is it?" || !strings.Contains(ctx[2].Content, "<SYSTEM-CONTEXT>") || !strings.Contains(ctx[2].Content, "[Tool Execution Log]") {
		t.Errorf("context after restart: %+v", ctx)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "stderr-*.log"))
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		if strings.Contains(string(b), "sk-test-secret-key") {
			t.Errorf("%s contains the API key", l)
		}
	}
}

func TestConsoleApprovalSurvivesKill(t *testing.T) {
	dir := t.TempDir()
	srv := model(t)
	p := start(t, dir, srv.URL())
	p.send("what time is it?")
	p.expect(`\[reason\]: $`)
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done

	p = start(t, dir, srv.URL())
	p.expect(`waiting from before the restart`)
	p.expect(`\[reason\]: $`)
	p.send("y")
	p.expect(`🔧 \*\*time\*\* .* ✓ Success`)
	p.expect(`^bot> Tool said: \d{4}-\d\d-\d\dT`)
	p.expect(`✅ Done · 1 tool calls`)
	p.quit()
}

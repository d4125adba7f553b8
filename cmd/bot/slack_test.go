package main

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/adapters/slack/fakeslack"
	"github.com/threadbot/threadbot/internal/fakeopenai"
	"github.com/threadbot/threadbot/internal/storage"
)

// slackProc is a threadbot process connected to a fake Slack.
type slackProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stderr string
	done   chan error
}

// startSlack runs `threadbot` with Slack configured against fs; extra
// environment variables are appended.
func startSlack(t *testing.T, dir, modelURL string, fs *fakeslack.Server, extra ...string) *slackProc {
	t.Helper()
	cfg := filepath.Join(dir, "threadbot.yaml")
	if err := os.WriteFile(cfg, []byte(configYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary)
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"THREADBOT_CONFIG=" + cfg,
		"THREADBOT_DB=" + filepath.Join(dir, "bot.db"),
		"THREADBOT_WORKSPACE_ROOT=" + filepath.Join(dir, "ws"),
		"THREADBOT_LOG_LEVEL=debug",
		"OPENAI_BASE_URL=" + modelURL,
		"OPENAI_API_KEY=sk-test-secret-key",
		"THREADBOT_MODEL=fake-model",
		"SLACK_BOT_TOKEN=" + fs.Options().BotToken,
		"SLACK_API_URL=" + fs.APIURL(),
	}, extra...)
	stderr := filepath.Join(dir, "stderr-"+time.Now().Format("150405.000000000")+".log")
	f, err := os.Create(stderr)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr, cmd.Stdout = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &slackProc{t: t, cmd: cmd, stderr: stderr, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait(); f.Close() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return p
}

func (p *slackProc) log() string {
	b, _ := os.ReadFile(p.stderr)
	return string(b)
}

// stop sends SIGTERM and waits for a clean exit.
func (p *slackProc) stop() {
	p.t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		if err != nil {
			p.t.Fatalf("threadbot exited with %v\n%s", err, p.log())
		}
	case <-time.After(60 * time.Second):
		p.t.Fatalf("threadbot did not exit\n%s", p.log())
	}
}

// botSaid waits for a bot message in a thread containing want.
func botSaid(t *testing.T, fs *fakeslack.Server, ch, thread, want string) fakeslack.Message {
	t.Helper()
	var got fakeslack.Message
	fakeslack.Eventually(t, "a bot message containing "+want, func() bool {
		for _, m := range fs.Thread(ch, thread) {
			if m.User == fakeslack.DefaultBotUserID && strings.Contains(m.Text+string(m.Blocks), want) {
				got = m
				return true
			}
		}
		return false
	})
	return got
}

func mentionBot(fs *fakeslack.Server, ch, user, text string) string {
	text = "<@" + fakeslack.DefaultBotUserID + "> " + text
	ts := fs.AddMessage(fakeslack.Message{Channel: ch, User: user, Text: text})
	fs.Send("events_api", fs.EventCallback("", fs.AppMention(ch, user, text, ts, "")), 0)
	return ts
}

// socketFixture returns a directory for the bot, the model, a fake Slack
// with the user U1 (alice), and the app token setting for Socket Mode.
func socketFixture(t *testing.T) (dir string, srv *fakeopenai.Server, fs *fakeslack.Server, appToken string) {
	t.Helper()
	srv = model(t)
	fs = fakeslack.New(fakeslack.Options{Logf: t.Logf})
	t.Cleanup(fs.Close)
	fs.AddUser(fakeslack.User{ID: "U1", Name: "alice"})
	return t.TempDir(), srv, fs, "SLACK_APP_TOKEN=" + fs.Options().AppToken
}

// The threadbot binary in Socket Mode: a mention is answered in its thread;
// an approval waits through a kill -9, and a click on the old button after
// the restart resumes the turn. No token reaches the log.
func TestSlackSocketModeEndToEnd(t *testing.T) {
	dir, srv, fs, appToken := socketFixture(t)
	p := startSlack(t, dir, srv.URL(), fs, appToken)
	fs.WaitConnections(t, 1)
	ts := mentionBot(fs, "C1", "U1", "hello there")
	botSaid(t, fs, "C1", ts, "Hello.")

	ts2 := mentionBot(fs, "C1", "U1", "what time is it?")
	req := botSaid(t, fs, "C1", ts2, "threadbot_approve")
	id := fakeslack.ButtonValue(req.Blocks, "threadbot_approve")
	if id == "" {
		t.Fatalf("no approval id in %s", req.Blocks)
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done

	p = startSlack(t, dir, srv.URL(), fs, appToken)
	fs.WaitConnections(t, 2)
	fs.Send("interactive", fs.BlockAction("U1", "C1", req.TS, ts2, "threadbot_approve", id, ""), 0)
	defer func() {
		if t.Failed() {
			t.Log(p.log())
		}
	}()
	botSaid(t, fs, "C1", ts2, "Tool said: 20")
	botSaid(t, fs, "C1", ts2, "Approved by <@U1>")
	p.stop()

	logs, _ := filepath.Glob(filepath.Join(dir, "stderr-*.log"))
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		for _, secret := range []string{fs.Options().BotToken, fs.Options().AppToken, "sk-test-secret-key"} {
			if strings.Contains(string(b), secret) {
				t.Errorf("%s contains the secret %q", l, secret)
			}
		}
	}
}

// A kill -9 while the model is still thinking (no tool called): after the
// restart the cut-off turn's status says so and the message is answered
// again, and the message that was queued behind it (acked, so Slack will
// not send it again) is answered too.
func TestSlackCrashMidTurn(t *testing.T) {
	dir, srv, fs, appToken := socketFixture(t)
	p := startSlack(t, dir, srv.URL(), fs, appToken)
	fs.WaitConnections(t, 1)
	ts := mentionBot(fs, "C1", "U1", "please hang once")
	fakeslack.Eventually(t, "the model request in flight", func() bool { return len(srv.Requests()) == 1 })
	text := "<@" + fakeslack.DefaultBotUserID + "> and then this"
	ts2 := fs.AddMessage(fakeslack.Message{Channel: "C1", User: "U1", Text: text, ThreadTS: ts})
	fs.Send("events_api", fs.EventCallback("", fs.AppMention("C1", "U1", text, ts2, ts)), 0)
	db, err := storage.Open(t.Context(), filepath.Join(dir, "bot.db"), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fakeslack.Eventually(t, "both messages in the inbox", func() bool {
		ms, err := db.Inbox(t.Context())
		return err == nil && len(ms) == 2
	})
	db.Close()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done

	p = startSlack(t, dir, srv.URL(), fs, appToken)
	defer func() {
		if t.Failed() {
			t.Log(p.log())
		}
	}()
	botSaid(t, fs, "C1", ts, "Interrupted by a restart; answering again")
	fakeslack.Eventually(t, "two answers", func() bool {
		n := 0
		for _, m := range fs.Thread("C1", ts) {
			if m.User == fakeslack.DefaultBotUserID && m.Text == "Hello." {
				n++
			}
		}
		return n == 2
	})
	p.stop()
	var asked []string
	for _, r := range srv.Requests() {
		asked = append(asked, r.LastMessage().Content)
	}
	if len(asked) != 3 || !strings.Contains(asked[1], "hang once") || !strings.Contains(asked[2], "and then this") {
		t.Errorf("model asked %q; want the cut-off message again, then the queued one", asked)
	}
}

// A refused bot token stops the start with Slack's reason.
func TestSlackBadTokenStopsStart(t *testing.T) {
	dir := t.TempDir()
	srv := model(t)
	fs := fakeslack.New(fakeslack.Options{Logf: t.Logf})
	defer fs.Close()
	p := startSlack(t, dir, srv.URL(), fs, "SLACK_APP_TOKEN="+fs.Options().AppToken, "SLACK_BOT_TOKEN=xoxb-revoked")
	select {
	case err := <-p.done:
		if err == nil {
			t.Fatal("threadbot started with a refused token")
		}
	case <-time.After(60 * time.Second):
		t.Fatal("threadbot kept running with a refused token")
	}
	if out := p.log(); !strings.Contains(out, "auth.test") || !strings.Contains(out, "invalid_auth") {
		t.Errorf("exit message does not name the refusal:\n%s", out)
	}
}

// In HTTP mode the one HTTP server carries Slack's endpoints beside
// /healthz; a signed event is answered.
func TestSlackHTTPModeEndToEnd(t *testing.T) {
	dir := t.TempDir()
	srv := model(t)
	fs := fakeslack.New(fakeslack.Options{Logf: t.Logf})
	defer fs.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p := startSlack(t, dir, srv.URL(), fs, "SLACK_SIGNING_SECRET=shh", "THREADBOT_HTTP_ADDR="+addr)
	fakeslack.Eventually(t, "/healthz", func() bool {
		res, err := http.Get("http://" + addr + "/healthz")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	})
	text := "<@" + fakeslack.DefaultBotUserID + "> hello over http"
	ts := fs.AddMessage(fakeslack.Message{Channel: "C1", User: "U1", Text: text})
	body, _ := json.Marshal(fs.EventCallback("", fs.AppMention("C1", "U1", text, ts, "")))
	post := func(secret string) int {
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/slack/events", bytes.NewReader(body))
		for k, v := range fakeslack.Sign(secret, time.Now(), body) {
			req.Header[k] = v
		}
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := post("wrong"); code != http.StatusUnauthorized {
		t.Errorf("badly signed event: %d, want 401", code)
	}
	if code := post("shh"); code != http.StatusOK {
		t.Fatalf("signed event: %d, want 200", code)
	}
	botSaid(t, fs, "C1", ts, "Hello.")
	p.stop()
}

// threadbot reads the event journal at start: a message a crashed process
// had acknowledged but not handed over is answered.
func TestSlackJournalReplayedAtStart(t *testing.T) {
	dir, srv, fs, appToken := socketFixture(t)
	text := "<@" + fakeslack.DefaultBotUserID + "> still there?"
	ts := fs.AddMessage(fakeslack.Message{Channel: "C1", User: "U1", Text: text})
	raw, err := json.Marshal(fs.EventCallback("", fs.AppMention("C1", "U1", text, ts, "")))
	if err != nil {
		t.Fatal(err)
	}
	db, err := storage.Open(t.Context(), filepath.Join(dir, "bot.db"), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.JournalPut(t.Context(), "slack", "msg:C1:"+ts, raw); err != nil {
		t.Fatal(err)
	}
	db.Close()
	p := startSlack(t, dir, srv.URL(), fs, appToken)
	defer func() {
		if t.Failed() {
			t.Log(p.log())
		}
	}()
	botSaid(t, fs, "C1", ts, "Hello.")
	p.stop()
}

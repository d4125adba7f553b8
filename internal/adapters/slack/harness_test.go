package slack_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/adapters/openai"
	"github.com/threadbot/threadbot/internal/adapters/slack"
	"github.com/threadbot/threadbot/internal/adapters/slack/fakeslack"
	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/core/session"
	"github.com/threadbot/threadbot/internal/fakeopenai"
	"github.com/threadbot/threadbot/internal/storage"
)

// The end-to-end tests run the whole bot against fakes that speak the real
// protocols: the Slack adapter on the real slack-go client (Web API and
// Socket Mode) against fakeslack, the session runtime with real SQLite, and
// the model through the real go-openai client against fakeopenai.

const (
	bot       = fakeslack.DefaultBotUserID
	secret    = "signing-secret"
	alice     = "UALICE" // asks
	bob       = "UBOB"   // another member, not an admin
	owner     = "UOWNER" // workspace owner (users.info)
	cfgAdmin  = "UADMIN" // THREADBOT_ADMINS
	channel   = "C1"
	channel2  = "C2"
	dmChannel = "D1"
)

type envOpts struct {
	http         bool
	editInterval time.Duration
	quiet        bool // no logs (benchmarks)
	allowBots    bool
	maxFileBytes int
	drainTimeout time.Duration
	// beforeRun runs after the database and the fake Slack are made and
	// before the adapter starts (to seed what a previous process left).
	beforeRun func(e *env)
}

type env struct {
	t     testing.TB
	fs    *fakeslack.Server
	model *fakeopenai.Server
	db    *storage.SQLite
	mgr   *session.Manager
	ad    *slack.Adapter
	http  *httptest.Server // HTTP mode
	ws    string           // the sessions' sandboxes
	// stop ends the adapter's context, as a SIGTERM does; waitRun then
	// returns Run's result.
	stop    context.CancelFunc
	runDone chan error
	ranOut  bool // waitRun read runDone

	mu  sync.Mutex
	ran []string
}

// quietLog writes to t.Log until the test ends, then drops lines (a
// goroutine may still log while the test is cleaned up).
type quietLog struct {
	mu   sync.Mutex
	t    testing.TB
	done bool
}

func (w *quietLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimSpace(string(p)))
	}
	return len(p), nil
}

func newEnv(t testing.TB, o envOpts) *env {
	t.Helper()
	lw := &quietLog{t: t}
	lg := slog.New(slog.NewTextHandler(lw, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if o.quiet {
		lg = slog.New(slog.DiscardHandler)
	}
	e := &env{t: t}
	e.fs = fakeslack.New(fakeslack.Options{Logf: func(f string, a ...any) { lg.Debug("fakeslack: " + strings.TrimSpace(sprintf(f, a...))) }})
	e.fs.AddUser(fakeslack.User{ID: alice, Name: "alice"})
	e.fs.AddUser(fakeslack.User{ID: bob, Name: "bob"})
	e.fs.AddUser(fakeslack.User{ID: owner, Name: "olga", IsOwner: true, IsAdmin: true})
	e.fs.AddUser(fakeslack.User{ID: cfgAdmin, Name: "ada"})
	e.model = fakeopenai.New(t)

	dir := t.TempDir()
	db, err := storage.Open(context.Background(), filepath.Join(dir, "bot.db"), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.db = db
	model := openai.New(lg, openai.Options{BaseURL: e.model.URL(), APIKey: "sk-test", Model: "test-model", MaxRetries: -1})
	ei := o.editInterval
	if ei == 0 {
		ei = -1
	}
	e.mgr = session.New(lg, storage.ForSessions(db), model, session.Options{
		Groups:        e.groups,
		Admins:        []string{cfgAdmin},
		WorkspaceRoot: filepath.Join(dir, "ws"),
		EditInterval:  ei,
	})
	e.ws = filepath.Join(dir, "ws")
	so := slack.Options{
		BotToken: fakeslack.DefaultBotToken, APIURL: e.fs.APIURL(), AllowBots: o.allowBots,
		MaxFileBytes: o.maxFileBytes, DrainTimeout: o.drainTimeout, Journal: storage.JournalOf(db, slack.Name),
	}
	if o.http {
		so.SigningSecret = secret
	} else {
		so.AppToken = fakeslack.DefaultAppToken
	}
	if o.beforeRun != nil {
		o.beforeRun(e)
	}
	e.ad = slack.New(lg, so)
	e.mgr.AddPlatform(e.ad)
	ctx, cancel := context.WithCancel(context.Background())
	e.stop = cancel
	if err := e.ad.Connect(ctx, e.mgr); err != nil {
		t.Fatal(err)
	}
	if err := e.mgr.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	e.runDone = make(chan error, 1)
	go func() { e.runDone <- e.ad.Run(ctx) }()
	if o.http {
		e.http = httptest.NewServer(e.ad.Handler(ctx))
	} else {
		e.fs.WaitConnections(t, 1)
	}
	t.Cleanup(func() {
		if e.http != nil {
			e.http.Close()
		}
		cancel()
		if !e.ranOut {
			if err := <-e.runDone; err != nil {
				t.Errorf("Run = %v", err)
			}
		}
		sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer scancel()
		_ = e.mgr.Shutdown(sctx)
		_ = db.Close()
		for _, a := range e.fs.Acks() {
			if a.Size >= 20*1024 {
				t.Errorf("ack %s is %d bytes; Slack drops acks of 20 KB or more", a.EnvelopeID, a.Size)
			}
		}
		e.fs.Close()
		lw.mu.Lock()
		lw.done = true
		lw.mu.Unlock()
	})
	return e
}

// waitRun ends the adapter's context and returns Run's result.
func (e *env) waitRun() error {
	e.stop()
	e.ranOut = true
	return <-e.runDone
}

// groups are the tool groups of the test bot: "ops" with deploy (asks
// every time) and wait (runs until stopped), and "web" with fetch (auto).
func (e *env) groups() []*executor.Group {
	return []*executor.Group{
		{Name: "ops", Tools: []*executor.Tool{
			{
				Name:        "deploy",
				Description: "Deploy to a target.",
				Permission:  executor.Permission{Execution: executor.AskAlways},
				Parameters:  json.RawMessage(`{"type":"object","properties":{"target":{"type":"string"}},"required":["target"]}`),
				Run: func(_ context.Context, _ executor.Call, args map[string]any) (executor.Output, error) {
					e.mu.Lock()
					e.ran = append(e.ran, "deploy "+args["target"].(string))
					e.mu.Unlock()
					return executor.Output{Data: "deployed " + args["target"].(string)}, nil
				},
			},
			{
				Name:        "wait",
				Description: "Wait until stopped.",
				Run: func(ctx context.Context, _ executor.Call, _ map[string]any) (executor.Output, error) {
					e.mu.Lock()
					e.ran = append(e.ran, "wait")
					e.mu.Unlock()
					<-ctx.Done()
					return executor.Output{}, context.Cause(ctx)
				},
			},
		}},
		{Name: "web", Tools: []*executor.Tool{{
			Name:        "fetch",
			Description: "Fetch a page.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"url":{"type":"string"}},"required":["url"]}`),
			Run: func(_ context.Context, _ executor.Call, args map[string]any) (executor.Output, error) {
				return executor.Output{Data: "page at " + args["url"].(string) + ": hello"}, nil
			},
		}}},
	}
}

func (e *env) ranTools() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.ran...)
}

// send delivers a payload: over Socket Mode (waiting for the ack), or as a
// signed HTTP request to path.
func (e *env) send(typ string, payload map[string]any, retry int) string {
	e.t.Helper()
	if e.http == nil {
		id := e.fs.Send(typ, payload, retry)
		e.fs.WaitAck(e.t, id)
		return id
	}
	var body []byte
	path := "/slack/events"
	switch typ {
	case "interactive":
		path = "/slack/interactivity"
		body = []byte(fakeslack.InteractionForm(payload).Encode())
	case "slash_commands":
		path = "/slack/commands"
		body = []byte(formOf(payload).Encode())
	default:
		body, _ = json.Marshal(payload)
	}
	res := e.post(path, body, fakeslack.Sign(secret, time.Now(), body))
	if res.StatusCode != http.StatusOK {
		e.t.Fatalf("POST %s = %d", path, res.StatusCode)
	}
	return ""
}

// post sends body to the adapter's HTTP endpoint with the given headers.
func (e *env) post(path string, body []byte, h http.Header) *http.Response {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.http.URL+path, bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	if strings.HasPrefix(string(body), "{") {
		req.Header.Set("Content-Type", "application/json")
	} else {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// mention posts "<@bot> text" at the top of a channel as user and delivers
// the app_mention event; it returns the message's ts (the thread).
func (e *env) mention(ch, user, text string) string {
	e.t.Helper()
	text = "<@" + bot + "> " + text
	ts := e.fs.AddMessage(fakeslack.Message{Channel: ch, User: user, Text: text})
	e.send("events_api", e.fs.EventCallback("", e.fs.AppMention(ch, user, text, ts, "")), 0)
	return ts
}

// reply posts a message in a thread (no mention) and delivers its message
// event; it returns the message's ts.
func (e *env) reply(ch, chType, user, text, thread string) string {
	e.t.Helper()
	ts := e.fs.AddMessage(fakeslack.Message{Channel: ch, User: user, Text: text, ThreadTS: thread})
	e.send("events_api", e.fs.EventCallback("", e.fs.UserMessage(ch, chType, user, text, ts, thread)), 0)
	return ts
}

// botMessages returns the bot's messages in a thread.
func (e *env) botMessages(ch, thread string) []fakeslack.Message {
	var out []fakeslack.Message
	for _, m := range e.fs.Thread(ch, thread) {
		if m.User == bot {
			out = append(out, m)
		}
	}
	return out
}

// waitBot waits for a bot message in the thread whose text contains want.
func (e *env) waitBot(ch, thread, want string) fakeslack.Message {
	e.t.Helper()
	var found fakeslack.Message
	fakeslack.Eventually(e.t, "a bot message containing "+want, func() bool {
		for _, m := range e.botMessages(ch, thread) {
			if strings.Contains(m.Text, want) {
				found = m
				return true
			}
		}
		return false
	})
	return found
}

// waitDone waits until the thread's status line says the turn ended.
func (e *env) waitDone(ch, thread string) fakeslack.Message {
	e.t.Helper()
	return e.waitBot(ch, thread, "Done")
}

// waitApproval waits for an open approval request in the thread and
// returns it and its approval id.
func (e *env) waitApproval(ch, thread string) (fakeslack.Message, string) {
	e.t.Helper()
	var msg fakeslack.Message
	var id string
	fakeslack.Eventually(e.t, "an approval request", func() bool {
		for _, m := range e.botMessages(ch, thread) {
			if v := buttonValue(m.Blocks, "threadbot_approve"); v != "" {
				msg, id = m, v
				return true
			}
		}
		return false
	})
	return msg, id
}

// message returns the current state of a message.
func (e *env) message(ch, ts string) fakeslack.Message {
	for _, m := range e.fs.Messages(ch) {
		if m.TS == ts {
			return m
		}
	}
	e.t.Fatalf("no message %s in %s", ts, ch)
	return fakeslack.Message{}
}

// buttonValue finds the value of the button with actionID in blocks.
func buttonValue(blocks json.RawMessage, actionID string) string {
	return fakeslack.ButtonValue(blocks, actionID)
}

// ephemeralTo waits for an ephemeral message to user containing want.
func (e *env) ephemeralTo(user, want string) {
	e.t.Helper()
	fakeslack.Eventually(e.t, "an ephemeral message to "+user+" containing "+want, func() bool {
		for _, m := range e.fs.Ephemerals() {
			if m.User == user && strings.Contains(m.Text, want) {
				return true
			}
		}
		return false
	})
}

// response waits for a response_url post containing want.
func (e *env) response(want string) string {
	e.t.Helper()
	var text string
	fakeslack.Eventually(e.t, "a command response containing "+want, func() bool {
		for _, r := range e.fs.Responses() {
			if t, _ := r.JSON["text"].(string); strings.Contains(t, want) {
				text = t
				return true
			}
		}
		return false
	})
	return text
}

// lastUserText is the last user message of a model request.
func lastUserText(req fakeopenai.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return req.Messages[i].Content
		}
	}
	return ""
}

// toolNames lists the tools a model request offered.
func toolNames(req fakeopenai.Request) []string {
	var out []string
	for _, t := range req.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

func call(name, args string) fakeopenai.Response {
	return fakeopenai.Response{ToolCalls: []fakeopenai.ToolCall{{Name: name, Arguments: args}}}
}

func answer(text string) fakeopenai.Response { return fakeopenai.Response{Content: text} }

// callWait makes the model call the wait tool (which runs until stopped)
// for every user message, and answer done after it.
func (e *env) callWait(done string) {
	e.model.SetHandler(func(req fakeopenai.Request) fakeopenai.Response {
		if req.LastMessage().Role == "user" {
			return call("wait", `{}`)
		}
		return answer(done)
	})
}

func sprintf(f string, a ...any) string { return fmt.Sprintf(f, a...) }

// formOf encodes a slash command payload as Slack's HTTP form.
func formOf(payload map[string]any) url.Values {
	v := url.Values{}
	for k, x := range payload {
		v.Set(k, fmt.Sprint(x))
	}
	return v
}

// blocksText joins every text in blocks, for assertions.
func blocksText(blocks json.RawMessage) string {
	var v any
	_ = json.Unmarshal(blocks, &v)
	var b strings.Builder
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			if t, ok := x["text"].(string); ok {
				b.WriteString(t + "\n")
			}
			for _, k := range []string{"text", "elements", "fields", "accessory"} {
				if y, ok := x[k]; ok {
					walk(y)
				}
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(v)
	return b.String()
}

package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/core/chain"
	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/core/llm"
	"github.com/threadbot/threadbot/internal/core/session"
	"github.com/threadbot/threadbot/internal/storage"
)

type harness struct {
	quiet bool
	t     testing.TB
	dir   string
	db    *storage.SQLite
	model *chain.ScriptModel
	plat  *fakePlatform
	m     *session.Manager
	opts  session.Options
	// ran records the Shell tool's commands.
	mu  sync.Mutex
	ran []string
	// entered receives a value each time the Block tool starts; Block
	// then waits for its context to end.
	entered chan struct{}
}

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func (h *harness) groups() []*executor.Group {
	return []*executor.Group{{
		Name: "demo",
		Tools: []*executor.Tool{
			{
				Name:       "Lookup",
				Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`),
				Run: func(_ context.Context, _ executor.Call, args map[string]any) (executor.Output, error) {
					return executor.Output{Data: "result for " + args["q"].(string)}, nil
				},
			},
			{
				Name: "Block",
				Run: func(ctx context.Context, _ executor.Call, _ map[string]any) (executor.Output, error) {
					h.entered <- struct{}{}
					<-ctx.Done()
					return executor.Output{}, context.Cause(ctx)
				},
			},
			{
				Name:       "Shell",
				Permission: executor.Permission{Execution: executor.AskAlways},
				Parameters: json.RawMessage(`{"type":"object","properties":{"cmd":{"type":"string"}},"required":["cmd"]}`),
				Run: func(_ context.Context, _ executor.Call, args map[string]any) (executor.Output, error) {
					h.mu.Lock()
					h.ran = append(h.ran, args["cmd"].(string))
					h.mu.Unlock()
					return executor.Output{Data: "ran " + args["cmd"].(string)}, nil
				},
			},
		},
	}}
}

func newHarness(t testing.TB, mod func(*session.Options)) *harness {
	t.Helper()
	dir := t.TempDir()
	h := &harness{t: t, dir: dir, model: &chain.ScriptModel{}, entered: make(chan struct{}, 10)}
	h.opts = session.Options{
		WorkspaceRoot: filepath.Join(dir, "ws"),
		Admins:        []string{"ADMIN"},
		Groups:        h.groups,
		EditInterval:  -1,
	}
	if mod != nil {
		mod(&h.opts)
	}
	h.start()
	return h
}

// start opens the database and a new Manager on it (a process start).
func (h *harness) start() { h.startWith(h.model) }

// startWith is start with another model.
func (h *harness) startWith(model chain.Model) { h.startStore(model, nil) }

// startStore is start with another model and the store wrapped by wrap
// (nil: not wrapped).
func (h *harness) startStore(model chain.Model, wrap func(session.Store) session.Store) {
	h.t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(h.dir, "bot.db"), storage.Options{})
	if err != nil {
		h.t.Fatal(err)
	}
	h.db = db
	h.plat = newFakePlatform("test")
	lg := testLogger(h.t)
	if h.quiet {
		lg = slog.New(slog.DiscardHandler)
	}
	var st session.Store = storage.ForSessions(db)
	if wrap != nil {
		st = wrap(st)
	}
	h.m = session.New(lg, st, model, h.opts)
	h.m.AddPlatform(h.plat)
	if err := h.m.Recover(context.Background()); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { h.stop() })
}

// stop shuts the Manager down and closes the database.
func (h *harness) stop() {
	if h.m == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = h.m.Shutdown(ctx)
	_ = h.db.Close()
	h.m = nil
}

func key(thread string) session.Key {
	return session.Key{Platform: "test", Workspace: "W", Channel: "C", Thread: thread}
}

func (h *harness) send(k session.Key, user, text, event string) {
	h.t.Helper()
	if _, err := h.m.Handle(context.Background(), session.Inbound{Key: k, User: user, Text: text, EventID: event}); err != nil {
		h.t.Fatal(err)
	}
}

func text(s string) llm.Response { return llm.Response{Content: s} }

func tools(calls ...llm.ToolCall) llm.Response { return llm.Response{ToolCalls: calls} }

func tc(id, name, args string) llm.ToolCall { return llm.ToolCall{ID: id, Name: name, Arguments: args} }

func lastUser(req llm.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == llm.RoleUser {
			return req.Messages[i].Content
		}
	}
	return ""
}

func TestTurnStoredAndReloaded(t *testing.T) {
	h := newHarness(t, nil)
	k := key("t1")
	h.model.Push(tools(tc("c1", "Lookup", `{"q":"go"}`)), text("Go is a language."))
	h.send(k, "U1", "what is go?", "E1")
	h.plat.waitDone(t, 1)
	if got := h.plat.answers(k); !slices.Equal(got, []string{"Go is a language."}) {
		t.Errorf("answers = %q", got)
	}
	ev := h.plat.events(k)
	if ev[0].Op != "post" || ev[0].Out.Kind != session.OutStatus || !ev[0].Out.Stop {
		t.Errorf("first event = %+v, want the status with a Stop control", ev[0])
	}
	var logEdits []string
	for _, e := range ev {
		if e.Out.Kind == session.OutToolLog {
			logEdits = append(logEdits, e.Op+":"+e.Out.Text)
		}
	}
	if len(logEdits) != 2 || !strings.Contains(logEdits[0], "post:🔧 **Lookup**") || !strings.Contains(logEdits[1], "✓ Success") || !strings.Contains(logEdits[1], "result for go") {
		t.Errorf("tool log = %q", logEdits)
	}
	// The first request's context: system prompt with tool rules, then the user message.
	req := h.model.Requests()[0]
	if req.Messages[0].Role != llm.RoleSystem || !strings.Contains(req.Messages[0].Content, "<tool-rules>") || lastUser(req) != "what is go?" {
		t.Errorf("first request = %+v", req.Messages)
	}

	// A restart: the next turn sees the compressed history and the cached variable.
	h.stop()
	h.start()
	h.model.Push(tools(tc("c2", "ReadVar", `{"name":"Lookup_c1_result"}`)), text("Still Go."))
	h.send(k, "U1", "and again?", "E2")
	h.plat.waitDone(t, 1)
	reqs := h.model.Requests()
	second := reqs[2].Messages
	if len(second) != 4 || second[1].Content != "what is go?" || !strings.HasPrefix(second[2].Content, "<SYSTEM-CONTEXT>") ||
		!strings.Contains(second[2].Content, "$VAR_REF{{Lookup_c1_result}}") || !strings.Contains(second[2].Content, "Go is a language.") {
		t.Fatalf("second turn context = %+v", second)
	}
	third := reqs[3].Messages
	if got := third[len(third)-1].Content; got != "result for go" {
		t.Errorf("ReadVar after restart = %q, want the cached result", got)
	}
}

func TestQueuedMessagesKeepOrder(t *testing.T) {
	release := make(chan struct{})
	var seen []string
	var mu sync.Mutex
	h := newHarness(t, nil)
	h.model.Func = func(req llm.Request) chain.ScriptReply {
		u := lastUser(req)
		if u == "first" {
			<-release // hold the first turn while the others queue
		}
		mu.Lock()
		seen = append(seen, u)
		mu.Unlock()
		return chain.ScriptReply{Response: text("re: " + u)}
	}
	k := key("q")
	h.send(k, "U1", "first", "E1")
	for i := 2; i <= 5; i++ {
		h.send(k, "U1", fmt.Sprint("msg", i), fmt.Sprint("E", i))
	}
	if running, queued := h.m.Running(k); !running && queued == 0 {
		t.Log("turn not started yet")
	}
	close(release)
	h.plat.waitDone(t, 5)
	want := []string{"first", "msg2", "msg3", "msg4", "msg5"}
	if !slices.Equal(seen, want) {
		t.Errorf("model saw %q, want %q", seen, want)
	}
	if got := h.plat.answers(k); !slices.Equal(got, []string{"re: first", "re: msg2", "re: msg3", "re: msg4", "re: msg5"}) {
		t.Errorf("answers = %q", got)
	}
	// Each turn saw the previous ones in its history, in order.
	last := h.model.Requests()[4].Messages
	var users []string
	for _, m := range last {
		if m.Role == llm.RoleUser {
			users = append(users, m.Content)
		}
	}
	if !slices.Equal(users, want) {
		t.Errorf("history users = %q", users)
	}
}

func TestRedeliveredEventIgnored(t *testing.T) {
	h := newHarness(t, nil)
	h.model.Func = func(req llm.Request) chain.ScriptReply { return chain.ScriptReply{Response: text("once")} }
	k := key("r")
	h.send(k, "U1", "hi", "EV")
	h.send(k, "U1", "hi", "EV") // redelivered while queued or running
	h.plat.waitDone(t, 1)
	ok, err := h.m.Handle(context.Background(), session.Inbound{Key: k, User: "U1", Text: "hi", EventID: "EV"})
	if err != nil || ok {
		t.Errorf("redelivery after the turn: accepted=%v err=%v, want ignored", ok, err)
	}
	h.stop()
	h.start()
	ok, _ = h.m.Handle(context.Background(), session.Inbound{Key: k, User: "U1", Text: "hi", EventID: "EV"})
	if ok {
		t.Error("redelivery after a restart accepted")
	}
	if n := len(h.model.Requests()); n != 1 {
		t.Errorf("%d model requests, want 1", n)
	}
}

func TestStopAbortsWithinOneRound(t *testing.T) {
	h := newHarness(t, nil)
	k := key("s")
	h.model.Push(
		tools(tc("c1", "Block", `{}`), tc("c2", "Lookup", `{"q":"b"}`)),
		text("should never be asked"),
	)
	h.send(k, "U1", "do two things", "E1")
	<-h.entered
	if _, err := h.m.Stop(k, "OTHER", false); !errors.Is(err, session.ErrNotAllowed) {
		t.Errorf("stop by another user: %v, want ErrNotAllowed", err)
	}
	if ok, err := h.m.Stop(k, "U1", false); !ok || err != nil {
		t.Fatalf("stop by the requester: %v %v", ok, err)
	}
	h.plat.waitDone(t, 1)
	if n := len(h.model.Requests()); n != 1 {
		t.Errorf("%d model requests after Stop, want 1", n)
	}
	ev := h.plat.events(k)
	last := ev[len(ev)-1]
	if last.Out.Kind != session.OutStatus || !strings.Contains(last.Out.Text, "Stopped") {
		t.Errorf("last event = %+v, want the Stopped status", last)
	}
	for _, e := range ev {
		if strings.Contains(e.Out.Text, "**Lookup**") {
			t.Error("the second call ran after Stop")
		}
	}
	msgs, err := h.db.Messages(context.Background(), k.ID(), 10)
	if err != nil || len(msgs) != 2 || !strings.Contains(msgs[1].Content, "[Tool Execution Log]**: Block") {
		t.Errorf("stored after stop: %+v, err %v", msgs, err)
	}
}

func TestApprovalFlow(t *testing.T) {
	h := newHarness(t, nil)
	k := key("a")
	h.model.Push(tools(tc("c1", "Shell", `{"cmd":"ls"}`)), text("Listed."))
	h.send(k, "U1", "list files", "E1")
	a := h.plat.waitApproval(t)
	if a.Tool != "Shell" || a.Requester != "U1" || !strings.Contains(a.Args, `"cmd":"ls"`) {
		t.Errorf("approval prompt = %+v", a)
	}
	ctx := context.Background()
	if err := h.m.Decide(ctx, a.ID, "U2", false, executor.Decision{Approved: true}); !errors.Is(err, session.ErrNotAllowed) {
		t.Fatalf("decision by another user: %v, want ErrNotAllowed", err)
	}
	if len(h.ran) != 0 {
		t.Fatal("the tool ran after a refused click")
	}
	if err := h.m.Decide(ctx, a.ID, "U1", false, executor.Decision{Approved: true}); err != nil {
		t.Fatal(err)
	}
	h.plat.waitDone(t, 1)
	// A late second click changes nothing: the approval is decided (or, once
	// the turn is stored, gone).
	if err := h.m.Decide(ctx, a.ID, "U1", false, executor.Decision{Approved: false}); !errors.Is(err, session.ErrAlreadyDecided) && !errors.Is(err, session.ErrNotFound) {
		t.Errorf("second click: %v, want ErrAlreadyDecided or ErrNotFound", err)
	}
	if !slices.Equal(h.ran, []string{"ls"}) {
		t.Errorf("ran %q", h.ran)
	}
	var resolved []session.Outcome
	for _, e := range h.plat.events(k) {
		if e.Op == "resolve" {
			resolved = append(resolved, e.Outc)
		}
	}
	if len(resolved) != 1 || !resolved[0].Approved || resolved[0].By != "U1" {
		t.Errorf("resolved = %+v", resolved)
	}
	audit, _ := h.db.Audit(ctx, k.ID(), 10)
	var kinds []string
	for _, a := range audit {
		kinds = append(kinds, a.Kind+":"+a.Status+":"+a.Actor)
	}
	if !slices.Contains(kinds, "decision:approved:U1") || !slices.Contains(kinds, "tool_call:SUCCESS:U1") {
		t.Errorf("audit = %q", kinds)
	}
}

func TestApprovalByAdminAndTimeout(t *testing.T) {
	h := newHarness(t, func(o *session.Options) { o.ApprovalTimeout = 50 * time.Millisecond })
	k := key("to")
	h.model.Push(tools(tc("c1", "Shell", `{"cmd":"rm x"}`)), text("Gave up."))
	h.send(k, "U1", "remove x", "E1")
	h.plat.waitApproval(t)
	h.plat.waitDone(t, 1)
	last := h.model.Requests()[1].Messages
	if got := last[len(last)-1].Content; !strings.Contains(got, "rejected") || !strings.Contains(got, "no decision within 50ms") {
		t.Errorf("tool message after timeout = %q", got)
	}
	if len(h.ran) != 0 {
		t.Error("the tool ran without approval")
	}
}

// TestApprovalSurvivesRestart stops the process while an approval waits;
// after a restart a click resumes the turn where it stopped.
func TestApprovalSurvivesRestart(t *testing.T) {
	h := newHarness(t, nil)
	k := key("rs")
	h.model.Push(tools(tc("c1", "Lookup", `{"q":"x"}`), tc("c2", "Shell", `{"cmd":"make"}`)))
	h.send(k, "U1", "build it", "E1")
	a := h.plat.waitApproval(t)
	h.stop() // graceful shutdown while waiting
	if len(h.ran) != 0 {
		t.Fatal("ran before approval")
	}
	h.start()
	h.model.Push(text("Built."))
	if err := h.m.Decide(context.Background(), a.ID, "U9", false, executor.Decision{Approved: true}); !errors.Is(err, session.ErrNotAllowed) {
		t.Fatalf("stranger's click after restart: %v", err)
	}
	if err := h.m.Decide(context.Background(), a.ID, "ADMIN", false, executor.Decision{Approved: true}); err != nil {
		t.Fatal(err)
	}
	h.plat.waitDone(t, 1)
	if !slices.Equal(h.ran, []string{"make"}) {
		t.Errorf("ran %q, want make once", h.ran)
	}
	if got := h.plat.answers(k); !slices.Equal(got, []string{"Built."}) {
		t.Errorf("answers = %q", got)
	}
	reqs := h.model.Requests()
	resumed := reqs[len(reqs)-1].Messages
	if got := resumed[len(resumed)-1]; got.ToolCallID != "c2" || got.Content != "ran make" {
		t.Errorf("resumed request ends with %+v", got)
	}
	msgs, _ := h.db.Messages(context.Background(), k.ID(), 10)
	if len(msgs) != 2 || msgs[0].Content != "build it" || !strings.Contains(msgs[1].Content, "Shell_c2_result") || !strings.Contains(msgs[1].Content, "Lookup_c1_result") {
		t.Errorf("stored turn = %+v", msgs)
	}
	seen, _ := h.db.EventSeen(context.Background(), "test", "E1")
	if !seen {
		t.Error("event not marked processed after the resumed turn")
	}
	// The message's turn belonged to the approval: no "interrupted" notice.
	for _, e := range h.plat.events(k) {
		if e.Out.Kind == session.OutNotice {
			t.Errorf("notice after the restart: %q", e.Out.Text)
		}
	}
	if ids := inboxIDs(t, h.db); len(ids) != 0 {
		t.Errorf("inbox = %q, want empty", ids)
	}
}

func TestIdleEvictionAndReload(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	h := newHarness(t, func(o *session.Options) { o.Now = clock; o.IdleTimeout = time.Minute })
	k := key("idle")
	h.model.Push(tools(tc("c1", "Lookup", `{"q":"v"}`)), text("one"))
	h.send(k, "U1", "first", "E1")
	h.plat.waitDone(t, 1)
	if err := h.m.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := h.m.EvictIdle(now); n != 0 {
		t.Errorf("evicted %d fresh sessions", n)
	}
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	if n := h.m.EvictIdle(now); n != 1 || h.m.Loaded() != 0 {
		t.Fatalf("evicted %d, loaded %d", n, h.m.Loaded())
	}
	h.model.Push(tools(tc("c2", "ListVars", `{}`)), text("two"))
	h.send(k, "U1", "second", "E2")
	h.plat.waitDone(t, 1)
	reqs := h.model.Requests()
	ctx2 := reqs[2].Messages
	if len(ctx2) != 4 || ctx2[1].Content != "first" {
		t.Errorf("context after reload = %+v", ctx2)
	}
	list := reqs[3].Messages[len(reqs[3].Messages)-1].Content
	if !strings.Contains(list, "Lookup_c1_result") || !strings.Contains(list, "Rule/Agent/VarRef") {
		t.Errorf("variables after reload: %s", list)
	}
}

func TestToolSettings(t *testing.T) {
	h := newHarness(t, nil)
	k := key("tools")
	ctx := context.Background()
	if _, err := h.m.SetTool(ctx, k, session.ScopeChannel, "demo", false, "U1", false); !errors.Is(err, session.ErrNotAllowed) {
		t.Errorf("non-admin: %v", err)
	}
	if _, err := h.m.SetTool(ctx, k, session.ScopeChannel, "nope", false, "ADMIN", false); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("unknown name: %v", err)
	}
	if kind, err := h.m.SetTool(ctx, k, session.ScopeChannel, "Shell", false, "U7", true); err != nil || kind != "tool" {
		t.Fatalf("platform admin disabling a tool: %q %v", kind, err)
	}
	h.model.Push(text("ok"))
	h.send(k, "U1", "hi", "E1")
	h.plat.waitDone(t, 1)
	var names []string
	for _, d := range h.model.Requests()[0].Tools {
		names = append(names, d.Name)
	}
	if !slices.Equal(names, []string{"Block", "ListVars", "Lookup", "ReadVar", "RemoveVars", "WriteVar"}) {
		t.Errorf("offered tools = %q", names)
	}
	groups, err := h.m.Tools(ctx, key("elsewhere"))
	if err != nil {
		t.Fatal(err)
	}
	if groups[1].Name != "demo" || groups[1].Tools[2].Name != "Shell" || groups[1].Tools[2].Enabled {
		t.Errorf("another thread of the same channel: %+v", groups[1])
	}
	other := session.Key{Platform: "test", Workspace: "W", Channel: "C2", Thread: "x"}
	groups, _ = h.m.Tools(ctx, other)
	if !groups[1].Tools[2].Enabled {
		t.Error("a channel setting leaked to another channel")
	}
}

func TestApprovalExpiredAcrossRestart(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	h := newHarness(t, func(o *session.Options) { o.Now = clock; o.ApprovalTimeout = 10 * time.Minute })
	k := key("exp")
	h.model.Push(tools(tc("c1", "Shell", `{"cmd":"deploy"}`)))
	h.send(k, "U1", "deploy", "E1")
	a := h.plat.waitApproval(t)
	h.stop()
	mu.Lock()
	now = now.Add(time.Hour) // the bot was down past the deadline
	mu.Unlock()
	h.start()
	var notice, resolved bool
	for _, e := range h.plat.events(k) {
		if e.Op == "resolve" && e.Outc.Expired && e.Appr.ID == a.ID {
			resolved = true
		}
		if e.Op == "post" && e.Out.Kind == session.OutNotice && strings.Contains(e.Out.Text, "expired") {
			notice = true
		}
	}
	if !resolved || !notice {
		t.Errorf("after restart: resolved=%v notice=%v, want both", resolved, notice)
	}
	if err := h.m.Decide(context.Background(), a.ID, "U1", false, executor.Decision{Approved: true}); err == nil {
		t.Error("a click on an expired approval was accepted")
	}
	if len(h.ran) != 0 {
		t.Error("the tool ran")
	}
	// Reported once: the next start does not tell the thread again.
	h.stop()
	h.start()
	if n := len(h.plat.events(k)); n != 0 {
		t.Errorf("second restart posted %d events", n)
	}
}

func TestNativeHistoryMode(t *testing.T) {
	h := newHarness(t, func(o *session.Options) {
		o.Channel = func(session.Key) session.ChannelSettings {
			return session.ChannelSettings{History: session.HistoryNative}
		}
	})
	k := key("native")
	h.model.Push(tools(tc("c1", "Lookup", `{"q":"n"}`)), text("first answer"), text("second answer"))
	h.send(k, "U1", "one", "E1")
	h.plat.waitDone(t, 1)
	h.send(k, "U1", "two", "E2")
	h.plat.waitDone(t, 1)
	got := h.model.Requests()[2].Messages
	var roles []string
	for _, m := range got {
		roles = append(roles, string(m.Role))
	}
	want := []string{"system", "user", "assistant", "tool", "assistant", "user"}
	if !slices.Equal(roles, want) {
		t.Fatalf("native history roles = %q, want %q", roles, want)
	}
	if got[3].ToolCallID != "c1" || got[3].Content != "result for n" || strings.Contains(got[4].Content, "SYSTEM-CONTEXT") {
		t.Errorf("native history = %+v", got[2:5])
	}
}

func TestReloadTools(t *testing.T) {
	extra := false
	reloads := 0
	h := newHarness(t, nil)
	base := h.opts.Groups
	h.stop()
	h.opts.Groups = func() []*executor.Group {
		gs := base()
		if extra {
			gs = append(gs, &executor.Group{Name: "custom", Tools: []*executor.Tool{{Name: "Custom", Run: func(context.Context, executor.Call, map[string]any) (executor.Output, error) {
				return executor.Output{Data: "x"}, nil
			}}}})
		}
		return gs
	}
	h.opts.Reload = func() error { reloads++; extra = true; return nil }
	h.start()
	k := key("reload")
	h.model.Push(text("a"), text("b"))
	h.send(k, "U1", "one", "E1")
	h.plat.waitDone(t, 1)
	if err := h.m.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := h.m.ReloadTools("U1", false); !errors.Is(err, session.ErrNotAllowed) {
		t.Errorf("reload by a non-admin: %v", err)
	}
	if err := h.m.ReloadTools("ADMIN", false); err != nil || reloads != 1 {
		t.Fatalf("reload: %v, %d reloads", err, reloads)
	}
	h.send(k, "U1", "two", "E2")
	h.plat.waitDone(t, 1)
	var names []string
	for _, d := range h.model.Requests()[1].Tools {
		names = append(names, d.Name)
	}
	if !slices.Contains(names, "Custom") {
		t.Errorf("tools after reload = %q, want Custom", names)
	}
}

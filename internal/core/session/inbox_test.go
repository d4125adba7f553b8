package session_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/core/chain"
	"github.com/threadbot/threadbot/internal/core/llm"
	"github.com/threadbot/threadbot/internal/core/session"
	"github.com/threadbot/threadbot/internal/storage"
)

// blockingModel answers "long job" with a call of the Block tool (which
// holds the turn until it is stopped) and anything else with "re: <text>";
// it records the user messages it was asked about.
func blockingModel(h *harness) func() []string {
	var mu sync.Mutex
	var asked []string
	h.model.Func = func(req llm.Request) chain.ScriptReply {
		u := lastUser(req)
		last := req.Messages[len(req.Messages)-1]
		if last.Role != llm.RoleUser {
			return chain.ScriptReply{Response: text("done: " + u)}
		}
		mu.Lock()
		asked = append(asked, u)
		mu.Unlock()
		if u == "long job" {
			return chain.ScriptReply{Response: tools(tc("c1", "Block", `{}`))}
		}
		return chain.ScriptReply{Response: text("re: " + u)}
	}
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(asked)
	}
}

func inboxIDs(t *testing.T, db *storage.SQLite) []string {
	t.Helper()
	ms, err := db.Inbox(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.EventID)
	}
	return ids
}

// Messages queued behind a running turn at a shutdown are kept and run
// after the restart, in order; the running turn is stopped and stored.
func TestQueuedMessagesSurviveShutdown(t *testing.T) {
	h := newHarness(t, nil)
	asked := blockingModel(h)
	k := key("shut")
	h.send(k, "U1", "long job", "E1")
	<-h.entered
	h.send(k, "U1", "second", "E2")
	h.send(k, "U2", "third", "E3")
	h.stop()
	if got := asked(); !slices.Equal(got, []string{"long job"}) {
		t.Fatalf("before the restart the model was asked %q, want only the running turn", got)
	}
	h.start()
	if ok, _ := h.m.Handle(context.Background(), session.Inbound{Key: k, User: "U1", Text: "second", EventID: "E2"}); ok {
		t.Error("a redelivery of a replayed message was accepted")
	}
	h.plat.waitDone(t, 2)
	if got := h.plat.answers(k); !slices.Equal(got, []string{"re: second", "re: third"}) {
		t.Errorf("answers after the restart = %q", got)
	}
	if got, want := asked(), []string{"long job", "second", "third"}; !slices.Equal(got, want) {
		t.Errorf("model asked %q, want %q", got, want)
	}
	if ids := inboxIDs(t, h.db); len(ids) != 0 {
		t.Errorf("inbox after the replay = %q, want empty", ids)
	}
	msgs, _ := h.db.Messages(context.Background(), k.ID(), 10)
	var users []string
	for _, m := range msgs {
		if m.Role == string(llm.RoleUser) {
			users = append(users, m.Content)
		}
	}
	if want := []string{"long job", "second", "third"}; !slices.Equal(users, want) {
		t.Errorf("stored user messages = %q, want %q", users, want)
	}
}

// A crash (the process gone without a shutdown) in the middle of a turn:
// the next start does not run that turn again (its tools may have run),
// closes its status and tells the thread, once; the message queued behind
// it runs.
func TestCrashMidTurnReported(t *testing.T) {
	h := newHarness(t, nil)
	asked := blockingModel(h)
	k := key("crash")
	h.send(k, "U1", "long job", "E1")
	<-h.entered
	h.send(k, "U1", "second", "E2")
	crashed, crashedDB := h.m, h.db

	h.start() // a new process on the same database; the old one is frozen
	h.plat.waitDone(t, 2)
	ev := h.plat.events(k)
	var closed, told bool
	for _, e := range ev {
		if e.Op == "edit" && e.Out.Kind == session.OutStatus && e.Ref == "m1" && strings.Contains(e.Out.Text, "Interrupted") {
			closed = true
		}
		if e.Op == "post" && e.Out.Kind == session.OutNotice && strings.Contains(e.Out.Text, "“long job”") && strings.Contains(e.Out.Text, "Send it again") {
			told = true
		}
	}
	if !closed || !told {
		t.Errorf("status closed=%v thread told=%v, want both; events %+v", closed, told, ev)
	}
	if got := h.plat.answers(k); !slices.Equal(got, []string{"re: second"}) {
		t.Errorf("answers = %q, want the queued message's", got)
	}
	if got, want := asked(), []string{"long job", "second"}; !slices.Equal(got, want) {
		t.Errorf("model asked %q, want %q (the cut-off turn not run again)", got, want)
	}
	if ids := inboxIDs(t, h.db); len(ids) != 0 {
		t.Errorf("inbox = %q, want empty", ids)
	}

	// The frozen process wakes up and finishes: its turn is not stored
	// twice, and it runs nothing more.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := crashed.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	_ = crashedDB.Close()
	if got := asked(); len(got) != 2 {
		t.Errorf("after the old process ended the model was asked %q", got)
	}
	msgs, _ := h.db.Messages(context.Background(), k.ID(), 10)
	if len(msgs) != 2 || msgs[0].Content != "second" {
		t.Errorf("stored = %+v, want only the second turn", msgs)
	}

	// Told once: another restart posts nothing.
	h.stop()
	h.start()
	if n := len(h.plat.events(k)); n != 0 {
		t.Errorf("second restart posted %d events", n)
	}
}

// thinkingModel streams "Let me think" and then waits for its context on
// a request whose last message is "ponder" (held is told); other requests
// go to next.
type thinkingModel struct {
	held chan struct{}
	next chain.Model
}

func (m thinkingModel) Complete(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	if lastUser(req) == "ponder" && req.Messages[len(req.Messages)-1].Role == llm.RoleUser {
		if onDelta != nil {
			onDelta(llm.Delta{Content: "Let me think"})
		}
		m.held <- struct{}{}
		<-ctx.Done()
		return llm.Response{}, context.Cause(ctx)
	}
	return m.next.Complete(ctx, req, onDelta)
}

// A shutdown while the model is still thinking (no tool called yet): the
// turn is paused, not stored, and answered after the restart; its status
// and its streamed text say so.
func TestShutdownBeforeAnyToolReplays(t *testing.T) {
	h := newHarness(t, func(o *session.Options) { o.EditInterval = time.Millisecond })
	asked := blockingModel(h)
	held := make(chan struct{}, 1)
	h.stop()
	h.startWith(thinkingModel{held: held, next: h.model})
	k := key("pause")
	h.send(k, "U1", "ponder", "E1")
	<-held
	h.stop()
	var paused, marked bool
	for _, e := range h.plat.events(k) {
		if e.Op == "edit" && e.Out.Kind == session.OutStatus && strings.Contains(e.Out.Text, "Paused") {
			paused = true
		}
		if e.Op == "edit" && e.Out.Kind == session.OutAnswer && e.Out.Text == "Let me think…\n\n_(interrupted by a restart)_" {
			marked = true
		}
	}
	if !paused || !marked {
		t.Errorf("at shutdown: status paused=%v, streamed text marked=%v; events %+v", paused, marked, h.plat.events(k))
	}
	if msgs, _ := h.db.Messages(context.Background(), k.ID(), 10); len(msgs) != 0 {
		t.Errorf("the paused turn was stored: %+v", msgs)
	}

	h.start()             // the plain script model now answers "re: ponder"
	h.plat.waitDone(t, 2) // the old status closed, the new turn done
	if got := h.plat.answers(k); !slices.Equal(got, []string{"re: ponder"}) {
		t.Errorf("answers after the restart = %q", got)
	}
	if got := asked(); !slices.Equal(got, []string{"ponder"}) {
		t.Errorf("the script model was asked %q, want ponder once", got)
	}
	if ids := inboxIDs(t, h.db); len(ids) != 0 {
		t.Errorf("inbox = %q, want empty", ids)
	}
}

// A message that waits behind a running turn gets a 👀 reaction, so its
// author sees it arrived; one that runs at once does not.
func TestQueuedMessageAcknowledged(t *testing.T) {
	h := newHarness(t, nil)
	blockingModel(h)
	k := key("eyes")
	send := func(text, event, ref string) {
		t.Helper()
		if _, err := h.m.Handle(context.Background(), session.Inbound{Key: k, User: "U1", Text: text, EventID: event, Ref: session.Ref(ref)}); err != nil {
			t.Fatal(err)
		}
	}
	send("long job", "E1", "u1")
	<-h.entered
	send("second", "E2", "u2")
	var reacted []string
	deadline := time.Now().Add(30 * time.Second) // a hang guard, not a timing assertion
	for len(reacted) == 0 && time.Now().Before(deadline) {
		for _, e := range h.plat.events(k) {
			if e.Op == "react" {
				reacted = append(reacted, string(e.Ref)+" "+e.Out.Text)
			}
		}
		time.Sleep(time.Millisecond)
	}
	if !slices.Equal(reacted, []string{"u2 eyes"}) {
		t.Errorf("reactions = %q, want only the queued message's 👀", reacted)
	}
}

// Between Quiesce (the process was asked to stop) and Shutdown, messages
// the adapters still hand over are stored, not run, and answered after
// the restart; the running turn is stopped at once.
func TestQuiesceStoresWithoutRunning(t *testing.T) {
	h := newHarness(t, nil)
	asked := blockingModel(h)
	k := key("quiesce")
	h.send(k, "U1", "long job", "E1")
	<-h.entered
	h.m.Quiesce()
	h.plat.waitDone(t, 1) // the running turn stopped
	h.send(k, "U1", "late", "E2")
	h.send(key("other"), "U1", "elsewhere", "E3")
	h.stop()
	if got := asked(); !slices.Equal(got, []string{"long job"}) {
		t.Fatalf("the model was asked %q before the restart", got)
	}
	h.start()
	h.plat.waitDone(t, 2)
	if got := asked(); !slices.Equal(got[1:], []string{"late", "elsewhere"}) && !slices.Equal(got[1:], []string{"elsewhere", "late"}) {
		t.Errorf("after the restart the model was asked %q", got)
	}
}

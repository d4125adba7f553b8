package session_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/core/session"
	"github.com/threadbot/threadbot/internal/storage"
)

// These tests pin what restarts and crashes may not do: run an approved
// command twice, run a message twice, lose a message, or replay one
// forever.

func (h *harness) ranNow() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.ran)
}

// notices returns the texts of the notices posted in a thread.
func (h *harness) notices(k session.Key) []string {
	var out []string
	for _, e := range h.plat.events(k) {
		if e.Op == "post" && e.Out.Kind == session.OutNotice {
			out = append(out, e.Out.Text)
		}
	}
	return out
}

// An approved command ran, then the process crashed later in the turn: the
// next start reports the turn as cut off and does not resume it, so the
// command does not run again.
func TestCrashAfterApprovedToolNotRerun(t *testing.T) {
	h := newHarness(t, nil)
	k := key("crashappr")
	h.model.Push(tools(tc("c1", "Shell", `{"cmd":"deploy"}`)), tools(tc("c2", "Block", `{}`)))
	h.send(k, "U1", "deploy", "E1")
	a := h.plat.waitApproval(t)
	if err := h.m.Decide(context.Background(), a.ID, "U1", false, executor.Decision{Approved: true}); err != nil {
		t.Fatal(err)
	}
	<-h.entered // deploy ran; the turn is in Block
	crashed, crashedDB := h.m, h.db
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = crashed.Shutdown(ctx)
		_ = crashedDB.Close()
	}()
	h.start()
	if got := h.ranNow(); !slices.Equal(got, []string{"deploy"}) {
		t.Errorf("after the crash the approved command ran %q, want once", got)
	}
	if got := h.notices(k); len(got) != 1 || !strings.Contains(got[0], "I restarted while answering") {
		t.Errorf("notices = %q, want the thread told once", got)
	}
	if ids := inboxIDs(t, h.db); len(ids) != 0 {
		t.Errorf("inbox = %q", ids)
	}
}

// A turn with two approvals: the first approved (its command ran), the
// second waiting at a shutdown. After the restart the second is approved;
// each command ran once, and later starts resume nothing.
func TestTwoApprovalsAcrossRestarts(t *testing.T) {
	h := newHarness(t, nil)
	k := key("two")
	h.model.Push(tools(tc("c1", "Shell", `{"cmd":"a"}`)), tools(tc("c2", "Shell", `{"cmd":"b"}`)))
	h.send(k, "U1", "do a then b", "E1")
	a1 := h.plat.waitApproval(t)
	if err := h.m.Decide(context.Background(), a1.ID, "U1", false, executor.Decision{Approved: true}); err != nil {
		t.Fatal(err)
	}
	a2 := h.plat.waitApproval(t)
	h.stop()
	h.model.Push(text("Done."))
	h.start()
	if err := h.m.Decide(context.Background(), a2.ID, "U1", false, executor.Decision{Approved: true}); err != nil {
		t.Fatal(err)
	}
	h.plat.waitDone(t, 1)
	for range 2 {
		h.stop()
		h.start()
		if ev := h.plat.events(k); len(ev) != 0 {
			t.Errorf("a later start posted %+v", ev)
		}
	}
	if got := h.ranNow(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("ran %q, want each approved command once", got)
	}
}

// After a restart the turn of E1 waits for its approval; a redelivery of
// E1 does not start a second turn.
func TestRedeliveryWhileApprovalWaitsAfterRestart(t *testing.T) {
	h := newHarness(t, nil)
	k := key("own")
	h.model.Push(tools(tc("c1", "Shell", `{"cmd":"deploy"}`)))
	h.send(k, "U1", "deploy", "E1")
	h.plat.waitApproval(t)
	h.stop()
	h.start()
	ok, err := h.m.Handle(context.Background(), session.Inbound{Key: k, User: "U1", Text: "deploy", EventID: "E1"})
	if ok || err != nil {
		t.Errorf("redelivered E1: accepted=%v err=%v, want dropped", ok, err)
	}
}

// hookStore wraps the real store: onLoad runs before LoadSession, and
// SaveTurn fails while failSave is positive.
type hookStore struct {
	session.Store
	onLoad   func(ctx context.Context)
	failSave atomic.Int32
}

func (s *hookStore) LoadSession(ctx context.Context, k session.Key, n int) (session.Saved, error) {
	if s.onLoad != nil {
		s.onLoad(ctx)
	}
	return s.Store.LoadSession(ctx, k, n)
}

func (s *hookStore) SaveTurn(ctx context.Context, t session.TurnRecord) error {
	if s.failSave.Add(-1) >= 0 {
		return errors.New("disk I/O error (injected)")
	}
	return s.Store.SaveTurn(ctx, t)
}

// startHooked is start with the store wrapped by hs.
func (h *harness) startHooked(hs *hookStore) {
	h.t.Helper()
	h.startStore(h.model, func(st session.Store) session.Store { hs.Store = st; return hs })
}

// A shutdown while a message's session loads keeps the message: it is
// answered after the restart, and nobody is told to try again.
func TestShutdownDuringLoadKeepsMessage(t *testing.T) {
	h := newHarness(t, nil)
	h.stop()
	entered := make(chan struct{})
	h.startHooked(&hookStore{onLoad: func(ctx context.Context) {
		close(entered)
		<-ctx.Done() // the shutdown comes while the store reads
	}})
	k := key("load")
	h.send(k, "U1", "hello", "E1")
	<-entered
	h.stop()
	if got := h.notices(k); len(got) != 0 {
		t.Errorf("notices at shutdown = %q", got)
	}
	h.model.Push(text("hi"))
	h.start()
	h.plat.waitDone(t, 1)
	if got := h.plat.answers(k); !slices.Equal(got, []string{"hi"}) {
		t.Errorf("answers after the restart = %q, want [hi]", got)
	}
}

// A turn whose answer was shown but could not be stored is not answered
// again after a restart.
func TestFailedSaveNotReplayed(t *testing.T) {
	h := newHarness(t, nil)
	h.stop()
	hs := &hookStore{}
	hs.failSave.Store(1)
	h.startHooked(hs)
	k := key("save")
	h.model.Push(text("answer one"))
	h.send(k, "U1", "question", "E1")
	h.plat.waitDone(t, 1)
	h.stop()
	h.model.Push(text("answer two"))
	h.start()
	h.send(k, "U1", "next", "E2")
	h.plat.waitDone(t, 1)
	if got := h.plat.answers(k); !slices.Equal(got, []string{"answer two"}) {
		t.Errorf("answers after the restart = %q, want only the next message's", got)
	}
	if got := lastUser(h.model.Requests()[1]); got != "next" {
		t.Errorf("the model was asked %q after the restart", got)
	}
}

// A message whose turns end with the process (say it makes the bot crash
// before any tool call) is run at most three times, then given up on and
// reported, not replayed at every start.
func TestCrashLoopBounded(t *testing.T) {
	h := newHarness(t, nil)
	blockingModel(h)
	held := make(chan struct{}, 10)
	var old []*session.Manager
	var oldDBs []*storage.SQLite
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for i, m := range old {
			_ = m.Shutdown(ctx)
			_ = oldDBs[i].Close()
		}
	}()
	h.stop()
	h.startWith(thinkingModel{held: held, next: h.model})
	k := key("poison")
	h.send(k, "U1", "ponder", "E1")
	for range 3 {
		<-held // the message is running
		old, oldDBs = append(old, h.m), append(oldDBs, h.db)
		h.startWith(thinkingModel{held: held, next: h.model}) // crash, start again
	}
	if ids := inboxIDs(t, h.db); len(ids) != 0 {
		t.Errorf("inbox after three crashed attempts = %q, want empty", ids)
	}
	if got := h.notices(k); len(got) != 1 || !strings.Contains(got[0], "3 times") {
		t.Errorf("notices = %q, want the thread told it was given up", got)
	}
	select {
	case <-held:
		t.Error("the message ran a fourth time")
	default:
	}
}

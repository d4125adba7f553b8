package session_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/core/session"
)

// TestKnownCanDecideActive covers what adapters ask before acting: whether
// the bot takes part in a thread (also after a restart), who may decide an
// approval, and which threads of a channel are busy.
func TestKnownCanDecideActive(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	k := key("q")
	if ok, err := h.m.Known(ctx, k); err != nil || ok {
		t.Fatalf("Known before any message = %v, %v; want false", ok, err)
	}
	h.model.Push(tools(tc("c1", "Shell", `{"cmd":"ls"}`)), text("Listed."))
	h.send(k, "U1", "list files", "E1")
	a := h.plat.waitApproval(t)

	if ok, err := h.m.Known(ctx, k); err != nil || !ok {
		t.Errorf("Known during a turn = %v, %v; want true", ok, err)
	}
	act := h.m.Active(session.Key{Platform: "test", Workspace: "W", Channel: "C"})
	if len(act) != 1 || act[0].Key != k || act[0].Requester != "U1" || !act[0].Running {
		t.Errorf("Active = %+v, want thread q running for U1", act)
	}
	if act := h.m.Active(session.Key{Platform: "test", Workspace: "W", Channel: "other"}); len(act) != 0 {
		t.Errorf("Active(other channel) = %+v, want none", act)
	}
	for _, tt := range []struct {
		user  string
		admin bool
		want  error
	}{
		{"U1", false, nil},
		{"U2", false, session.ErrNotAllowed},
		{"U2", true, nil},
		{"ADMIN", false, nil},
	} {
		if err := h.m.CanDecide(ctx, a.ID, tt.user, tt.admin); !errors.Is(err, tt.want) {
			t.Errorf("CanDecide(%s, admin=%v) = %v, want %v", tt.user, tt.admin, err, tt.want)
		}
	}
	if err := h.m.CanDecide(ctx, "nope", "U1", false); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("CanDecide(unknown) = %v, want ErrNotFound", err)
	}
	if err := h.m.Decide(ctx, a.ID, "U1", false, executor.Decision{Approved: true}); err != nil {
		t.Fatal(err)
	}
	h.plat.waitDone(t, 1)
	if err := h.m.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if act := h.m.Active(k); len(act) != 0 {
		t.Errorf("Active after the turn = %+v, want none", act)
	}

	h.stop()
	h.start()
	if ok, err := h.m.Known(ctx, k); err != nil || !ok {
		t.Errorf("Known after a restart = %v, %v; want true (from storage)", ok, err)
	}
	if ok, _ := h.m.Known(ctx, key("never")); ok {
		t.Error("Known(a thread never seen) = true")
	}
}

// A crash between posting a request and storing its message reference
// leaves the reference unknown; a click on the message supplies it, so the
// request still loses its buttons.
func TestDecideFromSuppliesLostMessageRef(t *testing.T) {
	h := newHarness(t, nil)
	k := key("lost")
	h.model.Push(tools(tc("c1", "Shell", `{"cmd":"make"}`)), text("Built."))
	h.send(k, "U1", "build", "E1")
	a := h.plat.waitApproval(t)
	h.stop()
	db, err := sql.Open("sqlite", filepath.Join(h.dir, "bot.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE pending_approvals SET message_ref = '' WHERE id = $1`, a.ID); err != nil {
		t.Fatal(err)
	}
	db.Close()
	h.start()
	if err := h.m.DecideFrom(context.Background(), a.ID, "clicked-msg", "U1", false, executor.Decision{Approved: true}); err != nil {
		t.Fatal(err)
	}
	h.plat.waitDone(t, 1)
	var resolved []session.Ref
	for _, e := range h.plat.events(k) {
		if e.Op == "resolve" {
			resolved = append(resolved, e.Ref)
		}
	}
	if len(resolved) != 1 || resolved[0] != "clicked-msg" {
		t.Errorf("resolved refs = %q, want the clicked message", resolved)
	}
}

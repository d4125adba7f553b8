package storagetest

import (
	"reflect"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/storage"
)

func testInbox(t *testing.T, s storage.Store) {
	ctx := t.Context()
	msg := func(id string, received time.Time) storage.Inbound {
		return storage.Inbound{
			Key:     storage.SessionKey{Platform: "slack", Workspace: "T1", Channel: "C1", Thread: "1.0"},
			EventID: id, User: "U1", UserName: "ana", Text: "hello " + id, IsAdmin: id == "E2",
			Received: received,
		}
	}
	add := func(m storage.Inbound) bool {
		t.Helper()
		first, err := s.AddInbound(ctx, m)
		if err != nil {
			t.Fatalf("AddInbound(%s): %v", m.EventID, err)
		}
		return first
	}
	inbox := func() []storage.Inbound {
		t.Helper()
		ms, err := s.Inbox(ctx)
		if err != nil {
			t.Fatalf("Inbox: %v", err)
		}
		return ms
	}
	ids := func(ms []storage.Inbound) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.EventID)
		}
		return out
	}

	if got := inbox(); len(got) != 0 {
		t.Fatalf("new store's inbox = %v", ids(got))
	}
	// Received order, and insertion order for equal times.
	for _, m := range []storage.Inbound{msg("E3", at(2*time.Second)), msg("E1", at(0)), msg("E2", at(0))} {
		if !add(m) {
			t.Errorf("AddInbound(%s) = false for a new message", m.EventID)
		}
	}
	dup := msg("E1", at(time.Hour))
	dup.Text = "changed"
	if add(dup) {
		t.Error("AddInbound of a stored event = true")
	}
	got := inbox()
	if want := []string{"E1", "E2", "E3"}; !reflect.DeepEqual(ids(got), want) {
		t.Fatalf("inbox order = %v, want %v", ids(got), want)
	}
	if want := msg("E1", at(0)); !reflect.DeepEqual(got[0], want) {
		t.Errorf("stored message = %+v\nwant %+v", got[0], want)
	}
	if !got[1].IsAdmin || got[0].IsAdmin {
		t.Error("IsAdmin not kept")
	}

	if err := s.SetInboundText(ctx, "slack", "E3", "hello E3 with a note"); err != nil {
		t.Fatalf("SetInboundText: %v", err)
	}
	if got := inbox(); got[2].Text != "hello E3 with a note" || got[0].Text != "hello E1" {
		t.Errorf("after SetInboundText(E3): texts %q, %q", got[0].Text, got[2].Text)
	}
	wantErr(t, "SetInboundText(unknown)", s.SetInboundText(ctx, "slack", "nope", "x"), storage.ErrNotFound)
	if err := s.StartInbound(ctx, "slack", "E2", "ts-9", at(time.Minute)); err != nil {
		t.Fatalf("StartInbound: %v", err)
	}
	got = inbox()
	if !got[1].Started.Equal(at(time.Minute)) || got[1].StatusRef != "ts-9" || !got[0].Started.IsZero() {
		t.Errorf("after StartInbound(E2): %+v", got)
	}
	if got[1].Attempts != 1 || got[0].Attempts != 0 {
		t.Errorf("attempts after one start = %d and %d, want 1 and 0", got[1].Attempts, got[0].Attempts)
	}
	if err := s.StartInbound(ctx, "slack", "E2", "ts-10", at(90*time.Second)); err != nil {
		t.Fatalf("StartInbound again: %v", err)
	}
	if got = inbox(); got[1].Attempts != 2 || got[1].StatusRef != "ts-10" {
		t.Errorf("after a second start: %+v", got[1])
	}
	wantErr(t, "StartInbound(unknown)", s.StartInbound(ctx, "slack", "nope", "", time.Time{}), storage.ErrNotFound)
	// The first tool call is recorded once; a second call keeps the time.
	for _, d := range []time.Duration{2 * time.Minute, 3 * time.Minute} {
		if err := s.ActedInbound(ctx, "slack", "E2", at(d)); err != nil {
			t.Fatalf("ActedInbound: %v", err)
		}
	}
	if got := inbox(); !got[1].Acted.Equal(at(2*time.Minute)) || !got[0].Acted.IsZero() {
		t.Errorf("after ActedInbound(E2): acted %v and %v", got[1].Acted, got[0].Acted)
	}
	wantErr(t, "ActedInbound(unknown)", s.ActedInbound(ctx, "slack", "nope", time.Time{}), storage.ErrNotFound)
	_, err := s.AddInbound(ctx, storage.Inbound{Key: storage.SessionKey{Platform: "slack"}, Text: "x"})
	wantErr(t, "AddInbound(no event id)", err, storage.ErrInvalid)

	// SaveTurn with the event removes its row; other platforms' rows stay.
	other := msg("E1", at(0))
	other.Key.Platform = "discord"
	add(other)
	ensure(t, s, "s1")
	saveTurn(t, s, storage.Turn{SessionID: "s1", Messages: sampleMessages("s1", base), EventPlatform: "slack", EventID: "E1"})
	if got := inbox(); !reflect.DeepEqual(ids(got), []string{"E2", "E1", "E3"}) || got[1].Key.Platform != "discord" {
		t.Errorf("after SaveTurn(slack/E1): %v", got)
	}

	// DropInbound removes the row and marks the event, so it is not
	// accepted again; a missing row is fine.
	if err := s.DropInbound(ctx, "slack", "E2"); err != nil {
		t.Fatalf("DropInbound: %v", err)
	}
	if err := s.DropInbound(ctx, "slack", "never-there"); err != nil {
		t.Errorf("DropInbound(missing): %v", err)
	}
	if seen, err := s.EventSeen(ctx, "slack", "E2"); err != nil || !seen {
		t.Errorf("EventSeen after DropInbound = %v, %v", seen, err)
	}
	if got := ids(inbox()); !reflect.DeepEqual(got, []string{"E1", "E3"}) {
		t.Errorf("after DropInbound(E2): %v", got)
	}
	wantErr(t, "DropInbound(empty id)", s.DropInbound(ctx, "slack", ""), storage.ErrInvalid)
}

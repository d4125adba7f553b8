package storagetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/threadbot/threadbot/internal/core/vars"
	"github.com/threadbot/threadbot/internal/storage"
)

func testEvents(t *testing.T, s storage.Store) {
	ctx := t.Context()
	seen := func(platform, id string) bool {
		t.Helper()
		ok, err := s.EventSeen(ctx, platform, id)
		if err != nil {
			t.Fatalf("EventSeen(%s, %s): %v", platform, id, err)
		}
		return ok
	}
	mark := func(platform, id string) bool {
		t.Helper()
		first, err := s.MarkEvent(ctx, platform, id)
		if err != nil {
			t.Fatalf("MarkEvent(%s, %s): %v", platform, id, err)
		}
		return first
	}
	if seen("slack", "Ev1") {
		t.Error("EventSeen before MarkEvent = true")
	}
	if !mark("slack", "Ev1") {
		t.Error("first MarkEvent = false, want true")
	}
	if mark("slack", "Ev1") {
		t.Error("second MarkEvent = true, want false (duplicate)")
	}
	if !seen("slack", "Ev1") {
		t.Error("EventSeen after MarkEvent = false")
	}
	if seen("discord", "Ev1") || !mark("discord", "Ev1") {
		t.Error("the same id on another platform is another event")
	}
	_, err := s.MarkEvent(ctx, "slack", "")
	wantErr(t, "MarkEvent(empty id)", err, storage.ErrInvalid)

	// SaveTurn marks its event.
	ensure(t, s, "s1")
	saveTurn(t, s, storage.Turn{SessionID: "s1", Messages: sampleMessages("s1", base), EventPlatform: "slack", EventID: "Ev2"})
	if !seen("slack", "Ev2") {
		t.Error("EventSeen after SaveTurn with its id = false")
	}
	if mark("slack", "Ev2") {
		t.Error("MarkEvent after SaveTurn recorded the event again")
	}
}

func testDuplicateEvent(t *testing.T, s storage.Store) {
	ctx := t.Context()
	ensure(t, s, "s1")
	if err := s.SavePending(ctx, pending("p1", "s1", base, at(1e12)), nil, nil); err != nil {
		t.Fatalf("SavePending: %v", err)
	}
	vs := Vars(5, "v", base)
	saveTurn(t, s, storage.Turn{
		SessionID: "s1", Messages: sampleMessages("s1", base), VarUpserts: vs,
		Audit:         []storage.AuditEntry{{Kind: storage.AuditToolCall, Tool: "read", At: base}},
		EventPlatform: "slack", EventID: "Ev1",
	})
	before := load(t, s, "s1")
	auditBefore, err := s.Audit(ctx, "", 0)
	if err != nil {
		t.Fatalf("Audit: %v", err)
	}

	// A redelivery of the same event: every part of the turn differs, and
	// none of it may be written.
	changed := vs[0]
	changed.Value = "overwritten"
	redelivered := storage.Turn{
		SessionID:      "s1",
		Messages:       []storage.Message{{Role: "user", Content: "again"}},
		VarUpserts:     []vars.Variable{changed, {Name: "new", Value: "x", Type: vars.TypeLLMAdd}},
		VarRemoved:     []string{vs[1].Name},
		Audit:          []storage.AuditEntry{{Kind: storage.AuditToolCall, Tool: "bash"}},
		Decisions:      []storage.Decision{{Key: "k", Tool: "bash", Approved: true}},
		ResolvePending: []string{"p1"},
		EventPlatform:  "slack", EventID: "Ev1",
	}
	wantErr(t, "SaveTurn with a processed event", s.SaveTurn(ctx, redelivered), storage.ErrDuplicateEvent)

	// An event marked by MarkEvent is a duplicate for SaveTurn too.
	if first, err := s.MarkEvent(ctx, "slack", "Ev2"); err != nil || !first {
		t.Fatalf("MarkEvent(Ev2) = %v, %v", first, err)
	}
	redelivered.EventID = "Ev2"
	wantErr(t, "SaveTurn with a marked event", s.SaveTurn(ctx, redelivered), storage.ErrDuplicateEvent)

	equal(t, "session after duplicate turns", load(t, s, "s1"), before)
	auditAfter, err := s.Audit(ctx, "", 0)
	if err != nil {
		t.Fatalf("Audit: %v", err)
	}
	equal(t, "audit after duplicate turns", auditAfter, auditBefore)
	if _, err := s.GetPending(ctx, "p1"); err != nil {
		t.Errorf("approval resolved by a duplicate turn: %v", err)
	}

	// The same event delivered to ten workers at once is saved once.
	const workers = 10
	results := make(chan error, workers)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Go(func() {
			results <- s.SaveTurn(ctx, storage.Turn{
				SessionID:     "s1",
				Messages:      []storage.Message{{Role: "user", Content: fmt.Sprintf("worker %d", i)}},
				EventPlatform: "slack", EventID: "Ev3",
			})
		})
	}
	wg.Wait()
	close(results)
	saved := 0
	for err := range results {
		switch {
		case err == nil:
			saved++
		case !errors.Is(err, storage.ErrDuplicateEvent):
			t.Errorf("concurrent SaveTurn: %v", err)
		}
	}
	if n := len(load(t, s, "s1").Messages); saved != 1 || n != len(before.Messages)+1 {
		t.Errorf("one event from %d workers: %d saved, %d messages; want 1 saved, %d messages",
			workers, saved, n, len(before.Messages)+1)
	}
}

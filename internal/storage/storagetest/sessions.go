package storagetest

import (
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/storage"
)

func testSessions(t *testing.T, s storage.Store) {
	ctx := t.Context()
	if _, err := s.GetSession(ctx, "nope"); err == nil {
		t.Fatal("GetSession(unknown): no error")
	} else {
		wantErr(t, "GetSession(unknown)", err, storage.ErrNotFound)
	}
	_, err := s.FindSession(ctx, storage.SessionKey{Platform: "test", Thread: "nope"})
	wantErr(t, "FindSession(unknown)", err, storage.ErrNotFound)
	_, err = s.EnsureSession(ctx, storage.Session{})
	wantErr(t, "EnsureSession(empty id)", err, storage.ErrInvalid)

	in := Session("s1")
	in.Settings = map[string]string{"history": "native", "max_rounds": "5"}
	got, err := s.EnsureSession(ctx, in)
	if err != nil {
		t.Fatalf("EnsureSession: %v", err)
	}
	equal(t, "EnsureSession (new)", got, in)

	again := in
	again.Created, again.Updated = at(time.Hour), at(time.Hour)
	again.Settings = map[string]string{"history": "compressed"}
	got, err = s.EnsureSession(ctx, again)
	if err != nil {
		t.Fatalf("EnsureSession (existing): %v", err)
	}
	equal(t, "EnsureSession (existing) keeps the stored session", got, in)

	got, err = s.GetSession(ctx, "s1")
	if err != nil {
		t.Fatalf("GetSession: %v", err)
	}
	equal(t, "GetSession", got, in)
	got, err = s.FindSession(ctx, in.Key)
	if err != nil {
		t.Fatalf("FindSession: %v", err)
	}
	equal(t, "FindSession", got, in)

	// Zero times take the store's clock.
	before := time.Now().Add(-time.Minute)
	fresh, err := s.EnsureSession(ctx, storage.Session{ID: "s0", Key: storage.SessionKey{Platform: "test", Thread: "0"}})
	if err != nil {
		t.Fatalf("EnsureSession (zero times): %v", err)
	}
	if fresh.Created.Before(before) || !fresh.Updated.Equal(fresh.Created) {
		t.Errorf("EnsureSession (zero times): Created %v Updated %v, want now", fresh.Created, fresh.Updated)
	}

	settings := map[string]string{"history": "compressed"}
	if err := s.UpdateSessionSettings(ctx, "s1", settings); err != nil {
		t.Fatalf("UpdateSessionSettings: %v", err)
	}
	got, _ = s.GetSession(ctx, "s1")
	equal(t, "settings after update", got.Settings, settings)
	if err := s.UpdateSessionSettings(ctx, "s1", nil); err != nil {
		t.Fatalf("UpdateSessionSettings(nil): %v", err)
	}
	got, _ = s.GetSession(ctx, "s1")
	equal(t, "settings after clearing", got.Settings, map[string]string(nil))
	wantErr(t, "UpdateSessionSettings(unknown)", s.UpdateSessionSettings(ctx, "nope", settings), storage.ErrNotFound)

	s2 := Session("s2")
	s2.Updated = at(time.Hour)
	if _, err := s.EnsureSession(ctx, s2); err != nil {
		t.Fatalf("EnsureSession(s2): %v", err)
	}
	list, err := s.ListSessions(ctx)
	if err != nil {
		t.Fatalf("ListSessions: %v", err)
	}
	var ids []string
	for _, l := range list {
		ids = append(ids, l.ID)
	}
	equal(t, "ListSessions order (most recently updated first)", ids, []string{"s0", "s2", "s1"})
}

func testDeleteSession(t *testing.T, s storage.Store) {
	ctx := t.Context()
	ensure(t, s, "keep")
	ensure(t, s, "gone")
	for _, id := range []string{"keep", "gone"} {
		saveTurn(t, s, storage.Turn{
			SessionID:  id,
			Messages:   sampleMessages(id, base),
			VarUpserts: Vars(3, id, base),
			Decisions:  []storage.Decision{{Key: "web_fetch {}", Tool: "web_fetch", Approved: true}},
			Audit:      []storage.AuditEntry{{Kind: storage.AuditToolCall, Tool: "web_fetch"}},
		})
		if err := s.SavePending(ctx, storage.PendingApproval{ID: "p-" + id, SessionID: id, Kind: storage.KindExecution}, nil, nil); err != nil {
			t.Fatalf("SavePending: %v", err)
		}
	}
	if err := s.DeleteSession(ctx, "gone"); err != nil {
		t.Fatalf("DeleteSession: %v", err)
	}
	wantErr(t, "DeleteSession again", s.DeleteSession(ctx, "gone"), storage.ErrNotFound)
	_, err := s.LoadSession(ctx, "gone")
	wantErr(t, "LoadSession(deleted)", err, storage.ErrNotFound)
	_, err = s.GetPending(ctx, "p-gone")
	wantErr(t, "GetPending of a deleted session", err, storage.ErrNotFound)
	if msgs, err := s.Messages(ctx, "gone", 0); err != nil || len(msgs) != 0 {
		t.Errorf("Messages(deleted) = %d messages, %v; want none", len(msgs), err)
	}
	if a, err := s.Audit(ctx, "gone", 0); err != nil || len(a) != 1 {
		t.Errorf("Audit(deleted) = %d rows, %v; want the 1 row kept", len(a), err)
	}

	snap := load(t, s, "keep")
	if len(snap.Messages) != 2 || len(snap.Vars) != 3 || len(snap.Decisions) != 1 {
		t.Errorf("other session: %d messages, %d vars, %d decisions; want 2, 3, 1",
			len(snap.Messages), len(snap.Vars), len(snap.Decisions))
	}
	if _, err := s.GetPending(ctx, "p-keep"); err != nil {
		t.Errorf("GetPending of the other session: %v", err)
	}
}

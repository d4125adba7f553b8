package storagetest

import (
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/storage"
)

func pending(id, sessionID string, created, expires time.Time) storage.PendingApproval {
	return storage.PendingApproval{
		ID: id, SessionID: sessionID, CallID: "call_" + id, Tool: "bash",
		ArgsSummary: `bash(cmd="ls -la")`, Requester: "U1", MessageRef: "C1/1700000000.0002",
		Kind: storage.KindExecution, Checkpoint: []byte(`{"round":2,"messages":[]}`),
		Status: storage.StatusPending, Created: created, Expires: expires,
	}
}

func normPending(p storage.PendingApproval) storage.PendingApproval {
	p.Created, p.Expires, p.Decided = utc(p.Created), utc(p.Expires), utc(p.Decided)
	if len(p.Checkpoint) == 0 {
		p.Checkpoint = nil
	}
	return p
}

func ids(ps []storage.PendingApproval) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

func testPending(t *testing.T, s storage.Store) {
	ctx := t.Context()
	ensure(t, s, "s1")
	p := pending("p1", "s1", base, at(5*time.Minute))
	p.Status = "" // saved as pending
	wantErr(t, "SavePending(unknown session)", s.SavePending(ctx, pending("px", "nope", base, base), nil, nil), storage.ErrNotFound)
	wantErr(t, "SavePending(empty id)", s.SavePending(ctx, pending("", "s1", base, base), nil, nil), storage.ErrInvalid)
	bad := pending("px", "s1", base, base)
	bad.Status = "maybe"
	wantErr(t, "SavePending(bad status)", s.SavePending(ctx, bad, nil, nil), storage.ErrInvalid)

	// The approval and the session's variables in one call.
	vs := Vars(4, "bash_call_p1", base)
	if err := s.SaveVars(ctx, "s1", Vars(2, "old", base), nil); err != nil {
		t.Fatalf("SaveVars: %v", err)
	}
	if err := s.SavePending(ctx, p, vs, []string{Vars(1, "old", base)[0].Name}); err != nil {
		t.Fatalf("SavePending: %v", err)
	}
	got, err := s.GetPending(ctx, "p1")
	if err != nil {
		t.Fatalf("GetPending: %v", err)
	}
	p.Status = storage.StatusPending
	equal(t, "GetPending", got, normPending(p))
	equal(t, "vars saved with the approval", load(t, s, "s1").Vars, normVars(append(vs, Vars(2, "old", base)[1])))
	_, err = s.GetPending(ctx, "nope")
	wantErr(t, "GetPending(unknown)", err, storage.ErrNotFound)

	// Saving again replaces it (the adapter's message reference arrives late).
	p.MessageRef = "C1/1700000000.0003"
	if err := s.SavePending(ctx, p, nil, nil); err != nil {
		t.Fatalf("SavePending (update): %v", err)
	}
	if got, _ := s.GetPending(ctx, "p1"); got.MessageRef != p.MessageRef {
		t.Errorf("MessageRef = %q, want %q", got.MessageRef, p.MessageRef)
	}

	// Decide once; the second click gets the stored decision.
	_, err = s.DecidePending(ctx, "p1", storage.StatusPending, "U1", "", at(1))
	wantErr(t, "DecidePending(pending)", err, storage.ErrInvalid)
	_, err = s.DecidePending(ctx, "nope", storage.StatusApproved, "U1", "", at(1))
	wantErr(t, "DecidePending(unknown)", err, storage.ErrNotFound)
	decided, err := s.DecidePending(ctx, "p1", storage.StatusApproved, "U1", "looks fine", at(time.Minute))
	if err != nil {
		t.Fatalf("DecidePending: %v", err)
	}
	want := normPending(p)
	want.Status, want.DecidedBy, want.Reason, want.Decided = storage.StatusApproved, "U1", "looks fine", at(time.Minute)
	equal(t, "DecidePending", decided, want)
	again, err := s.DecidePending(ctx, "p1", storage.StatusRejected, "U2", "no", at(2*time.Minute))
	wantErr(t, "DecidePending twice", err, storage.ErrAlreadyDecided)
	equal(t, "DecidePending twice returns the first decision", again, want)
	got, _ = s.GetPending(ctx, "p1")
	equal(t, "GetPending after two decisions", got, want)

	// Zero at takes the store's clock.
	if err := s.SavePending(ctx, pending("p2", "s1", base, time.Time{}), nil, nil); err != nil {
		t.Fatalf("SavePending(p2): %v", err)
	}
	before := time.Now().Add(-time.Minute)
	if d, err := s.DecidePending(ctx, "p2", storage.StatusRejected, "U1", "", time.Time{}); err != nil || d.Decided.Before(before) {
		t.Errorf("DecidePending(zero at) = %v, %v; want the store's clock", d.Decided, err)
	}

	if err := s.DeletePending(ctx, "p2"); err != nil {
		t.Fatalf("DeletePending: %v", err)
	}
	wantErr(t, "DeletePending again", s.DeletePending(ctx, "p2"), storage.ErrNotFound)

	// A saved turn resolves its approvals, and only its session's.
	ensure(t, s, "s2")
	if err := s.SavePending(ctx, pending("other", "s2", base, time.Time{}), nil, nil); err != nil {
		t.Fatalf("SavePending(other): %v", err)
	}
	saveTurn(t, s, storage.Turn{SessionID: "s1", Messages: sampleMessages("s1", base), ResolvePending: []string{"p1", "other"}})
	_, err = s.GetPending(ctx, "p1")
	wantErr(t, "GetPending after the turn resolved it", err, storage.ErrNotFound)
	if _, err := s.GetPending(ctx, "other"); err != nil {
		t.Errorf("approval of another session resolved by a turn: %v", err)
	}
}

func testRecoverPending(t *testing.T, s storage.Store) {
	ctx := t.Context()
	ensure(t, s, "s1")
	ensure(t, s, "s2")
	now := at(time.Hour)
	save := func(p storage.PendingApproval) {
		t.Helper()
		if err := s.SavePending(ctx, p, nil, nil); err != nil {
			t.Fatalf("SavePending(%s): %v", p.ID, err)
		}
	}
	save(pending("live", "s1", at(1), now.Add(10*time.Minute)))
	save(pending("past", "s1", at(2), now.Add(-time.Nanosecond)))
	save(pending("at-now", "s2", at(3), now))
	save(pending("forever", "s2", at(4), time.Time{}))
	decided := pending("approved-unsaved", "s1", at(5), now.Add(-time.Minute)) // decided, then crashed
	decided.Status, decided.DecidedBy, decided.Decided = storage.StatusApproved, "U1", at(30*time.Minute)
	save(decided)
	old := pending("told-not-deleted", "s2", at(6), at(time.Minute))
	old.Status, old.Reason, old.Decided = storage.StatusExpired, "expired", at(time.Minute)
	save(old)

	live, expired, err := s.RecoverPending(ctx, now)
	if err != nil {
		t.Fatalf("RecoverPending: %v", err)
	}
	equal(t, "live", ids(live), []string{"live", "forever", "approved-unsaved"})
	equal(t, "expired", ids(expired), []string{"past", "at-now", "told-not-deleted"})
	if len(live) > 0 {
		equal(t, "live approval keeps its checkpoint", live[0], normPending(pending("live", "s1", at(1), now.Add(10*time.Minute))))
	}
	for _, p := range expired {
		if p.Status != storage.StatusExpired {
			t.Errorf("expired %s has status %q", p.ID, p.Status)
		}
		got, err := s.GetPending(ctx, p.ID)
		if err != nil {
			t.Fatalf("GetPending(%s): %v", p.ID, err)
		}
		equal(t, "stored expired approval", got, p)
	}
	if p, _ := s.GetPending(ctx, "past"); !p.Decided.Equal(now) || len(p.Checkpoint) == 0 {
		t.Errorf("expired approval: Decided %v (want %v), checkpoint %q", p.Decided, now, p.Checkpoint)
	}
	_, err = s.DecidePending(ctx, "past", storage.StatusApproved, "U1", "", now)
	wantErr(t, "DecidePending after expiry", err, storage.ErrAlreadyDecided)

	// Until they are deleted, expired ones are reported again.
	live2, expired2, err := s.RecoverPending(ctx, now)
	if err != nil {
		t.Fatalf("RecoverPending (again): %v", err)
	}
	equal(t, "live (again)", ids(live2), ids(live))
	equal(t, "expired (again)", ids(expired2), ids(expired))
	for _, p := range expired {
		if err := s.DeletePending(ctx, p.ID); err != nil {
			t.Fatalf("DeletePending(%s): %v", p.ID, err)
		}
	}
	_, expired3, err := s.RecoverPending(ctx, now)
	if err != nil || len(expired3) != 0 {
		t.Errorf("RecoverPending after deleting = %v, %v; want no expired", ids(expired3), err)
	}
}

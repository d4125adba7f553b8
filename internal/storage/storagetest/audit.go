package storagetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/storage"
)

func testAudit(t *testing.T, s storage.Store) {
	ctx := t.Context()
	if err := s.AppendAudit(ctx); err != nil {
		t.Fatalf("AppendAudit(): %v", err)
	}
	wantErr(t, "AppendAudit(no kind)", s.AppendAudit(ctx, storage.AuditEntry{SessionID: "s1"}), storage.ErrInvalid)

	var entries []storage.AuditEntry
	for i := range 6 {
		entries = append(entries, storage.AuditEntry{
			SessionID: []string{"s1", "s2", ""}[i%3],
			Kind:      []string{storage.AuditToolCall, storage.AuditDecision}[i%2],
			Tool:      "bash", CallID: fmt.Sprintf("c%d", i), Status: "SUCCESS", Actor: "U1",
			Detail:   fmt.Sprintf(`{"i":%d}`, i),
			Duration: time.Duration(i)*time.Second + 17,
			At:       at(time.Duration(i) * time.Minute),
		})
	}
	if err := s.AppendAudit(ctx, entries...); err != nil {
		t.Fatalf("AppendAudit: %v", err)
	}
	check := func(sessionID string, limit int, want ...int) {
		t.Helper()
		got, err := s.Audit(ctx, sessionID, limit)
		if err != nil {
			t.Fatalf("Audit(%q, %d): %v", sessionID, limit, err)
		}
		var prev int64
		for i := range got {
			if got[i].ID <= prev {
				t.Errorf("Audit(%q, %d): row %d ID %d after %d", sessionID, limit, i, got[i].ID, prev)
			}
			prev, got[i].ID = got[i].ID, 0
		}
		var wantRows []storage.AuditEntry
		for _, w := range want {
			wantRows = append(wantRows, entries[w])
		}
		equal(t, fmt.Sprintf("Audit(%q, %d)", sessionID, limit), got, wantRows)
	}
	check("s1", 0, 0, 3)
	check("s1", 1, 3)
	check("s2", 5, 1, 4)
	check("", 0, 0, 1, 2, 3, 4, 5)
	check("", 2, 4, 5)
	check("nope", 0)

	before := time.Now().Add(-time.Minute)
	if err := s.AppendAudit(ctx, storage.AuditEntry{Kind: storage.AuditDecision}); err != nil {
		t.Fatalf("AppendAudit(zero At): %v", err)
	}
	got, err := s.Audit(ctx, "", 1)
	if err != nil || len(got) != 1 || got[0].At.Before(before) {
		t.Errorf("audit row with zero At = %+v, %v; want the store's clock", got, err)
	}
}

func testPrune(t *testing.T, s storage.Store) {
	ctx := t.Context()
	now := at(1000 * time.Hour)
	var entries []storage.AuditEntry
	for _, age := range []time.Duration{100 * time.Hour, 49 * time.Hour, 48 * time.Hour, 47 * time.Hour, time.Hour} {
		entries = append(entries, storage.AuditEntry{Kind: storage.AuditToolCall, Detail: age.String(), At: now.Add(-age)})
	}
	if err := s.AppendAudit(ctx, entries...); err != nil {
		t.Fatalf("AppendAudit: %v", err)
	}
	start := time.Now()
	for i := range 3 {
		if _, err := s.MarkEvent(ctx, "slack", fmt.Sprint(i)); err != nil {
			t.Fatalf("MarkEvent: %v", err)
		}
	}

	// Zero durations keep everything.
	a, e, err := s.Prune(ctx, now.Add(1e6*time.Hour), 0, 0)
	if err != nil || a != 0 || e != 0 {
		t.Errorf("Prune(0, 0) = %d, %d, %v; want nothing deleted", a, e, err)
	}
	// Audit older than 48h: the rows at 100h and 49h (48h is not older).
	// Events were marked after start, so none is older than start-1h.
	a, e, err = s.Prune(ctx, now, 48*time.Hour, 0)
	if err != nil || a != 2 || e != 0 {
		t.Errorf("Prune(48h, 0) = %d, %d, %v; want 2, 0", a, e, err)
	}
	a, e, err = s.Prune(ctx, start, 0, time.Hour)
	if err != nil || a != 0 || e != 0 {
		t.Errorf("Prune(events older than start-1h) = %d, %d, %v; want 0, 0", a, e, err)
	}
	left, err := s.Audit(ctx, "", 0)
	if err != nil {
		t.Fatalf("Audit: %v", err)
	}
	var ages []string
	for _, l := range left {
		ages = append(ages, l.Detail)
	}
	equal(t, "audit rows left", ages, []string{"48h0m0s", "47h0m0s", "1h0m0s"})
	if seen, _ := s.EventSeen(ctx, "slack", "0"); !seen {
		t.Error("recent event pruned")
	}

	// All events are older than an hour two hours from now.
	a, e, err = s.Prune(ctx, time.Now().Add(2*time.Hour), 0, time.Hour)
	if err != nil || a != 0 || e != 3 {
		t.Errorf("Prune(events older than now+1h) = %d, %d, %v; want 0, 3", a, e, err)
	}
	if seen, _ := s.EventSeen(ctx, "slack", "0"); seen {
		t.Error("pruned event still seen")
	}
}

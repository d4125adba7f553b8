package storagetest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/threadbot/threadbot/internal/storage"
)

// testConcurrent runs 50 sessions at once, as 50 busy threads would: each
// goroutine creates its session and saves turns (one message, 20 variables,
// 3 audit rows, an event id), reading its session back between turns.
func testConcurrent(t *testing.T, s storage.Store) {
	const (
		sessions = 50
		turns    = 4
	)
	ctx := t.Context()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	for g := range sessions {
		wg.Go(func() {
			id := fmt.Sprintf("s%02d", g)
			if _, err := s.EnsureSession(ctx, Session(id)); err != nil {
				fail(err)
				return
			}
			for n := range turns {
				turn := storage.Turn{
					SessionID:     id,
					Messages:      []storage.Message{{Role: "user", Content: fmt.Sprintf("turn %d", n)}},
					VarUpserts:    Vars(20, fmt.Sprintf("t%d", n), base),
					EventPlatform: "test",
					EventID:       fmt.Sprintf("%s-%d", id, n),
				}
				for i := range 3 {
					turn.Audit = append(turn.Audit, storage.AuditEntry{Kind: storage.AuditToolCall, Tool: "read", CallID: fmt.Sprint(i)})
				}
				if err := s.SaveTurn(ctx, turn); err != nil {
					fail(err)
					return
				}
				if _, err := s.LoadSession(ctx, id); err != nil {
					fail(err)
					return
				}
				if _, err := s.EventSeen(ctx, "test", turn.EventID); err != nil {
					fail(err)
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	if len(errs) > 0 {
		t.FailNow()
	}
	for g := range sessions {
		snap := load(t, s, fmt.Sprintf("s%02d", g))
		if len(snap.Messages) != turns || len(snap.Vars) != 20*turns {
			t.Errorf("session %s: %d messages, %d vars; want %d, %d",
				snap.ID, len(snap.Messages), len(snap.Vars), turns, 20*turns)
		}
	}
	audit, err := s.Audit(ctx, "", 0)
	if err != nil || len(audit) != sessions*turns*3 {
		t.Errorf("audit rows = %d, %v; want %d", len(audit), err, sessions*turns*3)
	}
}

// Package storagetest is the conformance suite every storage.Store backend
// runs: SQLite today, PostgreSQL later. It imports storage and the core
// types only.
package storagetest

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/core/llm"
	"github.com/threadbot/threadbot/internal/core/vars"
	"github.com/threadbot/threadbot/internal/storage"
)

// Run runs the suite. open must return a new, empty, migrated store that
// uses the real clock; Run closes it when each subtest ends.
func Run(t *testing.T, open func(t *testing.T) storage.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s storage.Store)
	}{
		{"Sessions", testSessions},
		{"DeleteSession", testDeleteSession},
		{"TurnRoundTrip", testTurnRoundTrip},
		{"TurnErrors", testTurnErrors},
		{"Vars", testVars},
		{"Decisions", testDecisions},
		{"Events", testEvents},
		{"DuplicateEvent", testDuplicateEvent},
		{"Inbox", testInbox},
		{"Journal", testJournal},
		{"ToolSettings", testToolSettings},
		{"Pending", testPending},
		{"RecoverPending", testRecoverPending},
		{"Audit", testAudit},
		{"Prune", testPrune},
		{"Concurrent", testConcurrent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			tt.fn(t, s)
		})
	}
}

// base is a time with nanoseconds, so truncation to micro- or milliseconds
// shows up.
var base = time.Date(2025, 3, 4, 5, 6, 7, 123456789, time.UTC)

// at returns base plus d.
func at(d time.Duration) time.Time { return base.Add(d) }

// Session returns a session for tests, keyed by id on platform "test".
func Session(id string) storage.Session {
	return storage.Session{
		ID:      id,
		Key:     storage.SessionKey{Platform: "test", Workspace: "W1", Channel: "C1", Thread: id},
		Created: base,
		Updated: base,
	}
}

// Vars returns n variables with every field set and varied: tags or none,
// keep or not, times in another zone with nanoseconds, reference counts.
func Vars(n int, prefix string, t0 time.Time) []vars.Variable {
	zone := time.FixedZone("UTC+5:30", 5*3600+1800)
	out := make([]vars.Variable, n)
	for i := range out {
		v := vars.Variable{
			Name:        fmt.Sprintf("%s_%04d_result", prefix, i),
			Value:       fmt.Sprintf("value %d — ünïcode, \"quotes\", $VAR_REF{{x}}\nline 2", i),
			Desc:        fmt.Sprintf("result of call %d", i),
			Type:        vars.TypeToolCallResult,
			Created:     t0.Add(time.Duration(i) * time.Millisecond).In(zone),
			Updated:     t0.Add(time.Duration(i)*time.Millisecond + 7),
			LastVisited: t0.Add(time.Duration(n-i) * time.Nanosecond),
			RefCount:    i % 4,
		}
		if i%3 == 0 {
			v.Tags = []string{"web", fmt.Sprintf("call-%d", i)}
		}
		if i%5 == 0 {
			v.Keep, v.Type = true, vars.TypeRule
		}
		out[i] = v
	}
	return out
}

func sampleMessages(sessionID string, t0 time.Time) []storage.Message {
	return []storage.Message{
		{
			SessionID: sessionID, Role: "user", Content: "fetch https://example.com please",
			TokensSent: 12, Created: t0,
		},
		{
			Role: "assistant", Content: "<SYSTEM-CONTEXT>hint</SYSTEM-CONTEXT>\n---\nDone.",
			HintSize:   41,
			ChainJSON:  []byte(`{"status":"completed","rounds":1}`),
			NativeJSON: []byte(`[{"role":"tool","tool_call_id":"c1","content":"ok"}]`),
			Usage:      llm.Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120},
			TokensSent: 100,
			Created:    t0.Add(time.Second + 1),
		},
	}
}

func ensure(t *testing.T, s storage.Store, id string) storage.Session {
	t.Helper()
	sess, err := s.EnsureSession(t.Context(), Session(id))
	if err != nil {
		t.Fatalf("EnsureSession(%s): %v", id, err)
	}
	return sess
}

func saveTurn(t *testing.T, s storage.Store, turn storage.Turn) {
	t.Helper()
	if err := s.SaveTurn(t.Context(), turn); err != nil {
		t.Fatalf("SaveTurn(%s): %v", turn.SessionID, err)
	}
}

func load(t *testing.T, s storage.Store, id string) storage.Snapshot {
	t.Helper()
	snap, err := s.LoadSession(t.Context(), id)
	if err != nil {
		t.Fatalf("LoadSession(%s): %v", id, err)
	}
	return snap
}

func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: err = %v, want %v", what, err, target)
	}
}

// utc is what a store gives back for t: the same instant in UTC with no
// monotonic reading.
func utc(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.Round(0).UTC()
}

func normVars(vs []vars.Variable) []vars.Variable {
	var out []vars.Variable
	for _, v := range vs {
		v.Created, v.Updated, v.LastVisited = utc(v.Created), utc(v.Updated), utc(v.LastVisited)
		if len(v.Tags) == 0 {
			v.Tags = nil
		}
		out = append(out, v)
	}
	return out
}

func equal(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

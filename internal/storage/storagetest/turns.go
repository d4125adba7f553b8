package storagetest

import (
	"sort"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/core/vars"
	"github.com/threadbot/threadbot/internal/storage"
)

// normMessages is what a store gives back for msgs of sessionID, IDs aside.
func normMessages(sessionID string, msgs []storage.Message) []storage.Message {
	var out []storage.Message
	for _, m := range msgs {
		m.ID, m.SessionID, m.Created = 0, sessionID, utc(m.Created)
		out = append(out, m)
	}
	return out
}

// checkMessages compares messages, IDs aside, and checks that IDs are set
// and increase.
func checkMessages(t *testing.T, what string, got, want []storage.Message) {
	t.Helper()
	var prev int64
	stripped := make([]storage.Message, len(got))
	for i, m := range got {
		if m.ID <= prev {
			t.Errorf("%s: message %d has ID %d after %d", what, i, m.ID, prev)
		}
		prev = m.ID
		m.ID = 0
		stripped[i] = m
	}
	if len(got) == 0 {
		stripped = nil
	}
	equal(t, what, stripped, want)
}

func testTurnRoundTrip(t *testing.T, s storage.Store) {
	ctx := t.Context()
	ensure(t, s, "s1")
	msgs := sampleMessages("s1", base)
	vs := Vars(12, "web_fetch", base)
	decisions := []storage.Decision{
		{Key: `web_fetch {"url":"https://example.com"}`, Tool: "web_fetch", Approved: true, By: "U1", Created: at(2)},
		{SessionID: "s1", Key: storage.AlwaysAllowKey("read"), Tool: "read", Approved: true, Reason: "always in this thread", By: "U2", Created: at(3)},
		{Key: `bash {"cmd":"rm -rf /"}`, Tool: "bash", Approved: false, Reason: "no", By: "U1", Created: at(4)},
	}
	audit := []storage.AuditEntry{
		{Kind: storage.AuditDecision, Tool: "web_fetch", CallID: "c1", Status: "approved", Actor: "U1", At: at(5)},
		{Kind: storage.AuditToolCall, Tool: "web_fetch", CallID: "c1", Status: "SUCCESS", Actor: "U1", Detail: `{"url":"https://example.com"}`, Duration: 1234567891 * time.Nanosecond, At: at(6)},
	}
	saveTurn(t, s, storage.Turn{SessionID: "s1", Messages: msgs, VarUpserts: vs, Decisions: decisions, Audit: audit})

	snap := load(t, s, "s1")
	if snap.Updated.Equal(base) || snap.ID != "s1" || !snap.Created.Equal(base) {
		t.Errorf("session after a turn: %+v; want Created kept and Updated bumped", snap.Session)
	}
	checkMessages(t, "LoadSession messages", snap.Messages, normMessages("s1", msgs))
	equal(t, "LoadSession vars", snap.Vars, normVars(vs))
	wantDecisions := make([]storage.Decision, len(decisions))
	for i, d := range decisions {
		d.SessionID, d.Created = "s1", utc(d.Created)
		wantDecisions[i] = d
	}
	sort.Slice(wantDecisions, func(i, j int) bool { return wantDecisions[i].Key < wantDecisions[j].Key })
	equal(t, "LoadSession decisions", snap.Decisions, wantDecisions)

	gotAudit, err := s.Audit(ctx, "s1", 0)
	if err != nil {
		t.Fatalf("Audit: %v", err)
	}
	for i := range gotAudit {
		if gotAudit[i].ID == 0 {
			t.Errorf("audit row %d has no ID", i)
		}
		gotAudit[i].ID = 0
	}
	wantAudit := make([]storage.AuditEntry, len(audit))
	for i, a := range audit {
		a.SessionID, a.At = "s1", utc(a.At)
		wantAudit[i] = a
	}
	equal(t, "Audit after a turn", gotAudit, wantAudit)

	// A second turn: a message with a zero Created, one variable touched, one
	// removed, one added.
	touched := vs[1]
	touched.Value, touched.LastVisited, touched.RefCount, touched.Tags = "new value", at(time.Hour), 9, []string{"edited"}
	added := vars.Variable{Name: "a_first", Value: "x", Type: vars.TypeLLMAdd}
	before := time.Now().Add(-time.Minute)
	saveTurn(t, s, storage.Turn{
		SessionID:  "s1",
		Messages:   []storage.Message{{Role: "user", Content: "and again"}},
		VarUpserts: []vars.Variable{touched, added},
		VarRemoved: []string{vs[2].Name, "never_existed"},
	})
	snap = load(t, s, "s1")
	if n := len(snap.Messages); n != 3 {
		t.Fatalf("after two turns: %d messages, want 3", n)
	}
	last := snap.Messages[2]
	if last.Content != "and again" || last.Created.Before(before) {
		t.Errorf("last message %+v: want content %q and Created from the store's clock", last, "and again")
	}
	wantVars := normVars(append([]vars.Variable{added, vs[0], touched}, vs[3:]...))
	equal(t, "vars after the second turn", snap.Vars, wantVars)

	// Messages: the last N in chronological order.
	for _, tt := range []struct {
		limit int
		want  []string
	}{
		{0, []string{msgs[0].Content, msgs[1].Content, "and again"}},
		{1, []string{"and again"}},
		{2, []string{msgs[1].Content, "and again"}},
		{10, []string{msgs[0].Content, msgs[1].Content, "and again"}},
	} {
		got, err := s.Messages(ctx, "s1", tt.limit)
		if err != nil {
			t.Fatalf("Messages(%d): %v", tt.limit, err)
		}
		var contents []string
		for _, m := range got {
			contents = append(contents, m.Content)
		}
		equal(t, "Messages contents", contents, tt.want)
	}
	if got, err := s.Messages(ctx, "s1", 1); err == nil {
		checkMessages(t, "Messages(1)", got, []storage.Message{normMessages("s1", []storage.Message{last})[0]})
	}
}

func testTurnErrors(t *testing.T, s storage.Store) {
	ctx := t.Context()
	ensure(t, s, "s1")
	ensure(t, s, "s2")
	saveTurn(t, s, storage.Turn{SessionID: "s1", Messages: sampleMessages("s1", base), VarUpserts: Vars(3, "v", base)})
	before := load(t, s, "s1")

	for _, tt := range []struct {
		name string
		turn storage.Turn
		want error
	}{
		{"unknown session", storage.Turn{SessionID: "nope", Messages: sampleMessages("", base), EventPlatform: "test", EventID: "E-unknown"}, storage.ErrNotFound},
		{"empty session", storage.Turn{Messages: sampleMessages("", base)}, storage.ErrInvalid},
		{"message of another session", storage.Turn{
			SessionID: "s1", Messages: sampleMessages("s2", base), VarUpserts: Vars(5, "w", base),
			EventPlatform: "test", EventID: "E-other",
		}, storage.ErrInvalid},
		{"variable without a name", storage.Turn{
			SessionID: "s1", Messages: sampleMessages("s1", base),
			VarUpserts: []vars.Variable{{Value: "x"}}, EventPlatform: "test", EventID: "E-noname",
		}, storage.ErrInvalid},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantErr(t, "SaveTurn", s.SaveTurn(ctx, tt.turn), tt.want)
			equal(t, "session after a failed turn", load(t, s, "s1"), before)
			if tt.turn.EventID != "" {
				if seen, err := s.EventSeen(ctx, tt.turn.EventPlatform, tt.turn.EventID); err != nil || seen {
					t.Errorf("EventSeen after a failed turn = %v, %v; want false", seen, err)
				}
			}
		})
	}
}

func testVars(t *testing.T, s storage.Store) {
	ctx := t.Context()
	ensure(t, s, "s1")
	wantErr(t, "SaveVars(unknown session)", s.SaveVars(ctx, "nope", Vars(1, "v", base), nil), storage.ErrNotFound)

	vs := Vars(7, "v", base)
	vs = append(vs, vars.Variable{Name: "zero_times", Value: "", Tags: []string{}}) // empty value, zero times, empty tags
	if err := s.SaveVars(ctx, "s1", vs, nil); err != nil {
		t.Fatalf("SaveVars: %v", err)
	}
	equal(t, "vars", load(t, s, "s1").Vars, normVars(vs))

	up := vs[0]
	up.Keep, up.Desc, up.LastVisited = false, "changed", at(-time.Hour)
	if err := s.SaveVars(ctx, "s1", []vars.Variable{up}, []string{vs[1].Name, vs[2].Name, "absent"}); err != nil {
		t.Fatalf("SaveVars (update, remove): %v", err)
	}
	want := normVars(append([]vars.Variable{up}, vs[3:]...))
	equal(t, "vars after update and removal", load(t, s, "s1").Vars, want)
}

func testDecisions(t *testing.T, s storage.Store) {
	ctx := t.Context()
	ensure(t, s, "s1")
	d := storage.Decision{SessionID: "s1", Key: storage.AlwaysAllowKey("bash"), Tool: "bash", Approved: true, By: "U1", Created: at(1)}
	wantErr(t, "SaveDecision(unknown session)", s.SaveDecision(ctx, storage.Decision{SessionID: "nope", Key: "k"}), storage.ErrNotFound)
	wantErr(t, "SaveDecision(empty key)", s.SaveDecision(ctx, storage.Decision{SessionID: "s1"}), storage.ErrInvalid)
	if err := s.SaveDecision(ctx, d); err != nil {
		t.Fatalf("SaveDecision: %v", err)
	}
	equal(t, "decisions", load(t, s, "s1").Decisions, []storage.Decision{d})

	d.Approved, d.Reason, d.By, d.Created = false, "changed my mind", "U2", at(2)
	if err := s.SaveDecision(ctx, d); err != nil {
		t.Fatalf("SaveDecision (again): %v", err)
	}
	equal(t, "decisions after a second decision on the key", load(t, s, "s1").Decisions, []storage.Decision{d})

	before := time.Now().Add(-time.Minute)
	if err := s.SaveDecision(ctx, storage.Decision{SessionID: "s1", Key: "a", Tool: "t"}); err != nil {
		t.Fatalf("SaveDecision (zero Created): %v", err)
	}
	if got := load(t, s, "s1").Decisions[0]; got.Key != "a" || got.Created.Before(before) {
		t.Errorf("decision with zero Created = %+v; want the store's clock", got)
	}
}

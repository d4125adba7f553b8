package chat

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/threadbot/threadbot/internal/core/executor"
)

// fakeSource is a Source whose behaviour the test sets per method.
type fakeSource struct {
	thread func(ctx context.Context, sessionID string, limit int) ([]Message, error)
	search func(ctx context.Context, sessionID, query string, limit int) ([]Message, error)
}

func (f *fakeSource) ThreadMessages(ctx context.Context, sessionID string, limit int) ([]Message, error) {
	return f.thread(ctx, sessionID, limit)
}

func (f *fakeSource) SearchChannel(ctx context.Context, sessionID, query string, limit int) ([]Message, error) {
	return f.search(ctx, sessionID, query, limit)
}

var t0 = time.Date(2026, 11, 22, 10, 1, 0, 0, time.UTC)

// newExecutor registers and enables the chat group on src. It has no
// approver, so any call that needed approval would be rejected.
func newExecutor(t *testing.T, sessionID string, src Source) *executor.Executor {
	t.Helper()
	x := executor.New(nil, executor.Options{SessionID: sessionID})
	if err := x.Register(Group(src)); err != nil {
		t.Fatalf("Register: %v", err)
	}
	if err := x.SetGroupEnabled(GroupName, true); err != nil {
		t.Fatalf("SetGroupEnabled: %v", err)
	}
	return x
}

func run(t *testing.T, x *executor.Executor, tool string, args map[string]any) executor.Result {
	t.Helper()
	return x.Execute(t.Context(), tool, args, executor.CallOptions{CallID: "c1"})
}

func TestThreadHistory(t *testing.T) {
	var gotSession string
	var gotLimit int
	src := &fakeSource{thread: func(_ context.Context, sessionID string, limit int) ([]Message, error) {
		gotSession, gotLimit = sessionID, limit
		return []Message{
			{Author: "alice", Text: "can we ship friday?", Time: t0, Link: "https://x/1"},
			{Author: "bob", Text: "only if\nthe tests pass", Time: t0.Add(90 * time.Second).In(time.FixedZone("CET", 3600))},
			{Text: "  anonymous  "},
		}, nil
	}}
	x := newExecutor(t, "slack-T1-C1-1700000000_000100", src)
	r := run(t, x, ToolThreadHistory, nil)
	want := "3 earlier messages of this thread, oldest first (times UTC):\n" +
		"[2026-11-22 10:01] alice: can we ship friday?\n" +
		"[2026-11-22 10:02] bob: only if ⏎ the tests pass\n" +
		"[unknown time] unknown: anonymous"
	if r.Status != executor.StatusSuccess || r.Text != want {
		t.Errorf("got %s\n%s\nwant\n%s", r.Status, r.Text, want)
	}
	if gotSession != "slack-T1-C1-1700000000_000100" || gotLimit != DefaultHistoryLimit {
		t.Errorf("source got session %q limit %d, want the executor's session and %d", gotSession, gotLimit, DefaultHistoryLimit)
	}

	r = run(t, x, ToolThreadHistory, map[string]any{"limit": 2})
	if gotLimit != 2 {
		t.Errorf("limit = %d, want 2", gotLimit)
	}
	// The fake ignores the limit; the tool keeps the newest two.
	if strings.Contains(r.Text, "alice") || !strings.HasPrefix(r.Text, "2 earlier messages") {
		t.Errorf("with limit 2, text = %q; want the newest two only", r.Text)
	}
}

func TestChannelSearch(t *testing.T) {
	var gotQuery string
	var gotLimit int
	src := &fakeSource{search: func(_ context.Context, _ string, query string, limit int) ([]Message, error) {
		gotQuery, gotLimit = query, limit
		if query == "nothing" {
			return nil, nil
		}
		return []Message{
			{Author: "carol", Text: "deploy notes are in the wiki", Time: t0, Link: "https://chat/p1"},
			{Author: "dave", Text: "deploy is on hold", Time: t0.Add(time.Hour)},
		}, nil
	}}
	x := newExecutor(t, "discord-G1-C1-T1", src)
	r := run(t, x, ToolChannelSearch, map[string]any{"query": " deploy "})
	want := "2 messages match \"deploy\", best first (times UTC):\n" +
		"[2026-11-22 10:01] carol: deploy notes are in the wiki <https://chat/p1>\n" +
		"[2026-11-22 11:01] dave: deploy is on hold"
	if r.Status != executor.StatusSuccess || r.Text != want {
		t.Errorf("got %s\n%s\nwant\n%s", r.Status, r.Text, want)
	}
	if gotQuery != "deploy" || gotLimit != DefaultSearchLimit {
		t.Errorf("source got query %q limit %d, want %q and %d", gotQuery, gotLimit, "deploy", DefaultSearchLimit)
	}
	r = run(t, x, ToolChannelSearch, map[string]any{"query": "deploy", "limit": 1})
	if strings.Contains(r.Text, "dave") || gotLimit != 1 {
		t.Errorf("with limit 1 (source got %d), text = %q; want the best match only", gotLimit, r.Text)
	}
	r = run(t, x, ToolChannelSearch, map[string]any{"query": "nothing"})
	if r.Status != executor.StatusSuccess || r.Text != `No messages match "nothing". Try other or fewer words.` {
		t.Errorf("no matches: got %s %q", r.Status, r.Text)
	}
}

func TestArguments(t *testing.T) {
	src := &fakeSource{
		thread: func(context.Context, string, int) ([]Message, error) { return nil, nil },
		search: func(context.Context, string, string, int) ([]Message, error) { return nil, nil },
	}
	x := newExecutor(t, "slack-T-C-1", src)
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{ToolThreadHistory, map[string]any{"limit": 0}, "invalid arguments"},
		{ToolThreadHistory, map[string]any{"limit": MaxHistoryLimit + 1}, "invalid arguments"},
		{ToolThreadHistory, map[string]any{"channel": "C2"}, "invalid arguments"},
		{ToolChannelSearch, map[string]any{}, "query"},
		{ToolChannelSearch, map[string]any{"query": ""}, "invalid arguments"},
		{ToolChannelSearch, map[string]any{"query": "   "}, "query is empty"},
		{ToolChannelSearch, map[string]any{"query": "x", "limit": MaxSearchLimit + 1}, "invalid arguments"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.tool, tt.args), func(t *testing.T) {
			r := run(t, x, tt.tool, tt.args)
			if r.Status != executor.StatusError || !strings.Contains(r.Text, tt.want) {
				t.Errorf("got %s %q, want ERROR containing %q", r.Status, r.Text, tt.want)
			}
		})
	}
	r := run(t, x, ToolThreadHistory, nil)
	if r.Status != executor.StatusSuccess || r.Text != "This thread has no earlier messages." {
		t.Errorf("empty thread: got %s %q", r.Status, r.Text)
	}
}

func TestCaps(t *testing.T) {
	long := strings.Repeat("é", MaxMessageChars+37)
	many := make([]Message, 40)
	for i := range many {
		many[i] = Message{Author: fmt.Sprintf("u%02d", i), Text: strings.Repeat("w", 400), Time: t0.Add(time.Duration(i) * time.Minute)}
	}
	src := &fakeSource{
		thread: func(_ context.Context, _ string, limit int) ([]Message, error) {
			if limit == 1 {
				return []Message{{Author: "eve", Text: long, Time: t0}}, nil
			}
			return many, nil
		},
		search: func(context.Context, string, string, int) ([]Message, error) { return many, nil },
	}
	x := newExecutor(t, "slack-T-C-1", src)

	r := run(t, x, ToolThreadHistory, map[string]any{"limit": 1})
	want := "[2026-11-22 10:01] eve: " + strings.Repeat("é", MaxMessageChars) + "… [cut, 37 more characters]"
	if !strings.HasSuffix(r.Text, want) {
		t.Errorf("long message: got %q, want it to end with %q", r.Text, want)
	}

	r = run(t, x, ToolThreadHistory, nil)
	if n := utf8.RuneCountInString(r.Text); n > MaxOutputChars || r.Truncated {
		t.Errorf("history is %d characters (truncated by the executor: %v), want at most %d", n, r.Truncated, MaxOutputChars)
	}
	if !strings.Contains(r.Text, "earlier messages omitted") || !strings.HasSuffix(r.Text, "u39: "+strings.Repeat("w", 400)) {
		t.Errorf("history over the cap should say what it omitted and keep the newest:\n%s", r.Text)
	}
	if strings.Contains(r.Text, "u00:") {
		t.Errorf("history over the cap kept the oldest message")
	}

	r = run(t, x, ToolChannelSearch, map[string]any{"query": "w", "limit": MaxSearchLimit})
	if n := utf8.RuneCountInString(r.Text); n > MaxOutputChars {
		t.Errorf("search is %d characters, want at most %d", n, MaxOutputChars)
	}
	if !strings.Contains(r.Text, "u00:") || strings.Contains(r.Text, "u39:") || !strings.Contains(r.Text, "more matches omitted") {
		t.Errorf("search over the cap should keep the best matches and say what it omitted:\n%s", r.Text)
	}
}

func TestSourceErrors(t *testing.T) {
	src := &fakeSource{
		thread: func(context.Context, string, int) ([]Message, error) {
			return nil, errors.New("slack: ratelimited")
		},
		search: func(context.Context, string, string, int) ([]Message, error) {
			return nil, &UnsupportedError{Op: "searching the channel", Platform: "discord"}
		},
	}
	x := newExecutor(t, "discord-G-C-T", src)
	r := run(t, x, ToolThreadHistory, nil)
	if r.Status != executor.StatusError || !strings.Contains(r.Text, "reading the thread failed: slack: ratelimited; try again once") {
		t.Errorf("source error: got %s %q", r.Status, r.Text)
	}
	r = run(t, x, ToolChannelSearch, map[string]any{"query": "x"})
	if r.Status != executor.StatusError || !strings.Contains(r.Text, "searching the channel is not supported on discord; answer from the messages you have") {
		t.Errorf("unsupported: got %s %q", r.Status, r.Text)
	}

	x = newExecutor(t, "slack-T-C-1", nil)
	r = run(t, x, ToolThreadHistory, nil)
	if r.Status != executor.StatusError || !strings.Contains(r.Text, "not available here") {
		t.Errorf("nil source: got %s %q", r.Status, r.Text)
	}
}

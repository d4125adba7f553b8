package chat

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/threadbot/threadbot/internal/core/executor"
)

var _ Source = (*Mux)(nil)

// named returns a Source whose messages say which platform answered.
func named(platform string) *fakeSource {
	return &fakeSource{
		thread: func(_ context.Context, sessionID string, _ int) ([]Message, error) {
			return []Message{{Author: platform, Text: "thread of " + sessionID, Time: t0}}, nil
		},
		search: func(_ context.Context, sessionID, query string, _ int) ([]Message, error) {
			return []Message{{Author: platform, Text: query + " in " + sessionID, Time: t0}}, nil
		},
	}
}

func TestMuxDispatch(t *testing.T) {
	var m Mux
	m.Register("slack", named("slack"))
	m.Register("discord", named("discord"))
	tests := []struct {
		session string
		want    string
	}{
		{"slack-T1-C1-1700000000_000100", "slack: thread of slack-T1-C1-1700000000_000100"},
		{"discord-G1-C1-T1", "discord: thread of discord-G1-C1-T1"},
	}
	for _, tt := range tests {
		x := newExecutor(t, tt.session, &m)
		r := run(t, x, ToolThreadHistory, nil)
		if r.Status != executor.StatusSuccess || !strings.HasSuffix(r.Text, tt.want) {
			t.Errorf("%s: got %s %q, want it to end with %q", tt.session, r.Status, r.Text, tt.want)
		}
	}
	msgs, err := m.SearchChannel(t.Context(), "discord-G1-C1-T1", "q", 5)
	if err != nil || len(msgs) != 1 || msgs[0].Text != "q in discord-G1-C1-T1" {
		t.Errorf("SearchChannel = %v, %v; want the discord source's answer", msgs, err)
	}
}

func TestMuxUnsupported(t *testing.T) {
	var m Mux
	m.Register("slack", named("slack"))
	tests := []struct {
		session, want string
		call          func(ctx context.Context, session string) error
	}{
		{"console-_-local-1", "reading the thread is not supported on console", func(ctx context.Context, s string) error {
			_, err := m.ThreadMessages(ctx, s, 10)
			return err
		}},
		{"console-_-local-1", "searching the channel is not supported on console", func(ctx context.Context, s string) error {
			_, err := m.SearchChannel(ctx, s, "q", 10)
			return err
		}},
		{"", "reading the thread is not supported here", func(ctx context.Context, s string) error {
			_, err := m.ThreadMessages(ctx, s, 10)
			return err
		}},
	}
	for _, tt := range tests {
		err := tt.call(t.Context(), tt.session)
		if err == nil || err.Error() != tt.want || !errors.Is(err, ErrUnsupported) {
			t.Errorf("%q: err = %v, want %q matching ErrUnsupported", tt.session, err, tt.want)
		}
	}

	x := newExecutor(t, "console-_-local-1", &m)
	r := run(t, x, ToolThreadHistory, nil)
	if r.Status != executor.StatusError || !strings.Contains(r.Text, "reading the thread is not supported on console") {
		t.Errorf("through the executor: got %s %q", r.Status, r.Text)
	}
}

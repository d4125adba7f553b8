package slack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	slackapi "github.com/slack-go/slack"
)

// TestAnswerChunksHeadFences checks the short message posted before an
// answer too long for maxChunks messages is uploaded: when the answer
// starts with a long code block, the head closes it before the note about
// the file.
func TestAnswerChunksHeadFences(t *testing.T) {
	var b strings.Builder
	b.WriteString("Here is the file:\n\n```go\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "line of code number %d\n", i)
	}
	b.WriteString("```\n\nThat is all.\n")
	chunks, file := (&Adapter{}).answerChunks(b.String())
	if !file || len(chunks) != 1 {
		t.Fatalf("answerChunks = %d chunks, file %v; want 1 chunk and a file", len(chunks), file)
	}
	head := chunks[0]
	if n := utf8.RuneCountInString(head); n > maxText {
		t.Errorf("head has %d runes, more than %d", n, maxText)
	}
	if n := splitFences(head); n%2 != 0 {
		t.Errorf("head has %d fences, the note is inside a code block; it ends %q", n, head[max(len(head)-120, 0):])
	}
	note := "\n\n_The full answer is long, so it is attached as `answer.md`._"
	if !strings.HasSuffix(head, "\n```"+note) {
		t.Errorf("head ends %q, want the closed block and then the note", head[max(len(head)-120, 0):])
	}
}

// A streamed answer longer than one message shows a head whose code
// block is closed.
func TestStreamHeadFences(t *testing.T) {
	var b strings.Builder
	b.WriteString("Working on it:\n\n```go\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "line of code number %d\n", i)
	}
	head := streamHead(b.String())
	if n := utf8.RuneCountInString(head); n > maxText {
		t.Errorf("head has %d runes, more than %d", n, maxText)
	}
	if n := splitFences(head); n%2 != 0 || !strings.HasSuffix(head, "\n```") {
		t.Errorf("head has %d fences; it ends %q", n, head[max(len(head)-80, 0):])
	}
	if got := streamHead(""); got != " " {
		t.Errorf("streamHead(\"\") = %q", got)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestRespondLogsNoResponseURL checks that a failed post to a slash
// command's response_url, a secret, is logged by host and reason only,
// and the answer falls back to an ephemeral message.
func TestRespondLogsNoResponseURL(t *testing.T) {
	const hook = "https://hooks.slack.com/commands/T0001/1234567890/s3cr3tT0k3n"
	for _, tt := range []struct {
		name string
		fail func(*http.Request) error
		want string
	}{
		{"transport", func(*http.Request) error { return errors.New("connection refused") }, "Post: connection refused"},
		{"error quoting the url", func(r *http.Request) error { return fmt.Errorf("proxy refused %s (path %s)", r.URL, r.URL.Path) }, "Post: proxy refused <response_url> (path /…)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var ephemeral int
			client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				if r.URL.Host == "hooks.slack.com" {
					return nil, tt.fail(r)
				}
				if r.URL.Path == "/api/chat.postEphemeral" {
					ephemeral++
				}
				return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
					Body: io.NopCloser(strings.NewReader(`{"ok":true,"message_ts":"1.2"}`)), Request: r}, nil
			})}
			var logs bytes.Buffer
			a := New(slog.New(slog.NewTextHandler(&logs, nil)), Options{BotToken: "xoxb-test", HTTPClient: client})
			a.respond(context.Background(), slackapi.SlashCommand{ResponseURL: hook, ChannelID: "C1", UserID: "U1"}, "hello")
			got := logs.String()
			t.Log(got)
			for _, secret := range []string{hook, "s3cr3tT0k3n", "1234567890"} {
				if strings.Contains(got, secret) {
					t.Errorf("the log holds %q", secret)
				}
			}
			for _, want := range []string{"host=hooks.slack.com", tt.want} {
				if !strings.Contains(got, want) {
					t.Errorf("the log lacks %q", want)
				}
			}
			if ephemeral != 1 {
				t.Errorf("%d ephemeral messages, want 1", ephemeral)
			}
		})
	}
}

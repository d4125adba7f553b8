package fakeslack

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
)

// newServer starts a Server that logs to t and closes when the test ends.
func newServer(t *testing.T) *Server {
	t.Helper()
	srv := New(Options{Logf: t.Logf})
	t.Cleanup(srv.Close)
	return srv
}

// newAPI returns a slack-go client for srv with the bot and app tokens.
func newAPI(srv *Server) *slack.Client {
	return slack.New(DefaultBotToken, slack.OptionAPIURL(srv.APIURL()), slack.OptionAppLevelToken(DefaultAppToken))
}

func section(text string) slack.Block {
	return slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, text, false, false), nil, nil)
}

func TestAuthTest(t *testing.T) {
	srv := newServer(t)
	got, err := newAPI(srv).AuthTest()
	if err != nil {
		t.Fatal(err)
	}
	if got.UserID != DefaultBotUserID || got.BotID != DefaultBotID || got.TeamID != DefaultTeamID {
		t.Errorf("auth.test = %+v", got)
	}

	tests := []struct {
		name  string
		token string
		want  string
	}{
		{"wrong token", "xoxb-wrong", "invalid_auth"},
		{"app token", DefaultAppToken, "not_allowed_token_type"},
		{"no token", "", "not_authed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := slack.New(tt.token, slack.OptionAPIURL(srv.APIURL())).AuthTest()
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v, want %s", err, tt.want)
			}
		})
	}
}

func TestPostUpdateReplies(t *testing.T) {
	srv := newServer(t)
	api := newAPI(srv)
	root := srv.AddMessage(Message{Channel: "C1", User: "U1", Text: "<@UBOT> hello"})
	if root != "1700000000.000100" {
		t.Errorf("seeded ts = %s, want 1700000000.000100", root)
	}

	var replies []string
	for _, text := range []string{"one", "two", "three"} {
		ch, ts, err := api.PostMessage("C1", slack.MsgOptionText(text, false), slack.MsgOptionTS(root), slack.MsgOptionBlocks(section(text)))
		if err != nil {
			t.Fatal(err)
		}
		if ch != "C1" {
			t.Errorf("channel = %q", ch)
		}
		if len(replies) > 0 && tsKey(ts) <= tsKey(replies[len(replies)-1]) {
			t.Errorf("ts %s not after %s", ts, replies[len(replies)-1])
		}
		replies = append(replies, ts)
	}
	if got := srv.Calls("chat.postMessage")[0].Form.Get("token"); got != DefaultBotToken {
		t.Errorf("token form field = %q: slack-go sends chat.* tokens as a form field", got)
	}

	if _, _, _, err := api.UpdateMessage("C1", replies[1], slack.MsgOptionText("two, edited", false)); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := api.UpdateMessage("C1", "1.000000", slack.MsgOptionText("x", false)); err == nil || err.Error() != "message_not_found" {
		t.Errorf("update of a missing message: err = %v, want message_not_found", err)
	}
	if _, _, _, err := api.UpdateMessage("C1", root, slack.MsgOptionText("x", false)); err == nil || err.Error() != "cant_update_message" {
		t.Errorf("update of a user's message: err = %v, want cant_update_message", err)
	}

	// Two pages: root and "one", then "two, edited" and "three".
	var got []slack.Message
	cursor := ""
	for pages := 0; ; pages++ {
		msgs, hasMore, next, err := api.GetConversationReplies(&slack.GetConversationRepliesParameters{ChannelID: "C1", Timestamp: replies[2], Limit: 2, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, msgs...)
		if hasMore != (next != "") {
			t.Errorf("has_more = %v with next_cursor %q", hasMore, next)
		}
		if !hasMore {
			if pages != 1 {
				t.Errorf("%d pages, want 2", pages+1)
			}
			break
		}
		cursor = next
	}
	wantText := []string{"<@UBOT> hello", "one", "two, edited", "three"}
	if len(got) != len(wantText) {
		t.Fatalf("replies: %d messages, want %d", len(got), len(wantText))
	}
	for i, m := range got {
		if m.Text != wantText[i] {
			t.Errorf("message %d text = %q, want %q", i, m.Text, wantText[i])
		}
	}
	if got[0].ReplyCount != 3 || got[0].ThreadTimestamp != root || got[0].LatestReply != replies[2] {
		t.Errorf("root: reply_count %d thread_ts %q latest_reply %q", got[0].ReplyCount, got[0].ThreadTimestamp, got[0].LatestReply)
	}
	if got[1].BotID != DefaultBotID || got[1].User != DefaultBotUserID || got[1].ThreadTimestamp != root || len(got[1].Blocks.BlockSet) != 1 {
		t.Errorf("reply: %+v", got[1].Msg)
	}
	if got[2].Edited == nil {
		t.Error("edited reply has no edited field")
	}

	thread := srv.Thread("C1", root)
	if len(thread) != 4 || thread[2].Text != "two, edited" || !thread[2].Edited || !strings.Contains(string(thread[2].Blocks), `"two"`) {
		t.Errorf("Thread = %+v", thread)
	}
}

func TestHistory(t *testing.T) {
	srv := newServer(t)
	api := newAPI(srv)
	var top []string
	for _, text := range []string{"a", "b", "c", "d", "e"} {
		top = append(top, srv.AddMessage(Message{Channel: "C1", User: "U1", Text: text}))
	}
	srv.AddMessage(Message{Channel: "C1", User: "U2", Text: "reply", ThreadTS: top[0]})

	var texts []string
	params := &slack.GetConversationHistoryParameters{ChannelID: "C1", Limit: 2}
	for {
		resp, err := api.GetConversationHistory(params)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range resp.Messages {
			texts = append(texts, m.Text)
		}
		if !resp.HasMore {
			break
		}
		params.Cursor = resp.ResponseMetaData.NextCursor
	}
	if got, want := strings.Join(texts, ","), "e,d,c,b,a"; got != want {
		t.Errorf("history = %s, want %s", got, want)
	}

	resp, err := api.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: "C1", Oldest: top[1], Latest: top[3], Inclusive: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Messages) != 3 || resp.Messages[0].Text != "d" {
		t.Errorf("oldest..latest inclusive: %d messages, first %q", len(resp.Messages), resp.Messages[0].Text)
	}
}

func TestRateLimit(t *testing.T) {
	srv := newServer(t)
	api := newAPI(srv)
	srv.RateLimit("chat.postMessage", 1, 1500*time.Millisecond)

	_, _, err := api.PostMessage("C1", slack.MsgOptionText("hi", false))
	var rl *slack.RateLimitedError
	if !errors.As(err, &rl) {
		t.Fatalf("err = %v (%T), want *slack.RateLimitedError", err, err)
	}
	if rl.RetryAfter != 2*time.Second {
		t.Errorf("RetryAfter = %v, want 2s (1.5s rounded up)", rl.RetryAfter)
	}
	if len(srv.Messages("C1")) != 0 {
		t.Error("a rate-limited call stored a message")
	}
	if _, _, err := api.PostMessage("C1", slack.MsgOptionText("hi", false)); err != nil {
		t.Fatalf("second call: %v", err)
	}
	calls := srv.Calls("chat.postMessage")
	if len(calls) != 2 || !calls[0].Limited || calls[0].Error != "ratelimited" || calls[1].Limited {
		t.Errorf("calls = %+v", calls)
	}
}

func TestEphemeralReactionsUsersDelete(t *testing.T) {
	srv := newServer(t)
	api := newAPI(srv)
	srv.AddUser(User{ID: "U1", Name: "alice", IsAdmin: true})
	root := srv.AddMessage(Message{Channel: "C1", User: "U1", Text: "hi"})

	if _, err := api.PostEphemeral("C1", "U1", slack.MsgOptionText("only you", false), slack.MsgOptionTS(root)); err != nil {
		t.Fatal(err)
	}
	if eph := srv.Ephemerals(); len(eph) != 1 || eph[0].User != "U1" || eph[0].ThreadTS != root || eph[0].TS == "" {
		t.Errorf("Ephemerals = %+v", eph)
	}

	ref := slack.NewRefToMessage("C1", root)
	if err := api.AddReaction("eyes", ref); err != nil {
		t.Fatal(err)
	}
	if err := api.AddReaction("eyes", ref); err == nil || err.Error() != "already_reacted" {
		t.Errorf("second reaction: err = %v, want already_reacted", err)
	}
	if got := srv.Messages("C1")[0].Reactions; len(got) != 1 || got[0] != "eyes" {
		t.Errorf("reactions = %v", got)
	}

	u, err := api.GetUserInfo("U1")
	if err != nil {
		t.Fatal(err)
	}
	if u.Name != "alice" || !u.IsAdmin || u.IsOwner {
		t.Errorf("users.info = %+v", u)
	}
	if _, err := api.GetUserInfo("U404"); err == nil || err.Error() != "user_not_found" {
		t.Errorf("unknown user: err = %v", err)
	}

	_, ts, err := api.PostMessage("C1", slack.MsgOptionText("bye", false))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := api.DeleteMessageContext(context.Background(), "C1", ts); err != nil {
		t.Fatal(err)
	}
	if _, _, err := api.DeleteMessage("C1", root); err == nil || err.Error() != "cant_delete_message" {
		t.Errorf("delete of a user's message: err = %v", err)
	}
	if got := len(srv.Messages("C1")); got != 1 {
		t.Errorf("%d messages after delete, want 1", got)
	}
}

func TestBlockLimits(t *testing.T) {
	srv := newServer(t)
	api := newAPI(srv)
	many := make([]slack.Block, 51)
	for i := range many {
		many[i] = section("x")
	}
	tests := []struct {
		name   string
		opts   []slack.MsgOption
		want   string
		detail string
	}{
		{"long section", []slack.MsgOption{slack.MsgOptionBlocks(section(strings.Repeat("é", 3001)))}, "invalid_blocks", "/blocks/0/text/text"},
		{"51 blocks", []slack.MsgOption{slack.MsgOptionBlocks(many...)}, "invalid_blocks", "no more than 50 items"},
		{"long text", []slack.MsgOption{slack.MsgOptionText(strings.Repeat("a", 40001), false)}, "msg_too_long", ""},
		{"no text", nil, "no_text", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := api.PostMessage("C1", tt.opts...)
			var se slack.SlackErrorResponse
			if !errors.As(err, &se) || se.Err != tt.want {
				t.Fatalf("err = %v, want %s", err, tt.want)
			}
			if got := strings.Join(se.ResponseMetadata.Messages, "\n"); !strings.Contains(got, tt.detail) {
				t.Errorf("messages %q do not mention %q", got, tt.detail)
			}
		})
	}
	if _, _, err := api.PostMessage("C1", slack.MsgOptionBlocks(section(strings.Repeat("é", 3000)))); err != nil {
		t.Errorf("3000 characters: %v", err)
	}
}

package slack

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	slackapi "github.com/slack-go/slack"

	"github.com/threadbot/threadbot/internal/core/session"
	"github.com/threadbot/threadbot/internal/tools/chat"
)

var _ chat.Source = (*Adapter)(nil)

// Bounds of what the chat tools read from Slack.
const (
	pageSize = 200
	// maxPages bounds the pages read for one tool call (1,000 messages).
	maxPages = 5
)

// threadOf parses a session id (slack-TEAM-CHANNEL-TS) back into its
// channel and thread.
func threadOf(sessionID string) (channel, thread string, err error) {
	parts := strings.Split(sessionID, "-")
	if len(parts) != 4 || parts[0] != Name || parts[2] == "_" {
		return "", "", fmt.Errorf("not a Slack session: %q", sessionID)
	}
	if parts[3] == "_" {
		parts[3] = ""
	}
	return parts[2], parts[3], nil
}

// workspaceOf returns the team of a Slack session id ("" for none).
func workspaceOf(sessionID string) string {
	parts := strings.Split(sessionID, "-")
	if len(parts) != 4 || parts[1] == "_" {
		return ""
	}
	return parts[1]
}

// ThreadMessages implements chat.Source: the people's messages in the
// thread before the one the running turn answers, oldest first, at most
// limit (the most recent ones). The bot's own messages are left out: its
// answers are in the model's history already, and its status and tool-log
// lines are not conversation.
func (a *Adapter) ThreadMessages(ctx context.Context, sessionID string, limit int) ([]chat.Message, error) {
	channel, thread, err := threadOf(sessionID)
	if err == nil && thread == "" {
		err = fmt.Errorf("session %q has no thread", sessionID)
	}
	if err != nil {
		return nil, fmt.Errorf("read thread: %w", err)
	}
	cur := a.answering(workspaceOf(sessionID), channel, thread)
	var msgs []slackapi.Message
	cursor := ""
	for page := 0; page < maxPages; page++ {
		var batch []slackapi.Message
		var more bool
		next := ""
		err := a.call(ctx, "conversations.replies", channel, func(ctx context.Context) error {
			var err error
			batch, more, next, err = a.api.GetConversationRepliesContext(ctx, &slackapi.GetConversationRepliesParameters{
				ChannelID: channel, Timestamp: thread, Cursor: cursor, Limit: pageSize, Latest: cur,
			})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("read thread: %w", err)
		}
		msgs = append(msgs, batch...)
		if !more || next == "" {
			break
		}
		cursor = next
	}
	me := a.identity()
	var out []chat.Message
	for _, m := range msgs {
		if cur != "" && !tsBefore(m.Timestamp, cur) {
			continue
		}
		if m.User == me.UserID || (me.BotID != "" && m.BotID == me.BotID) {
			continue
		}
		out = append(out, a.chatMessage(ctx, channel, m))
	}
	if limit > 0 && len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out, nil
}

// answering returns the ts of the message the running turn of a thread
// answers, from the runtime (so it holds for a turn resumed after a
// restart), or "" when none is known.
func (a *Adapter) answering(team, channel, thread string) string {
	for _, act := range a.runtime().Active(session.Key{Platform: Name, Workspace: team, Channel: channel}) {
		if act.Key.Thread != thread || !act.Running {
			continue
		}
		if ch, ts, ok := strings.Cut(strings.TrimPrefix(act.EventID, "msg:"), ":"); ok && ch == channel {
			return ts
		}
	}
	return ""
}

// SearchChannel implements chat.Source. Bot tokens cannot use Slack's
// search.messages, so it reads the channel's recent history (up to 1,000
// top-level messages) and ranks the messages that contain the query's
// words: more words matched first, then newer first.
func (a *Adapter) SearchChannel(ctx context.Context, sessionID, query string, limit int) ([]chat.Message, error) {
	channel, _, err := threadOf(sessionID)
	if err != nil {
		return nil, fmt.Errorf("search channel: %w", err)
	}
	terms := strings.Fields(strings.ToLower(query))
	if len(terms) == 0 {
		return nil, nil
	}
	type hit struct {
		m     slackapi.Message
		score int
	}
	var hits []hit
	cursor := ""
	for page := 0; page < maxPages; page++ {
		var res *slackapi.GetConversationHistoryResponse
		err := a.call(ctx, "conversations.history", channel, func(ctx context.Context) error {
			var err error
			res, err = a.api.GetConversationHistoryContext(ctx, &slackapi.GetConversationHistoryParameters{
				ChannelID: channel, Cursor: cursor, Limit: pageSize,
			})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("search channel: %w", err)
		}
		for _, m := range res.Messages {
			text := strings.ToLower(m.Text)
			score := 0
			for _, t := range terms {
				if strings.Contains(text, t) {
					score++
				}
			}
			if score > 0 {
				hits = append(hits, hit{m, score})
			}
		}
		if !res.HasMore || res.ResponseMetaData.NextCursor == "" {
			break
		}
		cursor = res.ResponseMetaData.NextCursor
	}
	slices.SortStableFunc(hits, func(x, y hit) int {
		if x.score != y.score {
			return y.score - x.score
		}
		if tsBefore(x.m.Timestamp, y.m.Timestamp) {
			return 1
		}
		if tsBefore(y.m.Timestamp, x.m.Timestamp) {
			return -1
		}
		return 0
	})
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	out := make([]chat.Message, 0, len(hits))
	for _, h := range hits {
		out = append(out, a.chatMessage(ctx, channel, h.m))
	}
	return out, nil
}

// chatMessage converts a Slack message for the chat tools.
func (a *Adapter) chatMessage(ctx context.Context, channel string, m slackapi.Message) chat.Message {
	me := a.identity()
	author := m.User
	switch {
	case m.User != "" && m.User == me.UserID, m.BotID != "" && m.BotID == me.BotID:
		author = "assistant (you)"
	case m.User != "":
		if e, ok := a.userInfo(ctx, m.User); ok && e.name != "" {
			author = e.name + " (<@" + m.User + ">)"
		}
	case m.Username != "":
		author = m.Username
	}
	msg := chat.Message{Author: author, Text: cleanText(m.Text, ""), Time: tsTime(m.Timestamp)}
	if me.URL != "" {
		msg.Link = fmt.Sprintf("%sarchives/%s/p%s", strings.TrimSuffix(me.URL, "/")+"/", channel, strings.ReplaceAll(m.Timestamp, ".", ""))
		if m.ThreadTimestamp != "" && m.ThreadTimestamp != m.Timestamp {
			msg.Link += "?thread_ts=" + m.ThreadTimestamp
		}
	}
	return msg
}

// tsTime is the time of a Slack ts ("1700000000.000100").
func tsTime(ts string) time.Time {
	sec, frac, _ := strings.Cut(ts, ".")
	s, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return time.Time{}
	}
	us, _ := strconv.ParseInt((frac + "000000")[:6], 10, 64)
	return time.Unix(s, us*1000).UTC()
}

// tsBefore reports whether ts a is earlier than b.
func tsBefore(a, b string) bool {
	as, af, _ := strings.Cut(a, ".")
	bs, bf, _ := strings.Cut(b, ".")
	if len(as) != len(bs) {
		return len(as) < len(bs)
	}
	if as != bs {
		return as < bs
	}
	return (af + "000000")[:6] < (bf + "000000")[:6]
}

package fakeslack

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Message is a message in the server's store.
type Message struct {
	Channel string
	// TS is the message's timestamp, its id within the channel.
	TS string
	// ThreadTS is the ts of the thread's root for a reply, and empty for a
	// top-level message (a root answers with thread_ts = ts on the wire once
	// it has replies, as Slack's does).
	ThreadTS string
	User     string
	// BotID is set on messages the bot posted.
	BotID string
	Text  string
	// Blocks is the Block Kit JSON array as last posted or updated; nil when
	// the message has none.
	Blocks json.RawMessage
	// FileIDs lists files shared with the message.
	FileIDs []string
	// Reactions lists the names of reactions added, in order.
	Reactions []string
	// Broadcast marks a thread reply also sent to the channel.
	Broadcast bool
	// Edited reports that chat.update changed the message.
	Edited bool
}

// baseTS is where timestamps start, in microseconds: the first ts handed
// out is "1700000000.000100".
const baseTS = 1_700_000_000_000_000

// nextTS returns a fresh ts, later than every ts handed out or seeded so
// far. The caller holds s.mu.
func (s *Server) nextTS() string {
	s.lastTS += 100
	return formatTS(s.lastTS)
}

func formatTS(us int64) string { return fmt.Sprintf("%d.%06d", us/1e6, us%1e6) }

// parseTS reads "1700000000.000100" as microseconds.
func parseTS(ts string) (int64, bool) {
	sec, frac, _ := strings.Cut(ts, ".")
	s, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || len(frac) > 6 {
		return 0, false
	}
	var f int64
	if frac != "" {
		if f, err = strconv.ParseInt(frac+strings.Repeat("0", 6-len(frac)), 10, 64); err != nil {
			return 0, false
		}
	}
	return s*1e6 + f, true
}

// tsKey orders timestamps; an unparsable ts sorts first.
func tsKey(ts string) int64 {
	us, _ := parseTS(ts)
	return us
}

// AddMessage puts m into the store, as if a user had posted it, and returns
// its ts. An empty m.TS gets a fresh one; a given one is kept, replacing any
// message with that ts in the channel, and later fresh ones are newer.
// Seeding sends no event: build one with AppMention or UserMessage and Send
// it.
func (s *Server) AddMessage(m Message) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m.TS == "" {
		m.TS = s.nextTS()
	} else if us, ok := parseTS(m.TS); ok && us > s.lastTS {
		s.lastTS = us
	}
	m.Blocks = append(json.RawMessage(nil), m.Blocks...)
	m.FileIDs = slices.Clone(m.FileIDs)
	m.Reactions = slices.Clone(m.Reactions)
	s.remove(m.Channel, m.TS)
	s.insert(&m)
	return m.TS
}

// insert adds m to its channel in ts order. The caller holds s.mu.
func (s *Server) insert(m *Message) {
	list := s.msgs[m.Channel]
	i, _ := slices.BinarySearchFunc(list, tsKey(m.TS), func(e *Message, k int64) int {
		return cmp.Compare(tsKey(e.TS), k)
	})
	s.msgs[m.Channel] = slices.Insert(list, i, m)
}

// find returns the message with ts in channel, or nil. The caller holds s.mu.
func (s *Server) find(channel, ts string) *Message {
	for _, m := range s.msgs[channel] {
		if m.TS == ts {
			return m
		}
	}
	return nil
}

// remove deletes the message with ts from channel. The caller holds s.mu.
func (s *Server) remove(channel, ts string) {
	s.msgs[channel] = slices.DeleteFunc(s.msgs[channel], func(m *Message) bool { return m.TS == ts })
}

// thread returns the root of the thread that ts belongs to and its replies,
// oldest first, or nil when channel has no message ts. The caller holds s.mu.
func (s *Server) thread(channel, ts string) []*Message {
	m := s.find(channel, ts)
	if m == nil {
		return nil
	}
	root := m.TS
	if isReply(m) {
		root = m.ThreadTS
	}
	var out []*Message
	for _, e := range s.msgs[channel] {
		if e.TS == root || e.ThreadTS == root {
			out = append(out, e)
		}
	}
	return out
}

// replyList returns the replies to root, oldest first. The caller holds s.mu.
func (s *Server) replyList(root *Message) []*Message {
	var out []*Message
	for _, e := range s.msgs[root.Channel] {
		if isReply(e) && e.ThreadTS == root.TS {
			out = append(out, e)
		}
	}
	return out
}

func isReply(m *Message) bool { return m.ThreadTS != "" && m.ThreadTS != m.TS }

// Messages returns copies of every message in channel, replies included,
// in ts order, with their current text and blocks.
func (s *Server) Messages(channel string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return copyMessages(s.msgs[channel])
}

// Thread returns copies of the thread that ts belongs to in channel: the
// root, then its replies oldest first. It returns nil when there is no
// message ts.
func (s *Server) Thread(channel, ts string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return copyMessages(s.thread(channel, ts))
}

func copyMessages(list []*Message) []Message {
	var out []Message
	for _, m := range list {
		c := *m
		c.Blocks = append(json.RawMessage(nil), m.Blocks...)
		if len(c.Blocks) == 0 {
			c.Blocks = nil
		}
		c.FileIDs = slices.Clone(m.FileIDs)
		c.Reactions = slices.Clone(m.Reactions)
		out = append(out, c)
	}
	return out
}

// messageJSON renders m the way Slack's API returns a message. The caller
// holds s.mu.
func (s *Server) messageJSON(m *Message) map[string]any {
	out := map[string]any{
		"type": "message",
		"ts":   m.TS,
		"text": m.Text,
		"team": s.opts.TeamID,
	}
	if m.User != "" {
		out["user"] = m.User
	}
	if m.BotID != "" {
		out["bot_id"] = m.BotID
		out["app_id"] = AppID
	}
	if len(m.Blocks) > 0 {
		out["blocks"] = m.Blocks
	}
	if m.Edited {
		out["edited"] = map[string]any{"user": s.opts.BotUserID, "ts": m.TS}
	}
	if isReply(m) {
		out["thread_ts"] = m.ThreadTS
		if root := s.find(m.Channel, m.ThreadTS); root != nil {
			out["parent_user_id"] = root.User
		}
		if m.Broadcast {
			out["subtype"] = "thread_broadcast"
		}
	} else if replies := s.replyList(m); len(replies) > 0 {
		var users []string
		for _, r := range replies {
			if !slices.Contains(users, r.User) {
				users = append(users, r.User)
			}
		}
		out["thread_ts"] = m.TS
		out["reply_count"] = len(replies)
		out["reply_users"] = users
		out["reply_users_count"] = len(users)
		out["latest_reply"] = replies[len(replies)-1].TS
	}
	if len(m.FileIDs) > 0 {
		var files []map[string]any
		for _, id := range m.FileIDs {
			if f := s.files[id]; f != nil {
				files = append(files, s.fileJSON(f))
			}
		}
		out["files"] = files
		out["upload"] = true
	}
	if len(m.Reactions) > 0 {
		var rs []map[string]any
		for _, name := range m.Reactions {
			rs = append(rs, map[string]any{"name": name, "users": []string{s.opts.BotUserID}, "count": 1})
		}
		out["reactions"] = rs
	}
	return out
}

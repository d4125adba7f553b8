package fakeslack

import (
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
)

// Page sizes: Slack's defaults when limit is absent, and the most it returns.
const (
	defaultRepliesLimit = 1000
	defaultHistoryLimit = 100
	maxLimit            = 1000
)

// replies answers conversations.replies: the thread's root and replies,
// oldest first. A ts naming a reply answers with its whole thread.
func (s *Server) replies(r *apiRequest) (map[string]any, *apiError) {
	channel, ts := r.get("channel"), r.get("ts")
	if channel == "" {
		return nil, fail("channel_not_found")
	}
	list := s.thread(channel, ts)
	if list == nil {
		return nil, fail("thread_not_found")
	}
	return s.page(r, list, defaultRepliesLimit, false)
}

// history answers conversations.history: top-level messages (and replies
// broadcast to the channel), newest first. A channel with no messages
// answers with none rather than channel_not_found.
func (s *Server) history(r *apiRequest) (map[string]any, *apiError) {
	channel := r.get("channel")
	if channel == "" {
		return nil, fail("channel_not_found")
	}
	var list []*Message
	for _, m := range s.msgs[channel] {
		if !isReply(m) || m.Broadcast {
			list = append(list, m)
		}
	}
	slices.Reverse(list)
	return s.page(r, list, defaultHistoryLimit, true)
}

// page filters list by the oldest, latest and inclusive parameters and cuts
// the page that cursor and limit select. The cursor, like Slack's, is the
// base64 of "next_ts:<ts of the page's first message>", so pages stay put
// when messages are added. desc says list is newest first.
func (s *Server) page(r *apiRequest, list []*Message, defaultLimit int, desc bool) (map[string]any, *apiError) {
	inclusive := r.get("inclusive") == "1" || r.get("inclusive") == "true"
	var bounds [2]int64 // oldest, latest
	for i, name := range []string{"oldest", "latest"} {
		v := r.get(name)
		if v == "" {
			continue
		}
		us, ok := parseTS(v)
		if !ok {
			return nil, fail("invalid_ts_" + name)
		}
		bounds[i] = us
	}
	list = slices.DeleteFunc(slices.Clone(list), func(m *Message) bool {
		k := tsKey(m.TS)
		if r.get("oldest") != "" && (k < bounds[0] || k == bounds[0] && !inclusive) {
			return true
		}
		return r.get("latest") != "" && (k > bounds[1] || k == bounds[1] && !inclusive)
	})

	limit := defaultLimit
	if v := r.get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, fail("invalid_limit")
		}
		if n > 0 {
			limit = min(n, maxLimit)
		}
	}
	start := 0
	if c := r.get("cursor"); c != "" {
		at, ok := decodeCursor(c)
		if !ok {
			return nil, fail("invalid_cursor")
		}
		start = slices.IndexFunc(list, func(m *Message) bool {
			if desc {
				return tsKey(m.TS) <= at
			}
			return tsKey(m.TS) >= at
		})
		if start < 0 {
			start = len(list)
		}
	}
	end := min(start+limit, len(list))
	messages := []map[string]any{}
	for _, m := range list[start:end] {
		messages = append(messages, s.messageJSON(m))
	}
	next := ""
	if end < len(list) {
		next = encodeCursor(list[end].TS)
	}
	return map[string]any{
		"messages":          messages,
		"has_more":          next != "",
		"response_metadata": map[string]any{"next_cursor": next},
	}, nil
}

func encodeCursor(ts string) string {
	return base64.StdEncoding.EncodeToString([]byte("next_ts:" + ts))
}

func decodeCursor(c string) (int64, bool) {
	b, err := base64.StdEncoding.DecodeString(c)
	if err != nil {
		return 0, false
	}
	ts, ok := strings.CutPrefix(string(b), "next_ts:")
	if !ok {
		return 0, false
	}
	return parseTS(ts)
}

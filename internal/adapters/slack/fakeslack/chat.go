package fakeslack

import (
	"encoding/json"
	"slices"
)

// Ephemeral is a message sent with chat.postEphemeral, visible to one user.
type Ephemeral struct {
	Channel  string
	User     string
	Text     string
	Blocks   json.RawMessage
	ThreadTS string
	// TS is the message_ts the server answered with.
	TS string
}

// Ephemerals returns copies of the ephemeral messages sent so far, in order.
func (s *Server) Ephemerals() []Ephemeral {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.ephemerals)
	for i := range out {
		out[i].Blocks = append(json.RawMessage(nil), out[i].Blocks...)
	}
	return out
}

// content reads and checks the text and blocks of a message request.
func content(r *apiRequest) (text string, blocks json.RawMessage, _ *apiError) {
	text = r.get("text")
	if e := checkText(text); e != nil {
		return "", nil, e
	}
	blocks, e := checkBlocks(r.get("blocks"), maxMessageBlocks)
	if e != nil {
		return "", nil, e
	}
	return text, blocks, nil
}

// postMessage answers chat.postMessage: the bot posts to a channel or
// thread.
func (s *Server) postMessage(r *apiRequest) (map[string]any, *apiError) {
	channel := r.get("channel")
	if channel == "" {
		return nil, fail("channel_not_found")
	}
	text, blocks, e := content(r)
	if e != nil {
		return nil, e
	}
	if text == "" && blocks == nil && r.get("attachments") == "" {
		return nil, fail("no_text")
	}
	m := &Message{
		Channel:   channel,
		TS:        s.nextTS(),
		ThreadTS:  r.get("thread_ts"),
		User:      s.opts.BotUserID,
		BotID:     s.opts.BotID,
		Text:      text,
		Blocks:    blocks,
		Broadcast: r.get("reply_broadcast") == "true",
	}
	s.insert(m)
	return map[string]any{"channel": channel, "ts": m.TS, "message": s.messageJSON(m)}, nil
}

// updateMessage answers chat.update. Text and blocks that the request leaves
// out keep their old values, as on Slack; "blocks=[]" clears the blocks.
// Only the bot's own messages can be updated.
func (s *Server) updateMessage(r *apiRequest) (map[string]any, *apiError) {
	m, e := s.ownMessage(r, "cant_update_message")
	if e != nil {
		return nil, e
	}
	text, blocks, e := content(r)
	if e != nil {
		return nil, e
	}
	if !r.has("text") {
		text = m.Text
	}
	if !r.has("blocks") {
		blocks = m.Blocks
	}
	if text == "" && blocks == nil && r.get("attachments") == "" {
		return nil, fail("no_text")
	}
	m.Text, m.Blocks, m.Edited = text, blocks, true
	return map[string]any{"channel": m.Channel, "ts": m.TS, "text": m.Text, "message": s.messageJSON(m)}, nil
}

// deleteMessage answers chat.delete for the bot's own messages.
func (s *Server) deleteMessage(r *apiRequest) (map[string]any, *apiError) {
	m, e := s.ownMessage(r, "cant_delete_message")
	if e != nil {
		return nil, e
	}
	s.remove(m.Channel, m.TS)
	return map[string]any{"channel": m.Channel, "ts": m.TS}, nil
}

// ownMessage finds the message named by the channel and ts parameters and
// checks that the bot posted it, failing with notOwn otherwise.
func (s *Server) ownMessage(r *apiRequest, notOwn string) (*Message, *apiError) {
	channel := r.get("channel")
	if channel == "" {
		return nil, fail("channel_not_found")
	}
	m := s.find(channel, r.get("ts"))
	if m == nil {
		return nil, fail("message_not_found")
	}
	if m.BotID != s.opts.BotID {
		return nil, fail(notOwn)
	}
	return m, nil
}

// postEphemeral answers chat.postEphemeral. The message is recorded, not
// stored: it never shows up in conversations.*.
func (s *Server) postEphemeral(r *apiRequest) (map[string]any, *apiError) {
	channel, user := r.get("channel"), r.get("user")
	if channel == "" {
		return nil, fail("channel_not_found")
	}
	if user == "" {
		return nil, fail("user_not_in_channel")
	}
	text, blocks, e := content(r)
	if e != nil {
		return nil, e
	}
	if text == "" && blocks == nil && r.get("attachments") == "" {
		return nil, fail("no_text")
	}
	ts := s.nextTS()
	s.ephemerals = append(s.ephemerals, Ephemeral{Channel: channel, User: user, Text: text, Blocks: blocks, ThreadTS: r.get("thread_ts"), TS: ts})
	return map[string]any{"message_ts": ts}, nil
}

// addReaction answers reactions.add.
func (s *Server) addReaction(r *apiRequest) (map[string]any, *apiError) {
	name := r.get("name")
	if name == "" {
		return nil, fail("invalid_name")
	}
	m := s.find(r.get("channel"), r.get("timestamp"))
	if m == nil {
		return nil, fail("message_not_found")
	}
	if slices.Contains(m.Reactions, name) {
		return nil, fail("already_reacted")
	}
	m.Reactions = append(m.Reactions, name)
	return nil, nil
}

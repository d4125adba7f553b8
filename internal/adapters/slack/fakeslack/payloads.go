package fakeslack

import (
	"encoding/json"
	"net/url"
	"time"
)

// The builders below return payloads shaped like Slack's, ready for Send or,
// encoded, for an HTTP-mode endpoint. The maps are fresh; tests may change
// them before sending.

// EventCallback wraps event in an Events API event_callback, the payload of
// an "events_api" envelope and the body of an HTTP event. An empty eventID
// gets a fresh one.
func (s *Server) EventCallback(eventID string, event map[string]any) map[string]any {
	s.mu.Lock()
	if eventID == "" {
		eventID = s.nextID("Ev")
	}
	s.mu.Unlock()
	return map[string]any{
		"token":      VerificationToken,
		"type":       "event_callback",
		"team_id":    s.opts.TeamID,
		"api_app_id": AppID,
		"event_id":   eventID,
		"event_time": time.Now().Unix(),
		"event":      event,
		"authorizations": []map[string]any{{
			"team_id": s.opts.TeamID, "user_id": s.opts.BotUserID, "is_bot": true, "is_enterprise_install": false,
		}},
		"is_ext_shared_channel": false,
		"event_context":         "fakeslack-" + eventID,
	}
}

// AppMention builds an app_mention event. An empty ts gets a fresh one; an
// empty threadTS leaves thread_ts out. The builder does not store the
// message: seed it with AddMessage and pass its ts when the code under test
// reads the thread back.
func (s *Server) AppMention(channel, user, text, ts, threadTS string) map[string]any {
	return s.userEvent("app_mention", channel, user, text, ts, threadTS)
}

// UserMessage builds a message event from a user; channelType is "channel",
// "group", "im" or "mpim". Empty ts and threadTS behave as in AppMention.
func (s *Server) UserMessage(channel, channelType, user, text, ts, threadTS string) map[string]any {
	ev := s.userEvent("message", channel, user, text, ts, threadTS)
	ev["channel_type"] = channelType
	ev["client_msg_id"] = "fakeslack-" + str(ev["ts"])
	return ev
}

func (s *Server) userEvent(typ, channel, user, text, ts, threadTS string) map[string]any {
	s.mu.Lock()
	if ts == "" {
		ts = s.nextTS()
	}
	s.mu.Unlock()
	ev := map[string]any{
		"type":     typ,
		"channel":  channel,
		"user":     user,
		"text":     text,
		"ts":       ts,
		"event_ts": ts,
		"team":     s.opts.TeamID,
	}
	if threadTS != "" {
		ev["thread_ts"] = threadTS
	}
	return ev
}

// BlockAction builds a block_actions interaction: user clicked a button
// with actionID and value on the message messageTS (in the thread threadTS,
// when not empty) in channel. The message fields come from the store when
// the message is there. response_url is a fresh ResponseURL whose
// replace_original and delete_original act on that message. The action's
// block_id is "fakeslack_actions" (slack-go needs one to decode a block
// action); an empty triggerID gets a fresh one.
func (s *Server) BlockAction(user, channel, messageTS, threadTS, actionID, value, triggerID string) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if triggerID == "" {
		triggerID = s.nextID("trigger.")
	}
	message := map[string]any{"type": "message", "ts": messageTS}
	if m := s.find(channel, messageTS); m != nil {
		message = s.messageJSON(m)
	}
	container := map[string]any{"type": "message", "message_ts": messageTS, "channel_id": channel, "is_ephemeral": false}
	if threadTS != "" {
		container["thread_ts"] = threadTS
		message["thread_ts"] = threadTS
	}
	now := formatTS(time.Now().UnixMicro())
	return map[string]any{
		"type":         "block_actions",
		"token":        VerificationToken,
		"api_app_id":   AppID,
		"user":         s.userJSON(user),
		"team":         map[string]any{"id": s.opts.TeamID, "domain": "fakeslack"},
		"channel":      map[string]any{"id": channel, "name": channel},
		"container":    container,
		"message":      message,
		"trigger_id":   triggerID,
		"response_url": s.responseURL(respTarget{channel: channel, ts: messageTS}),
		"actions": []map[string]any{{
			"action_id": actionID,
			"block_id":  "fakeslack_actions",
			"type":      "button",
			"value":     value,
			"action_ts": now,
		}},
		"state":                 map[string]any{"values": map[string]any{}},
		"is_enterprise_install": false,
	}
}

// ViewSubmission builds a view_submission interaction for a modal with
// callbackID and privateMetadata; values[blockID][actionID] is the text typed
// into a plain_text_input. When a view with callbackID was opened, the
// payload names that view's id and blocks.
func (s *Server) ViewSubmission(user, callbackID, privateMetadata string, values map[string]map[string]string) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := View{Type: "modal", CallbackID: callbackID}
	for _, opened := range s.views {
		if opened.CallbackID == callbackID {
			v = opened
		}
	}
	if v.ID == "" {
		v.ID = s.nextID("V")
		v.JSON, _ = json.Marshal(map[string]any{"type": "modal", "callback_id": callbackID})
	}
	state := map[string]any{}
	for block, actions := range values {
		inputs := map[string]any{}
		for action, text := range actions {
			inputs[action] = map[string]any{"type": "plain_text_input", "value": text}
		}
		state[block] = inputs
	}
	view := s.viewJSON(v, state)
	view["private_metadata"] = privateMetadata
	return map[string]any{
		"type":                  "view_submission",
		"token":                 VerificationToken,
		"api_app_id":            AppID,
		"team":                  map[string]any{"id": s.opts.TeamID, "domain": "fakeslack"},
		"user":                  s.userJSON(user),
		"trigger_id":            s.nextID("trigger."),
		"view":                  view,
		"response_urls":         []any{},
		"is_enterprise_install": false,
	}
}

// SlashCommand builds the payload of a "slash_commands" envelope: user ran
// command (like "/ask") with text in channel. response_url is a fresh
// ResponseURL.
func (s *Server) SlashCommand(command, text, user, channel string) map[string]any {
	out := map[string]any{}
	for k, v := range s.SlashCommandForm(command, text, user, channel) {
		out[k] = v[0]
	}
	return out
}

// SlashCommandForm builds the form Slack posts to an HTTP-mode slash command
// endpoint; the fields are those of SlashCommand.
func (s *Server) SlashCommandForm(command, text, user, channel string) url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	name := user
	if u, ok := s.users[user]; ok {
		name = u.Name
	}
	return url.Values{
		"token":                 {VerificationToken},
		"team_id":               {s.opts.TeamID},
		"team_domain":           {"fakeslack"},
		"channel_id":            {channel},
		"channel_name":          {channel},
		"user_id":               {user},
		"user_name":             {name},
		"command":               {command},
		"text":                  {text},
		"api_app_id":            {AppID},
		"is_enterprise_install": {"false"},
		"response_url":          {s.responseURL(respTarget{})},
		"trigger_id":            {s.nextID("trigger.")},
	}
}

// InteractionForm builds the form Slack posts to an HTTP-mode interactivity
// endpoint: payload, JSON-encoded, in the field "payload".
func InteractionForm(payload map[string]any) url.Values {
	b, err := json.Marshal(payload)
	if err != nil {
		panic("fakeslack: InteractionForm: " + err.Error())
	}
	return url.Values{"payload": {string(b)}}
}

// userJSON renders the user object of an interaction. The caller holds s.mu.
func (s *Server) userJSON(id string) map[string]any {
	name := id
	if u, ok := s.users[id]; ok {
		name = u.Name
	}
	return map[string]any{"id": id, "username": name, "name": name, "team_id": s.opts.TeamID}
}

// AttachFiles adds the files with ids (see AddFile) to an event built by
// AppMention or UserMessage, as Slack lists them, and gives a message event
// the file_share subtype. It returns ev.
func (s *Server) AttachFiles(ev map[string]any, ids ...string) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var files []map[string]any
	for _, id := range ids {
		if f := s.files[id]; f != nil {
			files = append(files, s.fileJSON(f))
		}
	}
	ev["files"] = files
	if ev["type"] == "message" {
		ev["subtype"] = "file_share"
	}
	return ev
}

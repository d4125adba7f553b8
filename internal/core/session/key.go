package session

import "strings"

// Key identifies a thread: a session.
type Key struct {
	Platform  string `json:"platform"`
	Workspace string `json:"workspace,omitempty"` // Slack team, Discord guild
	Channel   string `json:"channel"`
	Thread    string `json:"thread"` // Slack thread_ts, Discord thread channel id
}

// ID is the session id of the key: its parts joined by "-", each reduced to
// letters, digits, '.' and '_' so it is safe as a directory name.
func (k Key) ID() string {
	parts := []string{k.Platform, k.Workspace, k.Channel, k.Thread}
	for i, p := range parts {
		if p == "" {
			parts[i] = "_"
			continue
		}
		parts[i] = strings.Map(func(r rune) rune {
			if r == '.' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
				return r
			}
			return '_'
		}, p)
	}
	return strings.Join(parts, "-")
}

// ChannelKey is the key with the thread cleared: what channel settings
// apply to.
func (k Key) ChannelKey() Key { k.Thread = ""; return k }

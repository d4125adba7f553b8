package slack

import (
	"context"
	"time"

	slackapi "github.com/slack-go/slack"
)

// adminEntry is a cached users.info answer.
type adminEntry struct {
	admin bool
	name  string
	at    time.Time
}

// isAdmin reports whether user may act as an admin: a configured admin
// (THREADBOT_ADMINS) or a workspace admin or owner according to
// users.info. Answers are cached for AdminCacheTTL; when Slack cannot be
// asked the user is not an admin.
func (a *Adapter) isAdmin(ctx context.Context, user string) bool {
	if user == "" {
		return false
	}
	if rt := a.runtime(); rt != nil && rt.IsAdmin(user) {
		return true
	}
	e, ok := a.userInfo(ctx, user)
	return ok && e.admin
}

// userInfo returns the cached or fresh users.info answer for user.
func (a *Adapter) userInfo(ctx context.Context, user string) (adminEntry, bool) {
	a.mu.Lock()
	e, ok := a.admins[user]
	a.mu.Unlock()
	if ok && time.Since(e.at) < a.opts.AdminCacheTTL {
		return e, true
	}
	var u *slackapi.User
	err := a.call(ctx, "users.info", "", func(ctx context.Context) error {
		var err error
		u, err = a.api.GetUserInfoContext(ctx, user)
		return err
	})
	if err != nil {
		a.lg.Warn("users.info", "user", user, "err", err)
		return adminEntry{}, false
	}
	name := u.Profile.DisplayName
	if name == "" {
		name = u.RealName
	}
	if name == "" {
		name = u.Name
	}
	e = adminEntry{admin: u.IsAdmin || u.IsOwner || u.IsPrimaryOwner, name: name, at: time.Now()}
	a.mu.Lock()
	if len(a.admins) >= 10_000 {
		clear(a.admins)
	}
	a.admins[user] = e
	a.mu.Unlock()
	return e, true
}

// ephemeral shows text to user only, in a channel (and thread). Failures
// are logged: there is nobody else to tell.
func (a *Adapter) ephemeral(ctx context.Context, channel, user, threadTS, text string) {
	opts := []slackapi.MsgOption{slackapi.MsgOptionText(text, false)}
	if threadTS != "" {
		opts = append(opts, slackapi.MsgOptionTS(threadTS))
	}
	err := a.call(ctx, "chat.postEphemeral", channel, func(ctx context.Context) error {
		_, err := a.api.PostEphemeralContext(ctx, channel, user, opts...)
		return err
	})
	if err != nil {
		a.lg.Warn("post ephemeral", "channel", channel, "user", user, "err", err)
	}
}

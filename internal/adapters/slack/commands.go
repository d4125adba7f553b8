package slack

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	slackapi "github.com/slack-go/slack"

	"github.com/threadbot/threadbot/internal/core/session"
)

// commandHelp is the answer to "/threadbot help"; %[1]s is the command.
const commandHelp = `*%[1]s* — threadbot
• ` + "`%[1]s tools`" + ` — tool groups and tools, and whether they are on in this channel
• ` + "`%[1]s enable|disable <group|tool> [channel|workspace]`" + ` — switch a group or tool (admins; default: this channel)
• ` + "`%[1]s status`" + ` — what is running in this channel
• ` + "`%[1]s stop`" + ` — stop the turns you started in this channel (admins: all)
• ` + "`%[1]s help`" + ` — this help
Talk to me by mentioning me; I answer in the thread. Slack does not send slash commands from inside threads: to stop one thread, press *Stop* on its status line or write ` + "`@threadbot stop`" + ` there.`

// onCommand handles a slash command (already acknowledged) and answers
// the user privately.
func (a *Adapter) onCommand(ctx context.Context, cmd slackapi.SlashCommand) {
	team := cmd.TeamID
	if team == "" {
		team = a.identity().TeamID
	}
	key := session.Key{Platform: Name, Workspace: team, Channel: cmd.ChannelID}
	answer := a.command(ctx, key, cmd.UserID, strings.Fields(cmd.Text))
	a.respond(ctx, cmd, answer)
}

// command runs one command and returns its answer in mrkdwn.
func (a *Adapter) command(ctx context.Context, key session.Key, user string, args []string) string {
	if len(args) == 0 {
		return fmt.Sprintf(commandHelp, a.opts.Command)
	}
	rt := a.runtime()
	switch strings.ToLower(args[0]) {
	case "help":
		return fmt.Sprintf(commandHelp, a.opts.Command)
	case "tools":
		return a.toolsList(ctx, key)
	case "enable", "disable":
		if len(args) < 2 || len(args) > 3 {
			return fmt.Sprintf("Usage: `%s %s <group|tool> [channel|workspace]`", a.opts.Command, args[0])
		}
		scope := session.ScopeChannel
		if len(args) == 3 {
			switch strings.ToLower(args[2]) {
			case "channel":
			case "workspace":
				scope = session.ScopeWorkspace
			default:
				return fmt.Sprintf("The scope is `channel` or `workspace`, not `%s`.", escape(args[2]))
			}
		}
		on := strings.EqualFold(args[0], "enable")
		kind, err := rt.SetTool(ctx, key, scope, args[1], on, user, a.isAdmin(ctx, user))
		switch {
		case errors.Is(err, session.ErrNotAllowed):
			return ":no_entry: Only admins can switch tools."
		case errors.Is(err, session.ErrNotFound):
			return fmt.Sprintf("There is no tool group or tool called `%s`. `%s tools` lists them.", escape(args[1]), a.opts.Command)
		case err != nil:
			a.lg.Error("set tool", "name", args[1], "err", err)
			return ":warning: Sorry, the setting could not be saved."
		}
		where := "in this channel"
		if scope == session.ScopeWorkspace {
			where = "in the whole workspace"
		}
		state := "enabled"
		if !on {
			state = "disabled"
		}
		a.lg.Info("tool setting changed", "kind", kind, "name", args[1], "enabled", on, "scope", scope, "by", user, "channel", key.Channel)
		return fmt.Sprintf("%s `%s` %s %s, from the next message.", capitalize(kind), escape(args[1]), state, where)
	case "status":
		return a.status(key)
	case "stop":
		return a.stopChannel(ctx, key, user)
	}
	return fmt.Sprintf("I don't know `%s`.\n", escape(args[0])) + fmt.Sprintf(commandHelp, a.opts.Command)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// toolsList renders the groups and tools in force for a channel.
func (a *Adapter) toolsList(ctx context.Context, key session.Key) string {
	groups, err := a.runtime().Tools(ctx, key)
	if err != nil {
		a.lg.Error("list tools", "err", err)
		return ":warning: Sorry, the tools could not be listed."
	}
	if len(groups) == 0 {
		return "No tool groups are configured."
	}
	var b strings.Builder
	b.WriteString("*Tools in this channel*\n")
	for _, g := range groups {
		state := ":large_green_circle: on"
		if !g.Enabled {
			state = ":white_circle: off"
		}
		fmt.Fprintf(&b, "%s *%s*\n", state, escape(g.Name))
		for _, t := range g.Tools {
			ts := "on"
			if !t.Enabled {
				ts = "off"
			}
			fmt.Fprintf(&b, "    `%s` %s · %s\n", escape(t.Name), ts, t.Permission.Execution)
		}
	}
	fmt.Fprintf(&b, "Admins switch them with `%s enable|disable <name> [channel|workspace]`.", a.opts.Command)
	return b.String()
}

// status says what runs in a channel.
func (a *Adapter) status(key session.Key) string {
	act := a.runtime().Active(key)
	if len(act) == 0 {
		return "Nothing is running in this channel."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "*Running in this channel:* %d thread(s)\n", len(act))
	for _, t := range act {
		state := "running"
		if !t.Running {
			state = "queued"
		}
		fmt.Fprintf(&b, "• %s — %s for <@%s>", a.threadLink(t.Key), state, t.Requester)
		if t.Queued > 0 {
			fmt.Fprintf(&b, ", %d message(s) waiting", t.Queued)
		}
		b.WriteString("\n")
	}
	return strings.TrimSpace(b.String())
}

// threadLink links to a thread when the workspace URL is known.
func (a *Adapter) threadLink(k session.Key) string {
	base := a.identity().URL
	if base == "" || !strings.HasPrefix(base, "https://") {
		return "thread " + k.Thread
	}
	return fmt.Sprintf("<%sarchives/%s/p%s|thread %s>", strings.TrimSuffix(base, "/")+"/", k.Channel, strings.ReplaceAll(k.Thread, ".", ""), k.Thread)
}

// stopChannel stops the turns user started in a channel, or all of them
// for an admin.
func (a *Adapter) stopChannel(ctx context.Context, key session.Key, user string) string {
	admin := a.isAdmin(ctx, user)
	n := 0
	for _, t := range a.runtime().Active(key) {
		if !admin && t.Requester != user {
			continue
		}
		if ok, err := a.runtime().Stop(t.Key, user, admin); err == nil && ok {
			n++
		}
	}
	switch n {
	case 0:
		return "You have nothing running in this channel."
	case 1:
		return "Stopped 1 turn."
	}
	return fmt.Sprintf("Stopped %d turns.", n)
}

// respond answers a slash command privately: through its response_url,
// or as an ephemeral message when that fails.
func (a *Adapter) respond(ctx context.Context, cmd slackapi.SlashCommand, text string) {
	chunks := split(text, maxText)
	if len(chunks) > 5 {
		chunks = chunks[:5] // response_url takes five answers
	}
	// A response_url lets whoever holds it answer as the app for half an
	// hour, and the HTTP client's errors quote it: the log gets its host
	// and what went wrong, never the URL.
	warn := func(err error) {
		u, _ := url.Parse(cmd.ResponseURL) // slackURL has parsed it
		msg := err.Error()
		if ue := (*url.Error)(nil); errors.As(err, &ue) && ue.Err != nil {
			msg = ue.Op + ": " + ue.Err.Error()
		}
		msg = strings.ReplaceAll(msg, cmd.ResponseURL, "<response_url>")
		if p := u.EscapedPath(); len(p) > 1 {
			msg = strings.ReplaceAll(msg, p, "/…")
		}
		a.lg.Warn("answer slash command through response_url", "host", u.Host, "err", msg)
	}
	for _, c := range chunks {
		if cmd.ResponseURL != "" && a.slackURL(cmd.ResponseURL) {
			msg := &slackapi.WebhookMessage{Text: c, ResponseType: slackapi.ResponseTypeEphemeral}
			err := slackapi.PostWebhookCustomHTTPContext(ctx, cmd.ResponseURL, a.opts.HTTPClient, msg)
			if err == nil {
				continue
			}
			warn(err)
		}
		a.ephemeral(ctx, cmd.ChannelID, cmd.UserID, "", c)
	}
}

// slackURL reports whether a response_url points at Slack (or at the
// configured API host), so a payload cannot make the bot post elsewhere.
func (a *Adapter) slackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if u.Scheme == "https" {
		for _, d := range []string{"slack.com", "slack-gov.com"} {
			if host == d || strings.HasSuffix(host, "."+d) {
				return true
			}
		}
	}
	if api, err := url.Parse(a.opts.APIURL); err == nil && api.Host != "" {
		return u.Scheme == api.Scheme && strings.EqualFold(u.Host, api.Host)
	}
	return false
}

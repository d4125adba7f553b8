package slack

import (
	"context"
	"regexp"
	"strings"

	slackapi "github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/threadbot/threadbot/internal/core/session"
)

// inbound is a person's message as the adapter sees it, from an
// app_mention or a message event.
type inbound struct {
	team, channel, channelType string
	user, botID, subtype       string
	text, ts, threadTS         string
	mention                    bool // from an app_mention event
	files                      []slackapi.File
}

// onEventsAPI takes one Events API event. It reports false when the event
// could not be taken (shutting down, or too many waiting): it must not be
// acknowledged, so Slack sends it again.
func (a *Adapter) onEventsAPI(ev slackevents.EventsAPIEvent, raw []byte) bool {
	if ev.Type != slackevents.CallbackEvent {
		return true
	}
	team := ev.TeamID
	switch e := ev.InnerEvent.Data.(type) {
	case *slackevents.AppMentionEvent:
		if e.Edited != nil {
			return true // an edit of an old message is not a new request
		}
		return a.onMessage(inbound{
			team: team, channel: e.Channel, user: e.User, botID: e.BotID,
			text: e.Text, ts: e.TimeStamp, threadTS: e.ThreadTimeStamp, mention: true, files: e.Files,
		}, raw)
	case *slackevents.MessageEvent:
		var files []slackapi.File
		if e.Message != nil {
			files = e.Message.Files
		}
		return a.onMessage(inbound{
			team: team, channel: e.Channel, channelType: e.ChannelType, user: e.User, botID: e.BotID,
			subtype: e.SubType, text: e.Text, ts: e.TimeStamp, threadTS: e.ThreadTimeStamp, files: files,
		}, raw)
	}
	return true
}

// onMessage drops what is plainly not for the bot and queues the rest (in
// arrival order per thread) for route, kept in the journal until route
// is done with it; false when it could not be queued.
func (a *Adapter) onMessage(m inbound, raw []byte) bool {
	me := a.identity()
	switch {
	case m.user == "" && m.botID == "":
		return true
	case m.user == me.UserID || (me.BotID != "" && m.botID == me.BotID):
		return true // our own message
	case (m.botID != "" || m.subtype == "bot_message") && !a.opts.AllowBots:
		return true
	}
	switch m.subtype {
	case "", "file_share", "thread_broadcast", "bot_message":
	default:
		return true // edits, deletions, joins, topic changes…
	}
	if m.threadTS == "" && !isDM(m) && !m.mention && !mentions(m.text, me.UserID) {
		return true // top-level channel chatter
	}
	if m.team == "" {
		m.team = me.TeamID
	}
	root := m.threadTS
	if root == "" {
		root = m.ts
	}
	id := "msg:" + m.channel + ":" + m.ts
	j := a.opts.Journal
	if j != nil && len(raw) > 0 {
		if err := j.Put(context.Background(), id, raw); err != nil {
			a.lg.Error("keep event in the journal", "event", id, "err", err)
		}
	}
	ok := a.offer(m.channel+" "+root, func(ctx context.Context) {
		if retry := a.route(ctx, m); j != nil && !retry && ctx.Err() == nil {
			if err := j.Delete(ctx, id); err != nil {
				a.lg.Warn("forget event in the journal", "event", id, "err", err)
			}
		}
	})
	// When it was not queued (not acknowledged), its entry stays: Slack
	// sends it again, and a replay at the next start is dropped as seen.
	return ok
}

// route runs in order with the other messages: it finds the thread, checks
// the bot takes part in it, and hands the message to the runtime.
//
// It reports retry when the runtime could not take the message (its store
// failed, or it is closed): the journal keeps it for the next start.
func (a *Adapter) route(ctx context.Context, m inbound) (retry bool) {
	me := a.identity()
	dm := isDM(m)
	mentioned := m.mention || mentions(m.text, me.UserID)
	root := m.threadTS
	if root == "" {
		root = m.ts
	}
	key := session.Key{Platform: Name, Workspace: m.team, Channel: m.channel, Thread: root}
	lg := a.lg.With("channel", m.channel, "thread", root)
	if !dm && !mentioned {
		if m.threadTS == "" || !a.takesPart(ctx, key) {
			return // channel chatter not addressed to the bot
		}
	}
	text := cleanText(m.text, me.UserID)
	rt := a.runtime()
	eventID := "msg:" + m.channel + ":" + m.ts
	if !a.hand(eventID) {
		// The app_mention and message events of one message (both reach
		// this worker, in order), or a redelivery: the runtime would drop
		// it, but a stop must not run twice nor files download twice.
		return
	}
	if isStop(text) {
		switch {
		case m.threadTS == "" && (mentioned || dm):
			// A top-level message opens its own thread: "stop" there means
			// the turns running in this channel or DM.
			a.ephemeral(ctx, m.channel, m.user, "", a.stopChannel(ctx, key, m.user))
			return
		case m.threadTS != "" && (mentioned || a.running(key)):
			// Without a mention, a plain "stop" in a thread with nothing
			// running is an answer for the model.
			a.stopThread(ctx, key, m.user, m.threadTS)
			return
		}
	}
	if strings.TrimSpace(text) == "" && len(m.files) == 0 {
		if !mentioned {
			return // an empty message: nothing to answer
		}
		text = "(The user mentioned you without a message.)"
	}
	var files []session.File
	if len(m.files) > 0 {
		var notes []string
		files, notes = a.download(ctx, m.files)
		if len(notes) > 0 {
			text = strings.TrimSpace(text + "\n\n[Attached but not saved:\n- " + strings.Join(notes, "\n- ") + "]")
		}
	}
	a.takePart(key, "")
	ok, err := rt.Handle(ctx, session.Inbound{
		Key: key, EventID: eventID, User: m.user, Text: text, Files: files, Ref: session.Ref(m.ts),
	})
	switch {
	case err != nil:
		lg.Error("hand message to the runtime", "err", err)
		a.unhand(eventID) // a redelivery, or the journal at the next start, may try again
		return true
	case !ok:
		lg.Debug("message seen before; not answering twice", "ts", m.ts)
	}
	return false
}

// replayJournal queues again the events kept from before a crash: they
// were acknowledged, so Slack will not send them again. The runtime drops
// those it has seen.
func (a *Adapter) replayJournal(ctx context.Context) {
	j := a.opts.Journal
	if j == nil {
		return
	}
	ids, payloads, err := j.All(ctx)
	if err != nil {
		a.lg.Error("read the event journal", "err", err)
		return
	}
	for i, raw := range payloads {
		ev, err := slackevents.ParseEvent(raw, slackevents.OptionNoVerifyToken())
		if err != nil {
			a.lg.Warn("drop an unreadable journal entry", "event", ids[i], "err", err)
			_ = j.Delete(ctx, ids[i])
			continue
		}
		a.onEventsAPI(ev, raw)
	}
	if len(ids) > 0 {
		a.lg.Info("replayed events kept from before a stop", "events", len(ids))
	}
}

// isDM reports whether a message is in a direct message with the bot.
func isDM(m inbound) bool {
	return m.channelType == "im" || (m.channelType == "" && strings.HasPrefix(m.channel, "D"))
}

// hand records that the message with eventID is being handled, and
// reports false when it was already.
func (a *Adapter) hand(eventID string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.handed[eventID] {
		return false
	}
	if len(a.handed) >= 10_000 {
		clear(a.handed) // the runtime's own check still holds
	}
	a.handed[eventID] = true
	return true
}

func (a *Adapter) unhand(eventID string) {
	a.mu.Lock()
	delete(a.handed, eventID)
	a.mu.Unlock()
}

// running reports whether a turn of the thread is running.
func (a *Adapter) running(key session.Key) bool {
	for _, act := range a.runtime().Active(key) {
		if act.Key == key && act.Running {
			return true
		}
	}
	return false
}

// isStop reports whether a message says just "stop" (any case, in bold or
// italics, with punctuation).
func isStop(text string) bool {
	return strings.EqualFold(strings.Trim(text, " \t\n.!?*_~"), "stop")
}

// takesPart reports whether the bot has taken part in a thread: it
// posted there since the start, or the runtime has the thread's session.
func (a *Adapter) takesPart(ctx context.Context, key session.Key) bool {
	a.mu.Lock()
	ok := a.threads[key]
	a.mu.Unlock()
	if ok {
		return true
	}
	known, err := a.runtime().Known(ctx, key)
	if err != nil {
		a.lg.Warn("check thread", "channel", key.Channel, "thread", key.Thread, "err", err)
		return false
	}
	if known {
		a.takePart(key, "")
	}
	return known
}

// stopThread stops the running turn of a thread for a "@bot stop" message.
func (a *Adapter) stopThread(ctx context.Context, key session.Key, user, threadTS string) {
	admin := a.isAdmin(ctx, user)
	stopped, err := a.runtime().Stop(key, user, admin)
	var text string
	switch {
	case err != nil:
		text = "Only the person who asked, or an admin, can stop this."
	case !stopped:
		text = "Nothing is running in this thread."
	default:
		return // the status line shows ⏹ Stopped
	}
	a.ephemeral(ctx, key.Channel, user, threadTS, text)
}

var mentionRE = regexp.MustCompile(`<@([A-Z0-9]+)(?:\|[^>]*)?>`)

// mentions reports whether text mentions user.
func mentions(text, user string) bool {
	if user == "" {
		return false
	}
	for _, m := range mentionRE.FindAllStringSubmatch(text, -1) {
		if m[1] == user {
			return true
		}
	}
	return false
}

var unescaper = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&")

var linkRE = regexp.MustCompile(`<((?:https?|mailto):[^|>]+)(?:\|([^>]*))?>`)

// cleanText turns a message's mrkdwn into what the model reads: the bot's
// own mention removed, links as plain URLs, entities decoded. Other
// mentions stay as <@U…> so the model can address people.
func cleanText(text, botUser string) string {
	text = mentionRE.ReplaceAllStringFunc(text, func(s string) string {
		if m := mentionRE.FindStringSubmatch(s); m[1] == botUser {
			return ""
		}
		return s
	})
	text = linkRE.ReplaceAllStringFunc(text, func(s string) string {
		m := linkRE.FindStringSubmatch(s)
		url, label := m[1], m[2]
		if label == "" || label == url || "mailto:"+label == url || strings.TrimPrefix(strings.TrimPrefix(url, "https://"), "http://") == label {
			return url
		}
		return label + " (" + url + ")"
	})
	text = unescaper.Replace(text)
	return strings.TrimSpace(text)
}

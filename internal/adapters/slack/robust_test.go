package slack_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/adapters/slack"
	"github.com/threadbot/threadbot/internal/adapters/slack/fakeslack"
	"github.com/threadbot/threadbot/internal/core/session"
	"github.com/threadbot/threadbot/internal/fakeopenai"
)

// "@bot stop" arrives as an app_mention and a message event: it is handled
// once (one refusal for a stranger). A plain "stop" from the requester in
// the bot's thread, in bold and with punctuation, stops the turn without
// reaching the model.
func TestStopHandledOnceAndPlain(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.callWait("stopped early")
	ts := e.mention(channel, alice, "wait")
	fakeslack.Eventually(t, "the wait tool", func() bool { return len(e.ranTools()) == 1 })

	text := "<@" + bot + "> stop"
	stopTS := e.fs.AddMessage(fakeslack.Message{Channel: channel, User: bob, Text: text, ThreadTS: ts})
	e.send("events_api", e.fs.EventCallback("", e.fs.AppMention(channel, bob, text, stopTS, ts)), 0)
	e.send("events_api", e.fs.EventCallback("", e.fs.UserMessage(channel, "channel", bob, text, stopTS, ts)), 0)
	// The thread's messages are handled in order: once alice's stop has
	// worked, both of bob's events were handled.
	e.reply(channel, "channel", alice, "*Stop!*", ts)
	e.waitBot(channel, ts, "Stopped")
	n := 0
	for _, m := range e.fs.Ephemerals() {
		if m.User == bob {
			n++
		}
	}
	if n != 1 {
		t.Errorf("bob got %d refusals for one message, want 1", n)
	}
	for _, r := range e.model.Requests() {
		if strings.Contains(strings.ToLower(lastUserText(r)), "stop") {
			t.Errorf("a stop reached the model: %q", lastUserText(r))
		}
	}
	// With nothing running, "stop" in the thread is an ordinary message.
	e.model.SetHandler(func(req fakeopenai.Request) fakeopenai.Response { return answer("re: " + lastUserText(req)) })
	key := session.Key{Platform: slack.Name, Workspace: fakeslack.DefaultTeamID, Channel: channel, Thread: ts}
	fakeslack.Eventually(t, "the turn to end", func() bool { return len(e.mgr.Active(key)) == 0 })
	e.reply(channel, "channel", alice, "stop", ts)
	e.waitBot(channel, ts, "re: stop")
}

// thread_history, asked during a turn while the thread's next message
// waits, returns the people's messages before the one being answered:
// not that message, not the waiting one, not the bot's own posts.
func TestThreadHistoryCutOff(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.callWait("done")
	root := e.fs.AddMessage(fakeslack.Message{Channel: channel, User: bob, Text: "anyone know why the build is red?"})
	e.reply(channel, "channel", alice, "it broke after the upgrade", root)
	text := "<@" + bot + "> first"
	first := e.fs.AddMessage(fakeslack.Message{Channel: channel, User: alice, Text: text, ThreadTS: root})
	e.send("events_api", e.fs.EventCallback("", e.fs.AppMention(channel, alice, text, first, root)), 0)
	fakeslack.Eventually(t, "the wait tool", func() bool { return len(e.ranTools()) == 1 })
	second := e.reply(channel, "channel", bob, "second", root)
	key := session.Key{Platform: slack.Name, Workspace: fakeslack.DefaultTeamID, Channel: channel, Thread: root}
	// The waiting message shows 👀; the running one does not.
	fakeslack.Eventually(t, "👀 on the waiting message", func() bool {
		return slices.Equal(e.message(channel, second).Reactions, []string{"eyes"})
	})
	if r := e.message(channel, first).Reactions; len(r) != 0 {
		t.Errorf("the running message has reactions %q", r)
	}
	fakeslack.Eventually(t, "the second message queued", func() bool {
		for _, a := range e.mgr.Active(key) {
			if a.Key == key && a.Queued == 1 {
				return true
			}
		}
		return false
	})
	msgs, err := e.ad.ThreadMessages(t.Context(), key.ID(), 50)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, m.Text)
	}
	if want := []string{"anyone know why the build is red?", "it broke after the upgrade"}; !slices.Equal(got, want) {
		t.Errorf("thread_history = %q, want %q", got, want)
	}
}

// HTTP mode, shutting down: an event is refused with 503, so Slack sends
// it again to the next process, instead of being acknowledged and dropped.
func TestHTTPEventsRefusedWhenShuttingDown(t *testing.T) {
	e := newEnv(t, envOpts{http: true})
	e.stop()
	text := "<@" + bot + "> during shutdown"
	ts := e.fs.AddMessage(fakeslack.Message{Channel: channel, User: alice, Text: text})
	body, _ := json.Marshal(e.fs.EventCallback("", e.fs.AppMention(channel, alice, text, ts, "")))
	if res := e.post("/slack/events", body, fakeslack.Sign(secret, time.Now(), body)); res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("event during shutdown = %d, want 503", res.StatusCode)
	}
}

// At shutdown a message handler stuck in rate-limit retries is cancelled
// once the drain time is up, so stopping the bot does not wait for it.
func TestShutdownBoundsStuckHandler(t *testing.T) {
	e := newEnv(t, envOpts{drainTimeout: 100 * time.Millisecond})
	e.fs.RateLimit("users.info", 8, time.Second)
	// "@bot stop" at the top of a channel asks users.info whether bob is
	// an admin: each try gets a 429 with Retry-After 1s.
	e.mention(channel, bob, "stop")
	fakeslack.Eventually(t, "the first users.info", func() bool { return len(e.fs.Calls("users.info")) >= 1 })
	if err := e.waitRun(); err != nil {
		t.Fatalf("Run = %v", err)
	}
	if n := len(e.fs.Calls("users.info")); n >= 8 {
		t.Errorf("users.info was tried %d times: the handler ran all its retries after the shutdown", n)
	}
}

// In a DM thread with nothing running, "stop" is an answer for the model.
func TestStopInDMThreadWithNothingRunning(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.model.SetHandler(func(req fakeopenai.Request) fakeopenai.Response { return answer("re: " + lastUserText(req)) })
	ts := e.reply(dmChannel, "im", alice, "go or stop?", "")
	e.waitBot(dmChannel, ts, "re: go or stop?")
	key := session.Key{Platform: slack.Name, Workspace: fakeslack.DefaultTeamID, Channel: dmChannel, Thread: ts}
	fakeslack.Eventually(t, "the turn to end", func() bool { return len(e.mgr.Active(key)) == 0 })
	e.reply(dmChannel, "im", alice, "stop", ts)
	e.waitBot(dmChannel, ts, "re: stop")
}

// A message acknowledged by a process that crashed before handing it to
// the runtime is kept in the journal and answered by the next process;
// the journal is empty once messages are handled.
func TestJournalReplaysAfterCrash(t *testing.T) {
	var ts string
	e := newEnv(t, envOpts{beforeRun: func(e *env) {
		text := "<@" + bot + "> are you there?"
		ts = e.fs.AddMessage(fakeslack.Message{Channel: channel, User: alice, Text: text})
		raw, _ := json.Marshal(e.fs.EventCallback("", e.fs.AppMention(channel, alice, text, ts, "")))
		if err := e.db.JournalPut(t.Context(), slack.Name, "msg:"+channel+":"+ts, raw); err != nil {
			t.Fatal(err)
		}
	}})
	e.model.SetHandler(func(req fakeopenai.Request) fakeopenai.Response { return answer("re: " + lastUserText(req)) })
	e.waitBot(channel, ts, "re: are you there?")
	// A live message goes through the journal too, and leaves it.
	ts2 := e.mention(channel, alice, "and now?")
	e.waitBot(channel, ts2, "re: and now?")
	fakeslack.Eventually(t, "an empty journal", func() bool {
		es, err := e.db.Journal(t.Context(), slack.Name)
		return err == nil && len(es) == 0
	})
	if n := len(e.model.Requests()); n != 2 {
		t.Errorf("%d model requests, want 2", n)
	}
}

// When the runtime cannot take a message (here it is already closed), the
// journal keeps it for the next start.
func TestJournalKeepsWhatTheRuntimeRefused(t *testing.T) {
	e := newEnv(t, envOpts{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.mgr.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	ts := e.mention(channel, alice, "anyone?")
	want := "msg:" + channel + ":" + ts
	fakeslack.Eventually(t, "the refused message kept in the journal", func() bool {
		es, err := e.db.Journal(t.Context(), slack.Name)
		return err == nil && len(es) == 1 && es[0].ID == want
	})
	// Once Run returns every handler has finished: the entry is still there.
	if err := e.waitRun(); err != nil {
		t.Fatal(err)
	}
	if es, _ := e.db.Journal(t.Context(), slack.Name); len(es) != 1 {
		t.Errorf("journal after the adapter stopped = %+v, want the refused message", es)
	}
}

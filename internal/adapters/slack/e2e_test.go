package slack_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/adapters/slack/fakeslack"
	"github.com/threadbot/threadbot/internal/core/session"
	"github.com/threadbot/threadbot/internal/fakeopenai"
)

// A mention gets its envelope acknowledged before the model is asked, and
// the answer in a thread under the person's message, with a status line
// that ends as Done and loses its Stop button.
func TestMentionAnswersInThread(t *testing.T) {
	e := newEnv(t, envOpts{})
	release := make(chan struct{})
	e.model.SetHandler(func(fakeopenai.Request) fakeopenai.Response {
		<-release
		return answer("It is **4**, see [the docs](https://example.com/math).")
	})
	ts := e.mention(channel, alice, "what is 2+2?")
	fakeslack.Eventually(t, "the model request", func() bool { return len(e.model.Requests()) == 1 })
	// The envelope was acknowledged (send waited for it) while the model
	// was still working.
	close(release)
	got := e.waitBot(channel, ts, "It is *4*")
	if !strings.Contains(got.Text, "<https://example.com/math|the docs>") {
		t.Errorf("answer = %q, want mrkdwn with a Slack link", got.Text)
	}
	if got.ThreadTS != ts {
		t.Errorf("answer thread_ts = %q, want the mention's ts %q", got.ThreadTS, ts)
	}
	if u := lastUserText(e.model.Requests()[0]); u != "what is 2+2?" {
		t.Errorf("model saw %q, want the text without the mention", u)
	}
	status := e.waitDone(channel, ts)
	if buttonValue(status.Blocks, "threadbot_stop") != "" {
		t.Errorf("finished status still has a Stop button: %s", status.Blocks)
	}
	if len(e.fs.Messages(channel)) != 1+len(e.botMessages(channel, ts)) {
		t.Errorf("the bot posted outside the thread: %+v", e.fs.Messages(channel))
	}
}

// /threadbot disable web is refused for a member and takes effect for the
// next turn when an admin (a workspace owner per users.info) runs it; it
// applies to that channel only.
func TestSlashCommandDisableWeb(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.send("slash_commands", e.fs.SlashCommand("/threadbot", "disable web", bob, channel), 0)
	e.response("Only admins")
	e.model.Reply(answer("one"))
	ts := e.mention(channel, alice, "hi")
	e.waitBot(channel, ts, "one")
	if tools := toolNames(e.model.Requests()[0]); !slices.Contains(tools, "fetch") {
		t.Fatalf("fetch missing before any change: %q", tools)
	}

	e.send("slash_commands", e.fs.SlashCommand("/threadbot", "disable web", owner, channel), 0)
	e.response("Group `web` disabled in this channel")
	e.model.Reply(answer("two"), answer("three"))
	e.reply(channel, "channel", alice, "again", ts)
	e.waitBot(channel, ts, "two")
	if tools := toolNames(e.model.Requests()[1]); slices.Contains(tools, "fetch") || !slices.Contains(tools, "deploy") {
		t.Errorf("tools after disabling web = %q, want deploy without fetch", tools)
	}
	ts2 := e.mention(channel2, alice, "elsewhere")
	e.waitBot(channel2, ts2, "three")
	if tools := toolNames(e.model.Requests()[2]); !slices.Contains(tools, "fetch") {
		t.Errorf("tools in another channel = %q, want fetch", tools)
	}

	// A configured admin (THREADBOT_ADMINS) may too; tools lists the state.
	e.send("slash_commands", e.fs.SlashCommand("/threadbot", "enable web", cfgAdmin, channel), 0)
	e.response("Group `web` enabled in this channel")
	e.send("slash_commands", e.fs.SlashCommand("/threadbot", "tools", bob, channel), 0)
	list := e.response("Tools in this channel")
	for _, want := range []string{"*ops*", "*web*", "`fetch` on", "`deploy` on · ask-always"} {
		if !strings.Contains(list, want) {
			t.Errorf("tools list lacks %q:\n%s", want, list)
		}
	}
	e.send("slash_commands", e.fs.SlashCommand("/threadbot", "disable nosuch", owner, channel), 0)
	e.response("no tool group or tool called `nosuch`")
	e.send("slash_commands", e.fs.SlashCommand("/threadbot", "", bob, channel), 0)
	e.response("enable|disable")
}

// A redelivered envelope (Slack's retry), a reconnect redelivery and the
// message event that accompanies an app_mention all count once.
func TestRedeliveryAnswersOnce(t *testing.T) {
	e := newEnv(t, envOpts{})
	release := make(chan struct{})
	e.model.SetHandler(func(req fakeopenai.Request) fakeopenai.Response {
		if lastUserText(req) == "count me" {
			<-release
		}
		return answer("answer to " + lastUserText(req))
	})
	text := "<@" + bot + "> count me"
	ts := e.fs.AddMessage(fakeslack.Message{Channel: channel, User: alice, Text: text})
	ev := e.fs.EventCallback("Ev0001", e.fs.AppMention(channel, alice, text, ts, ""))
	e.send("events_api", ev, 0)
	fakeslack.Eventually(t, "the model request", func() bool { return len(e.model.Requests()) == 1 })
	// While the turn runs: Slack retries, and the message event arrives.
	e.send("events_api", ev, 1)
	e.send("events_api", e.fs.EventCallback("Ev0002", e.fs.UserMessage(channel, "channel", alice, text, ts, "")), 0)
	close(release)
	e.waitBot(channel, ts, "answer to count me")
	// After the turn is stored: a redelivery after a reconnect.
	e.fs.SendDisconnect()
	e.fs.WaitConnections(t, 2)
	e.send("events_api", ev, 2)
	// Messages are handled in order, so once a later mention is answered
	// the redeliveries have been handled (and dropped).
	ts2 := e.mention(channel, alice, "sentinel")
	e.waitBot(channel, ts2, "answer to sentinel")
	n := 0
	for _, m := range e.botMessages(channel, ts) {
		if strings.Contains(m.Text, "answer to count me") {
			n++
		}
	}
	if n != 1 || len(e.model.Requests()) != 2 {
		t.Errorf("%d answers and %d model requests, want 1 answer to the message and 2 requests", n, len(e.model.Requests()))
	}
}

// A 429 on chat.postMessage delays the message; nothing is lost.
func TestRateLimitedPostMessage(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.fs.RateLimit("chat.postMessage", 2, time.Second)
	e.model.Reply(call("fetch", `{"url":"https://example.com"}`), answer("Still here."))
	ts := e.mention(channel, alice, "fetch it")
	e.waitBot(channel, ts, "Still here.")
	e.waitDone(channel, ts)
	calls := e.fs.Calls("chat.postMessage")
	limited := 0
	for _, c := range calls {
		if c.Limited {
			limited++
		}
	}
	if limited != 2 {
		t.Errorf("%d limited calls, want 2", limited)
	}
	// Status line, tool log and answer all arrived.
	kinds := map[string]bool{}
	for _, m := range e.botMessages(channel, ts) {
		switch {
		case strings.Contains(m.Text, "Done"):
			kinds["status"] = true
		case strings.Contains(m.Text, "*fetch*"):
			kinds["tool log"] = true
		case strings.Contains(m.Text, "Still here."):
			kinds["answer"] = true
		}
	}
	if len(kinds) != 3 {
		t.Errorf("messages after the 429s: %v, want status, tool log and answer", kinds)
	}
}

// In a thread the bot takes part in, messages need no mention; elsewhere
// they do. DMs are always for the bot. Its own messages and other bots'
// are ignored.
func TestWhichMessagesAreForTheBot(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.model.SetHandler(func(req fakeopenai.Request) fakeopenai.Response {
		return answer("re: " + lastUserText(req))
	})
	ts := e.mention(channel, alice, "start")
	e.waitBot(channel, ts, "re: start")
	e.reply(channel, "channel", bob, "follow-up without a mention", ts)
	e.waitBot(channel, ts, "re: follow-up without a mention")

	other := e.fs.AddMessage(fakeslack.Message{Channel: channel, User: bob, Text: "a thread without the bot"})
	e.reply(channel, "channel", alice, "not for the bot", other)
	e.reply(channel, "channel", alice, "top-level chatter", "")
	botTS := e.fs.AddMessage(fakeslack.Message{Channel: channel, User: bot, Text: "my own words", ThreadTS: ts})
	e.send("events_api", e.fs.EventCallback("", e.fs.UserMessage(channel, "channel", bot, "my own words", botTS, ts)), 0)
	otherBot := e.fs.UserMessage(channel, "channel", "", "beep", "", ts)
	otherBot["bot_id"], otherBot["subtype"] = "BOTHER", "bot_message"
	e.send("events_api", e.fs.EventCallback("", otherBot), 0)

	fileOnly := e.fs.UserMessage(channel, "channel", alice, "", "", ts)
	fileOnly["subtype"] = "file_share"
	e.send("events_api", e.fs.EventCallback("", fileOnly), 0)
	edited := e.fs.UserMessage(channel, "channel", alice, "edited text", "", ts)
	edited["subtype"] = "message_changed"
	e.send("events_api", e.fs.EventCallback("", edited), 0)

	dm := e.reply(dmChannel, "im", alice, "a direct question", "")
	e.waitBot(dmChannel, dm, "re: a direct question")

	var seen []string
	for _, r := range e.model.Requests() {
		seen = append(seen, lastUserText(r))
	}
	want := []string{"start", "follow-up without a mention", "a direct question"}
	if !slices.Equal(seen, want) {
		t.Errorf("model saw %q, want %q", seen, want)
	}
}

// A long answer is split over messages within Slack's limit; a very long
// one is uploaded as a file.
func TestLongAnswers(t *testing.T) {
	e := newEnv(t, envOpts{})
	para := strings.Repeat("word ", 150) + "\n\n"
	long := strings.Repeat(para, 14)     // ~10,500 characters
	veryLong := strings.Repeat(para, 60) // ~45,000 characters
	e.model.Reply(answer(long), answer(veryLong))
	ts := e.mention(channel, alice, "long")
	e.waitDone(channel, ts)
	var parts []fakeslack.Message
	for _, m := range e.botMessages(channel, ts) {
		if strings.HasPrefix(m.Text, "word") {
			parts = append(parts, m)
		}
	}
	if len(parts) < 3 {
		t.Fatalf("long answer in %d messages, want at least 3", len(parts))
	}
	total := 0
	for _, p := range parts {
		if n := len([]rune(p.Text)); n > 4000 {
			t.Errorf("a part has %d characters", n)
		}
		total += strings.Count(p.Text, "word")
	}
	if want := strings.Count(long, "word"); total != want {
		t.Errorf("parts hold %d words, want %d", total, want)
	}

	e.reply(channel, "channel", alice, "longer", ts)
	fakeslack.Eventually(t, "the answer file", func() bool { return len(e.fs.Files()) == 1 && e.fs.Files()[0].Completed })
	f := e.fs.Files()[0]
	if f.Name != "answer.md" || string(f.Content) != veryLong || f.ThreadTS != ts {
		t.Errorf("file %s in thread %s with %d bytes, want answer.md in %s with the whole answer", f.Name, f.ThreadTS, len(f.Content), ts)
	}
	e.waitBot(channel, ts, "attached as `answer.md`")
}

// With streaming on, the answer is shown by editing one message, at most
// one edit a second.
func TestStreamingEdits(t *testing.T) {
	e := newEnv(t, envOpts{editInterval: time.Second})
	text := strings.Repeat("streamed words arrive ", 40)
	e.model.Reply(fakeopenai.Response{Content: text, ChunkSize: 8})
	ts := e.mention(channel, alice, "stream")
	e.waitDone(channel, ts)
	var answerTS string
	for _, m := range e.botMessages(channel, ts) {
		if strings.HasPrefix(m.Text, "streamed") {
			if answerTS != "" {
				t.Fatal("the streamed answer took more than one message")
			}
			answerTS = m.TS
			if strings.TrimSpace(m.Text) != strings.TrimSpace(text) {
				t.Errorf("final answer = %q", m.Text)
			}
		}
	}
	var edits []time.Time
	for _, c := range e.fs.Calls("chat.update") {
		if c.Form.Get("ts") == answerTS {
			edits = append(edits, c.At)
		}
	}
	if len(edits) == 0 {
		t.Fatal("the answer was never edited")
	}
	for i := 1; i < len(edits)-1; i++ {
		// Intermediate edits are coalesced; the final edit may follow at once.
		if d := edits[i].Sub(edits[i-1]); d < 900*time.Millisecond {
			t.Errorf("edits %d and %d are %s apart, want at least ~1s", i-1, i, d)
		}
	}
}

// The chat tools read the thread through the adapter, during a turn: the
// messages before the one being answered.
func TestThreadMessagesSource(t *testing.T) {
	e := newEnv(t, envOpts{})
	root := e.fs.AddMessage(fakeslack.Message{Channel: channel, User: bob, Text: "the plan is <https://example.com/plan|here>"})
	e.fs.AddMessage(fakeslack.Message{Channel: channel, User: alice, Text: "looks good", ThreadTS: root})
	e.callWait("ok")
	// The question is asked inside the thread; its turn runs a tool.
	text := "<@" + bot + "> summarise"
	ts := e.fs.AddMessage(fakeslack.Message{Channel: channel, User: alice, Text: text, ThreadTS: root})
	e.send("events_api", e.fs.EventCallback("", e.fs.AppMention(channel, alice, text, ts, root)), 0)
	fakeslack.Eventually(t, "the wait tool", func() bool { return len(e.ranTools()) == 1 })
	e.fs.AddMessage(fakeslack.Message{Channel: channel, User: bob, Text: "written after the question", ThreadTS: root})

	key := session.Key{Platform: "slack", Workspace: fakeslack.DefaultTeamID, Channel: channel, Thread: root}
	msgs, err := e.ad.ThreadMessages(t.Context(), key.ID(), 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, m.Author+": "+m.Text)
	}
	want := []string{"bob (<@UBOB>): the plan is here (https://example.com/plan)", "alice (<@UALICE>): looks good"}
	if !slices.Equal(got, want) {
		t.Errorf("ThreadMessages = %q, want %q", got, want)
	}
	if msgs[0].Link == "" || msgs[0].Time.IsZero() {
		t.Errorf("message without link or time: %+v", msgs[0])
	}
	b, _ := json.Marshal(msgs)
	if strings.Contains(string(b), "summarise") || strings.Contains(string(b), "after the question") {
		t.Errorf("ThreadMessages returned the current or a later message: %s", b)
	}
}

// After the socket drops, or Slack asks to reconnect, the adapter opens a
// new connection and carries on.
func TestSocketReconnects(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.model.SetHandler(func(req fakeopenai.Request) fakeopenai.Response { return answer("re: " + lastUserText(req)) })
	e.fs.DropConnections()
	e.fs.WaitConnections(t, 2)
	ts := e.mention(channel, alice, "after a drop")
	e.waitBot(channel, ts, "re: after a drop")
	e.fs.SendDisconnect()
	e.fs.WaitConnections(t, 3)
	ts = e.mention(channel, alice, "after a disconnect request")
	e.waitBot(channel, ts, "re: after a disconnect request")
}

// /threadbot stop by a workspace owner stops someone else's turn in the
// channel (a member stops only their own, see TestStop).
func TestSlashStopByAdmin(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.callWait("stopped")
	ts := e.mention(channel, alice, "wait")
	fakeslack.Eventually(t, "the wait tool", func() bool { return len(e.ranTools()) == 1 })
	e.send("slash_commands", e.fs.SlashCommand("/threadbot", "stop", owner, channel), 0)
	e.response("Stopped 1 turn.")
	e.waitBot(channel, ts, "Stopped")
}

// With allow_bots, another bot's mention starts a turn; the bot's own
// messages still never do.
func TestAllowBots(t *testing.T) {
	e := newEnv(t, envOpts{allowBots: true})
	e.model.SetHandler(func(req fakeopenai.Request) fakeopenai.Response { return answer("re: " + lastUserText(req)) })
	text := "<@" + bot + "> from a bot"
	ts := e.fs.AddMessage(fakeslack.Message{Channel: channel, BotID: "BOTHER", Text: text})
	ev := e.fs.AppMention(channel, "UOTHERBOT", text, ts, "")
	ev["bot_id"] = "BOTHER"
	e.send("events_api", e.fs.EventCallback("", ev), 0)
	e.waitBot(channel, ts, "re: from a bot")
	own := e.fs.UserMessage(channel, "channel", bot, "<@"+bot+"> talking to myself", "", ts)
	own["bot_id"] = fakeslack.DefaultBotID
	e.send("events_api", e.fs.EventCallback("", own), 0)
	ts2 := e.mention(channel, alice, "sentinel")
	e.waitBot(channel, ts2, "re: sentinel")
	if n := len(e.model.Requests()); n != 2 {
		t.Errorf("%d model requests, want 2 (the bot's own message is ignored)", n)
	}
}

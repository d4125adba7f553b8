package slack_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/threadbot/threadbot/internal/adapters/slack/fakeslack"
)

// A tool that needs approval posts buttons; a click by someone else gets
// an ephemeral refusal and changes nothing; the requester's click runs the
// tool, and the request then shows who decided, without buttons.
func TestApprovalButtons(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.model.Reply(call("deploy", `{"target":"prod"}`), answer("Deployed to prod."))
	ts := e.mention(channel, alice, "deploy prod")
	req, id := e.waitApproval(channel, ts)
	for _, want := range []string{"deploy", "prod", "<@" + alice + ">"} {
		if !strings.Contains(blocksText(req.Blocks), want) {
			t.Errorf("approval request lacks %q: %s", want, req.Blocks)
		}
	}
	for _, act := range []string{"threadbot_always", "threadbot_reject"} {
		if buttonValue(req.Blocks, act) != id {
			t.Errorf("approval request lacks the %s button", act)
		}
	}

	e.send("interactive", e.fs.BlockAction(bob, channel, req.TS, ts, "threadbot_approve", id, ""), 0)
	e.ephemeralTo(bob, "Only the person who asked")
	if got := e.ranTools(); len(got) != 0 {
		t.Fatalf("tool ran after another user's click: %q", got)
	}
	if buttonValue(e.message(channel, req.TS).Blocks, "threadbot_approve") != id {
		t.Fatal("another user's click removed the buttons")
	}

	e.send("interactive", e.fs.BlockAction(alice, channel, req.TS, ts, "threadbot_approve", id, ""), 0)
	e.waitBot(channel, ts, "Deployed to prod.")
	if got := e.ranTools(); !slices.Equal(got, []string{"deploy prod"}) {
		t.Errorf("ran %q, want [deploy prod]", got)
	}
	after := e.message(channel, req.TS)
	if buttonValue(after.Blocks, "threadbot_approve") != "" || buttonValue(after.Blocks, "threadbot_reject") != "" {
		t.Errorf("buttons still there after the decision: %s", after.Blocks)
	}
	if !strings.Contains(blocksText(after.Blocks), "Approved by <@"+alice+">") {
		t.Errorf("decided request does not say who approved: %s", after.Blocks)
	}
	// The tool log: one reply for the call, edited to its result.
	e.waitBot(channel, ts, "deploy")
	found := false
	for _, m := range e.botMessages(channel, ts) {
		found = found || strings.Contains(m.Text, "*deploy*") && strings.Contains(m.Text, "Success")
	}
	if !found {
		t.Errorf("no finished tool-log reply for deploy in %+v", e.botMessages(channel, ts))
	}
}

// Reject asks for a reason in a modal; the reason reaches the model and
// the request shows it. Someone else's Reject opens nothing.
func TestRejectWithReason(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.model.Reply(call("deploy", `{"target":"prod"}`), answer("Not deployed."))
	ts := e.mention(channel, alice, "deploy prod")
	req, id := e.waitApproval(channel, ts)

	e.send("interactive", e.fs.BlockAction(bob, channel, req.TS, ts, "threadbot_reject", id, ""), 0)
	e.ephemeralTo(bob, "Only the person who asked")
	if n := len(e.fs.Views()); n != 0 {
		t.Fatalf("another user's Reject opened %d views", n)
	}

	e.send("interactive", e.fs.BlockAction(alice, channel, req.TS, ts, "threadbot_reject", id, ""), 0)
	fakeslack.Eventually(t, "the reason modal", func() bool { return len(e.fs.Views()) == 1 })
	v := e.fs.Views()[0]
	if v.CallbackID != "threadbot_reject_reason" {
		t.Fatalf("modal callback_id = %q", v.CallbackID)
	}
	e.send("interactive", e.fs.ViewSubmission(alice, v.CallbackID, v.PrivateMetadata,
		map[string]map[string]string{"reason": {"reason": "change freeze until Monday"}}), 0)
	e.waitBot(channel, ts, "Not deployed.")
	if got := e.ranTools(); len(got) != 0 {
		t.Errorf("tool ran after a rejection: %q", got)
	}
	reqs := e.model.Requests()
	if last := reqs[len(reqs)-1].LastMessage(); last.Role != "tool" || !strings.Contains(last.Content, "change freeze until Monday") {
		t.Errorf("model's tool message = %+v, want the rejection with its reason", last)
	}
	if after := e.message(channel, req.TS); !strings.Contains(blocksText(after.Blocks), "Rejected by <@"+alice+">: change freeze until Monday") {
		t.Errorf("rejected request = %s", after.Blocks)
	}
}

// "Always in this thread" approves the call and every later call of the
// tool in the thread, without asking again.
func TestAlwaysInThread(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.model.Reply(call("deploy", `{"target":"staging"}`), answer("Deployed to staging."))
	ts := e.mention(channel, alice, "deploy staging")
	req, id := e.waitApproval(channel, ts)
	e.send("interactive", e.fs.BlockAction(alice, channel, req.TS, ts, "threadbot_always", id, ""), 0)
	e.waitBot(channel, ts, "Deployed to staging.")
	if !strings.Contains(blocksText(e.message(channel, req.TS).Blocks), "Approved for this thread by") {
		t.Errorf("request = %s", e.message(channel, req.TS).Blocks)
	}

	e.model.Reply(call("deploy", `{"target":"prod"}`), answer("Deployed to prod too."))
	e.reply(channel, "channel", alice, "now prod", ts)
	e.waitBot(channel, ts, "Deployed to prod too.")
	if got := e.ranTools(); !slices.Equal(got, []string{"deploy staging", "deploy prod"}) {
		t.Errorf("ran %q", got)
	}
	n := 0
	for _, m := range e.botMessages(channel, ts) {
		if strings.Contains(string(m.Blocks), "threadbot_approval") || strings.Contains(string(m.Blocks), "Approval needed") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d approval requests in the thread, want 1", n)
	}
}

// Stop on the status line is refused for others and stops the turn for
// the requester; "@bot stop" in the thread does the same.
func TestStop(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.callWait("stopped early")
	ts := e.mention(channel, alice, "wait")
	var status fakeslack.Message
	fakeslack.Eventually(t, "the status line with Stop", func() bool {
		for _, m := range e.botMessages(channel, ts) {
			if buttonValue(m.Blocks, "threadbot_stop") != "" {
				status = m
			}
		}
		return status.TS != "" && slices.Contains(e.ranTools(), "wait")
	})
	e.send("slash_commands", e.fs.SlashCommand("/threadbot", "status", bob, channel), 0)
	e.response("running for <@" + alice + ">")
	e.send("slash_commands", e.fs.SlashCommand("/threadbot", "stop", bob, channel), 0)
	e.response("You have nothing running in this channel.")
	e.send("interactive", e.fs.BlockAction(bob, channel, status.TS, ts, "threadbot_stop", buttonValue(status.Blocks, "threadbot_stop"), ""), 0)
	e.ephemeralTo(bob, "can stop this")
	e.send("interactive", e.fs.BlockAction(alice, channel, status.TS, ts, "threadbot_stop", buttonValue(status.Blocks, "threadbot_stop"), ""), 0)
	fakeslack.Eventually(t, "the status line to say Stopped", func() bool {
		return strings.Contains(e.message(channel, status.TS).Text, "Stopped")
	})
	if buttonValue(e.message(channel, status.TS).Blocks, "threadbot_stop") != "" {
		t.Error("stopped status still has a Stop button")
	}

	e.reply(channel, "channel", alice, "wait again", ts)
	fakeslack.Eventually(t, "the second wait", func() bool { return len(e.ranTools()) == 2 })
	stopTS := e.fs.AddMessage(fakeslack.Message{Channel: channel, User: alice, Text: "<@" + bot + "> stop", ThreadTS: ts})
	e.send("events_api", e.fs.EventCallback("", e.fs.AppMention(channel, alice, "<@"+bot+"> stop", stopTS, ts)), 0)
	fakeslack.Eventually(t, "two stopped turns", func() bool {
		n := 0
		for _, m := range e.botMessages(channel, ts) {
			if strings.Contains(m.Text, "Stopped") {
				n++
			}
		}
		return n == 2
	})
	for _, r := range e.model.Requests() {
		if lastUserText(r) == "stop" {
			t.Error(`"@bot stop" reached the model`)
		}
	}
}

// "stop" written at the top of a DM stops the turn running in another of
// the DM's threads (each top-level DM message opens its own).
func TestStopInDM(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.callWait("stopped early")
	ts := e.reply(dmChannel, "im", alice, "wait", "")
	fakeslack.Eventually(t, "the wait tool", func() bool { return len(e.ranTools()) == 1 })
	e.reply(dmChannel, "im", alice, "stop", "")
	e.waitBot(dmChannel, ts, "Stopped")
	e.ephemeralTo(alice, "Stopped 1 turn.")
	for _, r := range e.model.Requests() {
		if lastUserText(r) == "stop" {
			t.Error(`"stop" reached the model`)
		}
	}
}

package fakeslack

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"
)

// socketClient runs a slack-go socketmode client against srv until the test
// ends. It acks every envelope, with the payload ack returns for it (nil
// when ack is nil), and keeps the events it saw.
type socketClient struct {
	mu     sync.Mutex
	events []socketmode.Event
}

func runSocket(t *testing.T, srv *Server, ack func(socketmode.Event) any, opts ...socketmode.Option) *socketClient {
	t.Helper()
	client := socketmode.New(newAPI(srv), opts...)
	sc := &socketClient{}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { client.RunContext(ctx) })
	wg.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-client.Events:
				sc.mu.Lock()
				sc.events = append(sc.events, ev)
				sc.mu.Unlock()
				if ev.Request == nil || ev.Request.EnvelopeID == "" {
					continue
				}
				var payload any
				if ack != nil {
					payload = ack(ev)
				}
				if err := client.Ack(*ev.Request, payload); err != nil {
					t.Errorf("ack: %v", err)
				}
			}
		}
	})
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	return sc
}

// find returns the events of type typ seen so far.
func (sc *socketClient) find(typ socketmode.EventType) []socketmode.Event {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	var out []socketmode.Event
	for _, ev := range sc.events {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

func TestSocketModeEventsAndReconnect(t *testing.T) {
	srv := newServer(t)
	ts := srv.AddMessage(Message{Channel: "C1", User: "U1", Text: "<@UBOT> hi"})
	// Sent before anyone is connected: queued for the first connection.
	first := srv.Send("events_api", srv.EventCallback("Ev1", srv.AppMention("C1", "U1", "<@UBOT> hi", ts, "")), 0)

	sc := runSocket(t, srv, nil)
	srv.WaitConnections(t, 1)
	a := srv.WaitAck(t, first)
	if a.Payload != nil || a.Size == 0 {
		t.Errorf("ack = %+v", a)
	}
	if got := sc.find(socketmode.EventTypeHello); len(got) != 1 {
		t.Errorf("%d hello events, want 1", len(got))
	}
	evs := sc.find(socketmode.EventTypeEventsAPI)
	if len(evs) != 1 {
		t.Fatalf("%d events_api events, want 1", len(evs))
	}
	outer := evs[0].Data.(slackevents.EventsAPIEvent)
	mention, ok := outer.InnerEvent.Data.(*slackevents.AppMentionEvent)
	if !ok || outer.TeamID != DefaultTeamID || mention.Channel != "C1" || mention.User != "U1" || mention.TimeStamp != ts {
		t.Errorf("event = %+v, inner %+v", outer, outer.InnerEvent.Data)
	}
	if cb, ok := outer.Data.(*slackevents.EventsAPICallbackEvent); !ok || cb.EventID != "Ev1" {
		t.Errorf("outer data = %+v", outer.Data)
	}

	// After a disconnect the old connection gets nothing more: the envelope
	// waits for the client to reconnect.
	srv.SendDisconnect()
	second := srv.Send("events_api", srv.EventCallback("", srv.UserMessage("D1", "im", "U1", "dm", "", "")), 1)
	srv.WaitConnections(t, 2)
	srv.WaitAck(t, second)
	if got := srv.Connections(); got != 2 {
		t.Errorf("Connections = %d, want 2", got)
	}
	evs = sc.find(socketmode.EventTypeEventsAPI)
	if len(evs) != 2 {
		t.Fatalf("%d events_api events, want 2", len(evs))
	}
	if evs[1].Request.RetryAttempt != 1 || evs[1].Request.RetryReason != "timeout" {
		t.Errorf("retry fields = %d %q", evs[1].Request.RetryAttempt, evs[1].Request.RetryReason)
	}
	msg, ok := evs[1].Data.(slackevents.EventsAPIEvent).InnerEvent.Data.(*slackevents.MessageEvent)
	if !ok || msg.ChannelType != "im" || msg.Text != "dm" {
		t.Errorf("message event = %+v", evs[1].Data)
	}

	srv.DropConnections()
	srv.WaitConnections(t, 3)
	third := srv.Send("events_api", srv.EventCallback("", srv.AppMention("C1", "U1", "again", "", "")), 0)
	srv.WaitAck(t, third)
}

func TestSocketModeInteractions(t *testing.T) {
	srv := newServer(t)
	api := newAPI(srv)
	srv.AddUser(User{ID: "U1", Name: "alice"})
	root := srv.AddMessage(Message{Channel: "C1", User: "U1", Text: "question"})
	_, reply, err := api.PostMessage("C1", slack.MsgOptionText("Run it?", false), slack.MsgOptionTS(root))
	if err != nil {
		t.Fatal(err)
	}

	sc := runSocket(t, srv, func(ev socketmode.Event) any {
		if ev.Type == socketmode.EventTypeInteractive {
			if cb := ev.Data.(slack.InteractionCallback); cb.Type == slack.InteractionTypeViewSubmission {
				return slack.NewClearViewSubmissionResponse()
			}
		}
		return nil
	})
	srv.WaitConnections(t, 1)

	// A button click: the callback round-trips through slack.InteractionCallback.
	env := srv.Send("interactive", srv.BlockAction("U1", "C1", reply, root, "approve", "call-7", "trig-1"), 0)
	srv.WaitAck(t, env)
	cb := sc.find(socketmode.EventTypeInteractive)[0].Data.(slack.InteractionCallback)
	if cb.Type != slack.InteractionTypeBlockActions || cb.User.ID != "U1" || cb.User.Name != "alice" || cb.Team.ID != DefaultTeamID ||
		cb.Channel.ID != "C1" || cb.TriggerID != "trig-1" {
		t.Errorf("callback = type %q user %+v team %q channel %q trigger %q", cb.Type, cb.User.ID, cb.Team.ID, cb.Channel.ID, cb.TriggerID)
	}
	if cb.Container.MessageTs != reply || cb.Container.ThreadTs != root || cb.Container.ChannelID != "C1" || cb.Message.Timestamp != reply || cb.Message.Text != "Run it?" {
		t.Errorf("container = %+v, message ts %q text %q", cb.Container, cb.Message.Timestamp, cb.Message.Text)
	}
	if len(cb.ActionCallback.BlockActions) != 1 || cb.ActionCallback.BlockActions[0].ActionID != "approve" || cb.ActionCallback.BlockActions[0].Value != "call-7" {
		t.Errorf("actions = %+v", cb.ActionCallback)
	}

	// The response_url replaces the clicked message.
	if _, _, err := api.PostMessage("C1", slack.MsgOptionReplaceOriginal(cb.ResponseURL), slack.MsgOptionText("Approved", false)); err != nil {
		t.Fatal(err)
	}
	if got := srv.Thread("C1", root)[1].Text; got != "Approved" {
		t.Errorf("after replace_original: %q", got)
	}
	if rs := srv.Responses(); len(rs) != 1 || rs[0].URL != cb.ResponseURL || rs[0].JSON["replace_original"] != true {
		t.Errorf("Responses = %+v", rs)
	}

	// views.open uses the trigger once.
	view := slack.ModalViewRequest{
		Type:       slack.VTModal,
		Title:      slack.NewTextBlockObject(slack.PlainTextType, "Edit", false, false),
		CallbackID: "edit",
		Blocks:     slack.Blocks{BlockSet: []slack.Block{section("Edit the prompt")}},
	}
	opened, err := api.OpenView(cb.TriggerID, view)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := api.OpenView(cb.TriggerID, view); err == nil || err.Error() != "exchanged_trigger_id" {
		t.Errorf("second views.open: err = %v", err)
	}
	if vs := srv.Views(); len(vs) != 1 || vs[0].ID != opened.ID || vs[0].CallbackID != "edit" || vs[0].TriggerID != "trig-1" {
		t.Errorf("Views = %+v, opened %q", vs, opened.ID)
	}

	// A submission of that view, acked with a response payload.
	env = srv.Send("interactive", srv.ViewSubmission("U1", "edit", `{"thread":"x"}`, map[string]map[string]string{"prompt": {"input": "new text"}}), 0)
	a := srv.WaitAck(t, env)
	var ackPayload map[string]any
	if err := json.Unmarshal(a.Payload, &ackPayload); err != nil || ackPayload["response_action"] != "clear" {
		t.Errorf("ack payload = %s (%v)", a.Payload, err)
	}
	sub := sc.find(socketmode.EventTypeInteractive)[1].Data.(slack.InteractionCallback)
	if sub.View.ID != opened.ID || sub.View.CallbackID != "edit" || sub.View.PrivateMetadata != `{"thread":"x"}` ||
		sub.View.State.Values["prompt"]["input"].Value != "new text" {
		t.Errorf("view = id %q callback %q metadata %q state %+v", sub.View.ID, sub.View.CallbackID, sub.View.PrivateMetadata, sub.View.State)
	}

	// A slash command.
	env = srv.Send("slash_commands", srv.SlashCommand("/ask", "what time is it", "U1", "C1"), 0)
	srv.WaitAck(t, env)
	cmd := sc.find(socketmode.EventTypeSlashCommand)[0].Data.(slack.SlashCommand)
	if cmd.Command != "/ask" || cmd.Text != "what time is it" || cmd.UserID != "U1" || cmd.UserName != "alice" || cmd.ChannelID != "C1" || cmd.TeamID != DefaultTeamID || cmd.ResponseURL == "" || cmd.TriggerID == "" {
		t.Errorf("slash command = %+v", cmd)
	}
}

func TestSocketModePingsKeepConnection(t *testing.T) {
	srv := newServer(t)
	runSocket(t, srv, nil, socketmode.OptionPingInterval(time.Second))
	srv.WaitConnections(t, 1)
	// Three ping intervals without a reconnect show the pings arrive; this
	// sleep is the point of the test.
	time.Sleep(3 * time.Second)
	if got := srv.Connections(); got != 1 {
		t.Errorf("Connections = %d, want 1: the client saw no pings", got)
	}
}

package slack

import (
	"context"
	"errors"
	"fmt"
	"time"

	slackapi "github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"
)

// fatalAuth are apps.connections.open errors that retrying cannot fix.
var fatalAuth = map[string]bool{"invalid_auth": true, "not_authed": true, "account_inactive": true, "token_revoked": true, "not_allowed_token_type": true}

// runSocket holds the Socket Mode connection until ctx ends. slack-go
// reconnects after a `disconnect` envelope or a dead socket; when it gives
// up (Slack unreachable), runSocket starts it again with a growing pause.
func (a *Adapter) runSocket(ctx context.Context) error {
	backoff := time.Second
	for {
		start := time.Now()
		err := a.runSocketOnce(ctx)
		if ctx.Err() != nil {
			return nil
		}
		var se slackapi.SlackErrorResponse
		if errors.As(err, &se) && fatalAuth[se.Err] || err != nil && fatalAuth[err.Error()] {
			return fmt.Errorf("slack socket mode: %w (check SLACK_APP_TOKEN: an app-level token with connections:write)", err)
		}
		if time.Since(start) > time.Minute {
			backoff = time.Second
		}
		a.lg.Warn("socket mode connection ended; reconnecting", "err", err, "in", backoff)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Minute)
	}
}

func (a *Adapter) runSocketOnce(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sm := socketmode.New(a.api, socketmode.OptionLog(slogLogger{a.lg}))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-sm.Events:
				a.onSocketEvent(ctx, sm, ev)
			}
		}
	}()
	err := sm.RunContext(ctx)
	cancel()
	<-done
	return err
}

// onSocketEvent acknowledges an envelope at once, then hands its content
// on. Messages are queued in order; clicks and commands run concurrently,
// since they only talk to Slack and the runtime.
func (a *Adapter) onSocketEvent(ctx context.Context, sm *socketmode.Client, ev socketmode.Event) {
	switch ev.Type {
	case socketmode.EventTypeConnected:
		a.lg.Info("socket mode connected")
		return
	case socketmode.EventTypeConnectionError, socketmode.EventTypeIncomingError, socketmode.EventTypeErrorBadMessage, socketmode.EventTypeErrorWriteFailed:
		a.lg.Warn("socket mode", "event", string(ev.Type), "detail", fmt.Sprint(ev.Data))
		return
	case socketmode.EventTypeInvalidAuth:
		a.lg.Error("socket mode: the app token was refused")
		return
	}
	if ev.Request == nil || ev.Request.EnvelopeID == "" || ctx.Err() != nil {
		return // not acknowledged when shutting down: Slack sends it again
	}
	if ev.Request.RetryAttempt > 0 {
		a.lg.Debug("redelivered envelope", "envelope", ev.Request.EnvelopeID, "attempt", ev.Request.RetryAttempt, "reason", ev.Request.RetryReason)
	}
	// A message is queued before it is acknowledged, and not acknowledged
	// when it could not be queued: Slack then sends it again.
	if data, ok := ev.Data.(slackevents.EventsAPIEvent); ok && !a.onEventsAPI(data, ev.Request.Payload) {
		a.lg.Warn("event not taken (shutting down or too many waiting); Slack will send it again", "envelope", ev.Request.EnvelopeID)
		return
	}
	// The acknowledgement carries no payload: answers go through the Web
	// API or response_url, so it stays far below Slack's 20 KB.
	if err := sm.AckCtx(ctx, ev.Request.EnvelopeID, nil); err != nil {
		a.lg.Warn("ack envelope", "envelope", ev.Request.EnvelopeID, "err", err)
	}
	switch data := ev.Data.(type) {
	case slackapi.InteractionCallback:
		go a.onInteraction(context.WithoutCancel(ctx), data)
	case slackapi.SlashCommand:
		go a.onCommand(context.WithoutCancel(ctx), data)
	}
}

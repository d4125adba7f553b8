package slack

import (
	"context"
	"encoding/json"
	"errors"

	slackapi "github.com/slack-go/slack"

	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/core/session"
)

// rejectMeta is the reject modal's private metadata.
type rejectMeta struct {
	ID      string `json:"id"`
	Channel string `json:"c"`
	Thread  string `json:"t,omitempty"`
	Message string `json:"m,omitempty"` // the request's ts
	Tool    string `json:"tool,omitempty"`
}

// onInteraction handles a click or a modal submission (already
// acknowledged).
func (a *Adapter) onInteraction(ctx context.Context, cb slackapi.InteractionCallback) {
	switch cb.Type {
	case slackapi.InteractionTypeBlockActions:
		for _, act := range cb.ActionCallback.BlockActions {
			a.onAction(ctx, cb, act)
		}
	case slackapi.InteractionTypeViewSubmission:
		if cb.View.CallbackID == cbReject {
			a.onRejectReason(ctx, cb)
		}
	}
}

// where returns the channel, thread and message a click came from.
func where(cb slackapi.InteractionCallback) (channel, thread, message string) {
	channel = cb.Channel.ID
	if channel == "" {
		channel = cb.Container.ChannelID
	}
	thread = cb.Container.ThreadTs
	if thread == "" {
		thread = cb.Message.ThreadTimestamp
	}
	message = cb.Container.MessageTs
	if message == "" {
		message = cb.Message.Timestamp
	}
	return channel, thread, message
}

func (a *Adapter) onAction(ctx context.Context, cb slackapi.InteractionCallback, act *slackapi.BlockAction) {
	user := cb.User.ID
	channel, thread, msg := where(cb)
	switch act.ActionID {
	case actApprove, actAlways:
		a.decide(ctx, act.Value, user, channel, thread, msg, executor.Decision{Approved: true, Always: act.ActionID == actAlways})
	case actReject:
		a.askReason(ctx, cb, act.Value, channel, thread, msg)
	case actStop:
		if act.Value != "" {
			thread = act.Value
		}
		team := cb.Team.ID
		if team == "" {
			team = a.identity().TeamID
		}
		a.stopThread(ctx, session.Key{Platform: Name, Workspace: team, Channel: channel, Thread: thread}, user, thread)
	}
}

// decide passes a decision to the runtime and tells the clicker privately
// when it was refused. On success the waiting turn edits the request.
func (a *Adapter) decide(ctx context.Context, id, user, channel, thread, msg string, d executor.Decision) {
	err := a.runtime().DecideFrom(ctx, id, session.Ref(msg), user, a.isAdmin(ctx, user), d)
	if err == nil {
		return
	}
	a.lg.Info("approval click refused", "approval", id, "user", user, "err", err)
	a.ephemeral(ctx, channel, user, thread, refusal(err))
}

// refusal is what a person is told when their decision did not count.
func refusal(err error) string {
	switch {
	case errors.Is(err, session.ErrNotAllowed):
		return ":no_entry: Only the person who asked, or an admin, can decide this request."
	case errors.Is(err, session.ErrAlreadyDecided), errors.Is(err, session.ErrNotFound):
		return "This request was already decided."
	}
	return ":warning: Sorry, that decision could not be recorded. Please try again."
}

// askReason opens the modal for a rejection reason, after checking the
// clicker may decide. Without a trigger (or when Slack refuses the modal)
// it rejects without a reason.
func (a *Adapter) askReason(ctx context.Context, cb slackapi.InteractionCallback, id, channel, thread, msg string) {
	user := cb.User.ID
	if err := a.runtime().CanDecide(ctx, id, user, a.isAdmin(ctx, user)); err != nil {
		a.ephemeral(ctx, channel, user, thread, refusal(err))
		return
	}
	if cb.TriggerID != "" {
		meta, _ := json.Marshal(rejectMeta{ID: id, Channel: channel, Thread: thread, Message: msg})
		err := a.call(ctx, "views.open", "", func(ctx context.Context) error {
			_, err := a.api.OpenViewContext(ctx, cb.TriggerID, rejectModal(approvalTool(cb), string(meta)))
			return err
		})
		if err == nil {
			return
		}
		a.lg.Warn("open reject modal; rejecting without a reason", "err", err)
	}
	a.decide(ctx, id, user, channel, thread, msg, executor.Decision{})
}

// approvalTool finds the tool name in the clicked request's fallback text.
func approvalTool(cb slackapi.InteractionCallback) string {
	const prefix = "Approval needed: "
	if t := cb.Message.Text; len(t) > len(prefix) && t[:len(prefix)] == prefix {
		return t[len(prefix):]
	}
	return "this call"
}

// onRejectReason rejects with the reason typed in the modal.
func (a *Adapter) onRejectReason(ctx context.Context, cb slackapi.InteractionCallback) {
	var meta rejectMeta
	if err := json.Unmarshal([]byte(cb.View.PrivateMetadata), &meta); err != nil || meta.ID == "" {
		a.lg.Warn("reject modal without its approval", "err", err)
		return
	}
	reason := ""
	if st := cb.View.State; st != nil {
		reason = st.Values[reasonBlock][reasonAction].Value
	}
	a.decide(ctx, meta.ID, cb.User.ID, meta.Channel, meta.Thread, meta.Message, executor.Decision{Reason: reason})
}

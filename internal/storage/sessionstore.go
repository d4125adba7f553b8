package storage

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/core/llm"
	"github.com/threadbot/threadbot/internal/core/session"
	"github.com/threadbot/threadbot/internal/core/vars"
)

// SessionStore adapts a Store to what the session runtime needs
// (session.Store), translating types and sentinel errors.
type SessionStore struct {
	st Store
}

var _ session.Store = (*SessionStore)(nil)

// ForSessions returns st as a session.Store.
func ForSessions(st Store) *SessionStore { return &SessionStore{st: st} }

// mapErr keeps the storage error and adds the session sentinel it means.
func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrNotFound):
		return fmt.Errorf("%w: %w", session.ErrNotFound, err)
	case errors.Is(err, ErrAlreadyDecided):
		return fmt.Errorf("%w: %w", session.ErrAlreadyDecided, err)
	case errors.Is(err, ErrDuplicateEvent):
		return fmt.Errorf("%w: %w", session.ErrDuplicateEvent, err)
	}
	return err
}

func toKey(k SessionKey) session.Key {
	return session.Key{Platform: k.Platform, Workspace: k.Workspace, Channel: k.Channel, Thread: k.Thread}
}

// LoadSession implements session.Store.
func (a *SessionStore) LoadSession(ctx context.Context, key session.Key, history int) (session.Saved, error) {
	id := key.ID()
	if _, err := a.st.EnsureSession(ctx, Session{ID: id, Key: SessionKey{
		Platform: key.Platform, Workspace: key.Workspace, Channel: key.Channel, Thread: key.Thread,
	}}); err != nil {
		return session.Saved{}, mapErr(err)
	}
	snap, err := a.st.LoadSession(ctx, id)
	if err != nil {
		return session.Saved{}, mapErr(err)
	}
	msgs := snap.Messages
	if history > 0 && len(msgs) > history {
		msgs = msgs[len(msgs)-history:]
	}
	out := session.Saved{ID: id, Vars: snap.Vars}
	for _, m := range msgs {
		out.Messages = append(out.Messages, session.StoredMessage{
			Role: llm.Role(m.Role), Content: m.Content, HintSize: m.HintSize, Chain: m.ChainJSON,
			Native: m.NativeJSON, Usage: m.Usage, TokensSent: m.TokensSent, Created: m.Created,
		})
	}
	for _, d := range snap.Decisions {
		out.Decisions = append(out.Decisions, executor.Remembered{
			Key: d.Key, Tool: d.Tool,
			Decision: executor.Decision{Approved: d.Approved, Reason: d.Reason, By: d.By, Always: d.Key == AlwaysAllowKey(d.Tool)},
		})
	}
	return out, nil
}

// SessionExists implements session.Store.
func (a *SessionStore) SessionExists(ctx context.Context, key session.Key) (bool, error) {
	_, err := a.st.FindSession(ctx, SessionKey{Platform: key.Platform, Workspace: key.Workspace, Channel: key.Channel, Thread: key.Thread})
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, ErrNotFound):
		return false, nil
	}
	return false, mapErr(err)
}

// SaveTurn implements session.Store.
func (a *SessionStore) SaveTurn(ctx context.Context, t session.TurnRecord) error {
	turn := Turn{
		SessionID: t.SessionID, VarUpserts: t.VarUpserts, VarRemoved: t.VarRemoved,
		EventPlatform: t.EventPlatform, EventID: t.EventID, ResolvePending: t.ResolvePending,
	}
	for _, m := range t.Messages {
		turn.Messages = append(turn.Messages, Message{
			SessionID: t.SessionID, Role: string(m.Role), Content: m.Content, HintSize: m.HintSize,
			ChainJSON: m.Chain, NativeJSON: m.Native, Usage: m.Usage, TokensSent: m.TokensSent, Created: m.Created,
		})
	}
	for _, e := range t.Audit {
		turn.Audit = append(turn.Audit, AuditEntry{
			SessionID: t.SessionID, Kind: e.Kind, Tool: e.Tool, CallID: e.CallID, Status: e.Status,
			Actor: e.Actor, Detail: e.Detail, Duration: e.Duration, At: e.At,
		})
	}
	for _, d := range t.Decisions {
		turn.Decisions = append(turn.Decisions, Decision{
			SessionID: t.SessionID, Key: d.Key, Tool: d.Tool, Approved: d.Decision.Approved,
			Reason: d.Decision.Reason, By: d.Decision.By,
		})
	}
	return mapErr(a.st.SaveTurn(ctx, turn))
}

// EventSeen implements session.Store.
func (a *SessionStore) EventSeen(ctx context.Context, platform, id string) (bool, error) {
	seen, err := a.st.EventSeen(ctx, platform, id)
	return seen, mapErr(err)
}

// AddInbound implements session.Store.
func (a *SessionStore) AddInbound(ctx context.Context, in session.Inbound, received time.Time) (bool, error) {
	first, err := a.st.AddInbound(ctx, Inbound{
		Key:     SessionKey{Platform: in.Key.Platform, Workspace: in.Key.Workspace, Channel: in.Key.Channel, Thread: in.Key.Thread},
		EventID: in.EventID, User: in.User, UserName: in.UserName, Text: in.Text, IsAdmin: in.IsAdmin,
		Received: received,
	})
	return first, mapErr(err)
}

// SetInboundText implements session.Store.
func (a *SessionStore) SetInboundText(ctx context.Context, platform, eventID, text string) error {
	return mapErr(a.st.SetInboundText(ctx, platform, eventID, text))
}

// StartInbound implements session.Store.
func (a *SessionStore) StartInbound(ctx context.Context, platform, eventID string, statusRef session.Ref) error {
	return mapErr(a.st.StartInbound(ctx, platform, eventID, string(statusRef), time.Time{}))
}

// ActedInbound implements session.Store.
func (a *SessionStore) ActedInbound(ctx context.Context, platform, eventID string) error {
	return mapErr(a.st.ActedInbound(ctx, platform, eventID, time.Time{}))
}

// Inbox implements session.Store.
func (a *SessionStore) Inbox(ctx context.Context) ([]session.Queued, error) {
	ms, err := a.st.Inbox(ctx)
	if err != nil {
		return nil, mapErr(err)
	}
	out := make([]session.Queued, 0, len(ms))
	for _, m := range ms {
		out = append(out, session.Queued{
			Inbound: session.Inbound{
				Key: toKey(m.Key), EventID: m.EventID, User: m.User, UserName: m.UserName,
				Text: m.Text, IsAdmin: m.IsAdmin,
			},
			Received: m.Received, Started: m.Started, StatusRef: session.Ref(m.StatusRef), Acted: m.Acted, Attempts: m.Attempts,
		})
	}
	return out, nil
}

// DropInbound implements session.Store.
func (a *SessionStore) DropInbound(ctx context.Context, platform, eventID string) error {
	return mapErr(a.st.DropInbound(ctx, platform, eventID))
}

// SavePending implements session.Store.
func (a *SessionStore) SavePending(ctx context.Context, p session.Pending, upserts []vars.Variable, removed []string) error {
	return mapErr(a.st.SavePending(ctx, PendingApproval{
		ID: p.ID, SessionID: p.SessionID, CallID: p.CallID, Tool: p.Tool, ArgsSummary: p.ArgsSummary,
		Requester: p.Requester, MessageRef: string(p.MessageRef), Kind: p.Kind, Checkpoint: p.Checkpoint,
		Status: p.Status, Created: p.Created, Expires: p.Expires,
	}, upserts, removed))
}

func (a *SessionStore) fromPending(ctx context.Context, p PendingApproval) (session.Pending, error) {
	out := session.Pending{
		ID: p.ID, SessionID: p.SessionID, CallID: p.CallID, Tool: p.Tool, Kind: p.Kind,
		ArgsSummary: p.ArgsSummary, Requester: p.Requester, MessageRef: session.Ref(p.MessageRef),
		Checkpoint: p.Checkpoint, Status: p.Status, DecidedBy: p.DecidedBy, Reason: p.Reason,
		Created: p.Created, Expires: p.Expires,
	}
	s, err := a.st.GetSession(ctx, p.SessionID)
	if err != nil {
		return out, mapErr(err)
	}
	out.Key = toKey(s.Key)
	return out, nil
}

// GetPending implements session.Store.
func (a *SessionStore) GetPending(ctx context.Context, id string) (session.Pending, error) {
	p, err := a.st.GetPending(ctx, id)
	if err != nil {
		return session.Pending{}, mapErr(err)
	}
	return a.fromPending(ctx, p)
}

// DecidePending implements session.Store.
func (a *SessionStore) DecidePending(ctx context.Context, id, status, by, reason string) (session.Pending, error) {
	p, err := a.st.DecidePending(ctx, id, status, by, reason, time.Time{})
	if err != nil {
		return session.Pending{}, mapErr(err)
	}
	return a.fromPending(ctx, p)
}

// DeletePending implements session.Store.
func (a *SessionStore) DeletePending(ctx context.Context, id string) error {
	return mapErr(a.st.DeletePending(ctx, id))
}

// RecoverPending implements session.Store.
func (a *SessionStore) RecoverPending(ctx context.Context, now time.Time) (live, expired []session.Pending, err error) {
	l, e, err := a.st.RecoverPending(ctx, now)
	if err != nil {
		return nil, nil, mapErr(err)
	}
	for _, p := range l {
		sp, err := a.fromPending(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		live = append(live, sp)
	}
	for _, p := range e {
		sp, err := a.fromPending(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		expired = append(expired, sp)
	}
	return live, expired, nil
}

// ToolSettings implements session.Store.
func (a *SessionStore) ToolSettings(ctx context.Context, platform, workspace, channel string) ([]session.ToolSetting, error) {
	rows, err := a.st.ToolSettings(ctx, platform, workspace, channel)
	if err != nil {
		return nil, mapErr(err)
	}
	out := make([]session.ToolSetting, 0, len(rows))
	for _, r := range rows {
		out = append(out, session.ToolSetting{
			Platform: r.Platform, Workspace: r.Workspace, Channel: r.Channel,
			Kind: r.Kind, Name: r.Name, Enabled: r.Enabled, By: r.By,
		})
	}
	return out, nil
}

// SetToolSetting implements session.Store.
func (a *SessionStore) SetToolSetting(ctx context.Context, s session.ToolSetting) error {
	return mapErr(a.st.SetToolSetting(ctx, ToolSetting{
		Platform: s.Platform, Workspace: s.Workspace, Channel: s.Channel,
		Kind: s.Kind, Name: s.Name, Enabled: s.Enabled, By: s.By,
	}))
}

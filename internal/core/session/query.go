package session

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Known reports whether the bot has taken part in a thread: its session is
// in memory or was stored. Adapters use it to decide whether a message in
// a thread is for the bot without being mentioned.
func (m *Manager) Known(ctx context.Context, k Key) (bool, error) {
	m.mu.Lock()
	_, ok := m.sessions[k.ID()]
	m.mu.Unlock()
	if ok {
		return true, nil
	}
	ok, err := m.store.SessionExists(ctx, k)
	if err != nil {
		return false, fmt.Errorf("session exists %s: %w", k.ID(), err)
	}
	return ok, nil
}

// CanDecide reports whether user may decide an open approval, without
// deciding it: nil, ErrNotAllowed, ErrAlreadyDecided or ErrNotFound.
// Adapters call it before asking the user for more (a rejection reason).
func (m *Manager) CanDecide(ctx context.Context, approvalID, user string, isAdmin bool) error {
	w, p, err := m.approval(ctx, approvalID)
	if err != nil {
		return fmt.Errorf("approval %s: %w", approvalID, err)
	}
	if !m.mayDecide(user, requesterOf(w, p), isAdmin) {
		return ErrNotAllowed
	}
	return nil
}

// Activity is a thread with a turn running or queued.
type Activity struct {
	Key Key
	// Requester is the user whose message the running turn answers, and
	// EventID that message's event id.
	Requester string
	EventID   string
	Running   bool
	Queued    int
}

// Active returns the threads of a channel (k's platform, workspace and
// channel; its thread is ignored) that have a turn running or queued,
// sorted by thread.
func (m *Manager) Active(k Key) []Activity {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Activity
	for _, s := range m.sessions {
		sk := s.key
		if sk.Platform != k.Platform || sk.Workspace != k.Workspace || sk.Channel != k.Channel {
			continue
		}
		if !s.running && len(s.queue) == 0 {
			continue
		}
		out = append(out, Activity{Key: sk, Requester: s.requester, EventID: s.event, Running: s.cancel != nil, Queued: len(s.queue)})
	}
	slices.SortFunc(out, func(a, b Activity) int { return strings.Compare(a.Key.Thread, b.Key.Thread) })
	return out
}

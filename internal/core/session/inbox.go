package session

import (
	"context"
	"fmt"
	"strings"
)

// recoverInbox handles the messages accepted before the process stopped
// whose turns were not stored. Each is in one of four states:
//   - its turn waits for an approval (owned): the approval finishes it;
//   - its turn was stored after all (a row left by a duplicate save): the
//     row is dropped;
//   - its turn never started, or started but called no tool yet (queued
//     or answering at a crash or a shutdown): it is queued again, in the
//     order the messages arrived;
//   - its turn called a tool and was cut off by a crash: it is not run
//     again, since that may repeat what the tool did, and the thread is
//     told to ask again; so is one whose turns started maxAttempts times
//     (each ended with the process, so it may be what stops it).
//
// Messages of platforms not registered in this run stay in the inbox.
func (m *Manager) recoverInbox(ctx context.Context, owned map[string]bool) error {
	qs, err := m.store.Inbox(ctx)
	if err != nil {
		return fmt.Errorf("recover inbox: %w", err)
	}
	var queued, interrupted int
	for _, q := range qs {
		ev := q.Key.Platform + "/" + q.EventID
		if owned[ev] {
			continue
		}
		p, err := m.platform(q.Key.Platform)
		if err != nil {
			continue
		}
		seen, err := m.store.EventSeen(ctx, q.Key.Platform, q.EventID)
		if err != nil {
			return fmt.Errorf("recover inbox: %w", err)
		}
		switch {
		case seen:
			m.dropInbound(ctx, q.Inbound)
		case q.Acted.IsZero() && q.Attempts >= maxAttempts:
			// Its turns keep ending with the process (a crash it causes):
			// not again.
			m.tellInterrupted(ctx, p, q, fmt.Sprintf("⚠️ I tried to answer “%s” %d times and the bot stopped each time, so I gave up on it. Please rephrase it or tell the operator.", quote(q.Text), q.Attempts))
			interrupted++
		case q.Started.IsZero() || q.Acted.IsZero():
			if !q.Started.IsZero() && q.StatusRef != "" {
				_ = p.Edit(ctx, q.Key, q.StatusRef, Out{Kind: OutStatus, Text: "↻ Interrupted by a restart; answering again below", Final: true})
			}
			in := q.Inbound
			if ok, err := m.admit(in); err != nil {
				return fmt.Errorf("recover inbox: %w", err)
			} else if !ok {
				continue
			}
			if _, err := m.enqueue(in.Key, job{msg: &in}); err != nil {
				return fmt.Errorf("recover inbox: %w", err)
			}
			queued++
		default:
			m.tellInterrupted(ctx, p, q, fmt.Sprintf("⚠️ I restarted while answering “%s”, so that answer is lost. Send it again and I will start over.", quote(q.Text)))
			interrupted++
		}
	}
	if queued+interrupted > 0 {
		m.lg.Info("recovered messages", "queued", queued, "interrupted", interrupted)
	}
	return nil
}

// maxAttempts bounds the turns started for one message across restarts.
const maxAttempts = 3

// tellInterrupted closes the turn of a message that a crash cut off and
// tells its thread text.
func (m *Manager) tellInterrupted(ctx context.Context, p Platform, q Queued, text string) {
	if q.StatusRef != "" {
		_ = p.Edit(ctx, q.Key, q.StatusRef, Out{Kind: OutStatus, Text: "⚠️ Interrupted: the bot restarted", Final: true})
	}
	if _, err := p.Post(ctx, q.Key, Out{Kind: OutNotice, Text: text}); err != nil {
		// Keep the row: the next start tells the thread.
		m.lg.Warn("tell thread of an interrupted turn", "event", q.EventID, "err", err)
		return
	}
	m.dropInbound(ctx, q.Inbound)
}

// quote is the start of a message for a notice, on one line.
func quote(text string) string {
	q := strings.Join(strings.Fields(text), " ")
	if r := []rune(q); len(r) > 80 {
		q = string(r[:80]) + "…"
	}
	return q
}

func (m *Manager) dropInbound(ctx context.Context, in Inbound) {
	if err := m.store.DropInbound(ctx, in.Key.Platform, in.EventID); err != nil {
		m.lg.Warn("drop inbound message", "event", in.EventID, "err", err)
	}
}

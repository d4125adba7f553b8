package storage

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// AddInbound stores an accepted message in the inbox and reports whether
// this call stored it (false: a row for the event exists). Received zero
// means now.
func (s *SQLite) AddInbound(ctx context.Context, m Inbound) (first bool, err error) {
	if m.EventID == "" || m.Key.Platform == "" {
		return false, fmt.Errorf("add inbound: %w: empty platform or event id", ErrInvalid)
	}
	if m.Received.IsZero() {
		m.Received = s.now()
	}
	err = s.write(ctx, "add inbound", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO inbox
			(platform, event_id, workspace, channel, thread, user_id, user_name, text, is_admin, received_at, seq)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10,
				(SELECT COALESCE(MAX(seq), 0) + 1 FROM inbox))
			ON CONFLICT (platform, event_id) DO NOTHING`,
			m.Key.Platform, m.EventID, m.Key.Workspace, m.Key.Channel, m.Key.Thread,
			m.User, m.UserName, m.Text, boolInt(m.IsAdmin), enc(m.Received))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		first = n == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("add inbound %s/%s: %w", m.Key.Platform, m.EventID, err)
	}
	return first, nil
}

// SetInboundText replaces the text of an inbox message (ErrNotFound).
func (s *SQLite) SetInboundText(ctx context.Context, platform, eventID, text string) error {
	return s.updateInbound(ctx, "set inbound text", platform, eventID, `text = $1`, text)
}

// StartInbound records that a turn of an inbox message started, with the
// reference of its status message, and counts the attempt (ErrNotFound
// when the row is gone).
func (s *SQLite) StartInbound(ctx context.Context, platform, eventID, statusRef string, at time.Time) error {
	if at.IsZero() {
		at = s.now()
	}
	return s.updateInbound(ctx, "start inbound", platform, eventID,
		`started_at = $1, status_ref = $2, attempts = attempts + 1`, enc(at), statusRef)
}

// ActedInbound records that the turn of an inbox message called its first
// tool; a later call keeps the first time (ErrNotFound when the row is
// gone).
func (s *SQLite) ActedInbound(ctx context.Context, platform, eventID string, at time.Time) error {
	if at.IsZero() {
		at = s.now()
	}
	return s.updateInbound(ctx, "inbound acted", platform, eventID,
		`acted_at = CASE WHEN acted_at = 0 THEN $1 ELSE acted_at END`, enc(at))
}

// updateInbound applies set, an UPDATE's SET clause whose arguments are
// $1…$n, to one inbox row (ErrNotFound when there is none).
func (s *SQLite) updateInbound(ctx context.Context, op, platform, eventID, set string, args ...any) error {
	query := fmt.Sprintf(`UPDATE inbox SET %s WHERE platform = $%d AND event_id = $%d`, set, len(args)+1, len(args)+2)
	err := s.write(ctx, op, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, query, append(args, platform, eventID)...)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err == nil && n == 0 {
			err = ErrNotFound
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("%s %s/%s: %w", op, platform, eventID, err)
	}
	return nil
}

// Inbox returns the inbox in the order the messages were received.
func (s *SQLite) Inbox(ctx context.Context) ([]Inbound, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT platform, event_id, workspace, channel, thread,
		user_id, user_name, text, is_admin, received_at, started_at, status_ref, acted_at, attempts
		FROM inbox ORDER BY received_at, seq`)
	if err != nil {
		return nil, fmt.Errorf("inbox: %w", err)
	}
	defer rows.Close()
	var out []Inbound
	for rows.Next() {
		var m Inbound
		var admin int
		var received, started, acted int64
		if err := rows.Scan(&m.Key.Platform, &m.EventID, &m.Key.Workspace, &m.Key.Channel, &m.Key.Thread,
			&m.User, &m.UserName, &m.Text, &admin, &received, &started, &m.StatusRef, &acted, &m.Attempts); err != nil {
			return nil, fmt.Errorf("inbox: %w", err)
		}
		m.IsAdmin, m.Received, m.Started, m.Acted = admin != 0, dec(received), dec(started), dec(acted)
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("inbox: %w", err)
	}
	return out, nil
}

// DropInbound removes a message from the inbox without a turn and marks
// its event processed, in one transaction, so it neither runs again nor
// is accepted again. A missing row is not an error.
func (s *SQLite) DropInbound(ctx context.Context, platform, eventID string) error {
	if eventID == "" {
		return fmt.Errorf("drop inbound: %w: empty event id", ErrInvalid)
	}
	now := s.now()
	err := s.write(ctx, "drop inbound", func(tx *sql.Tx) error {
		if err := deleteInbound(ctx, tx, platform, eventID); err != nil {
			return err
		}
		_, err := markEvent(ctx, tx, platform, eventID, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("drop inbound %s/%s: %w", platform, eventID, err)
	}
	return nil
}

func deleteInbound(ctx context.Context, tx *sql.Tx, platform, eventID string) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM inbox WHERE platform = $1 AND event_id = $2`, platform, eventID)
	return err
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

package storage

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// SaveDecision upserts an ask-once decision by session and key (ErrNotFound
// for an unknown session). A zero Created takes the store's clock.
func (s *SQLite) SaveDecision(ctx context.Context, d Decision) error {
	err := s.write(ctx, "save decision", func(tx *sql.Tx) error {
		now := s.now()
		if err := touchSession(ctx, tx, d.SessionID, now); err != nil {
			return err
		}
		return upsertDecisions(ctx, tx, d.SessionID, []Decision{d}, now)
	})
	if err != nil {
		return fmt.Errorf("save decision %s %q: %w", d.SessionID, d.Key, err)
	}
	return nil
}

func upsertDecisions(ctx context.Context, tx *sql.Tx, sessionID string, ds []Decision, now time.Time) error {
	for _, d := range ds {
		if d.SessionID != "" && d.SessionID != sessionID {
			return fmt.Errorf("decision %q: %w: session %s in a turn of %s", d.Key, ErrInvalid, d.SessionID, sessionID)
		}
		if d.Key == "" {
			return fmt.Errorf("decision: %w: empty key", ErrInvalid)
		}
		created := d.Created
		if created.IsZero() {
			created = now
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO decisions (session_id, key, tool,
			approved, reason, decided_by, created) VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (session_id, key) DO UPDATE SET tool = excluded.tool,
				approved = excluded.approved, reason = excluded.reason,
				decided_by = excluded.decided_by, created = excluded.created`,
			sessionID, d.Key, d.Tool, d.Approved, d.Reason, d.By, enc(created)); err != nil {
			return fmt.Errorf("decision %q: %w", d.Key, err)
		}
	}
	return nil
}

func queryDecisions(ctx context.Context, q queryer, sessionID string) ([]Decision, error) {
	rows, err := q.QueryContext(ctx, `SELECT session_id, key, tool, approved, reason,
		decided_by, created FROM decisions WHERE session_id = $1 ORDER BY key`, sessionID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Decision
	for rows.Next() {
		var (
			d       Decision
			created int64
		)
		if err := rows.Scan(&d.SessionID, &d.Key, &d.Tool, &d.Approved, &d.Reason, &d.By, &created); err != nil {
			return nil, err
		}
		d.Created = dec(created)
		out = append(out, d)
	}
	return out, rows.Err()
}

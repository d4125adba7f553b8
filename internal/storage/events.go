package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// EventSeen reports whether an inbound event was already processed.
func (s *SQLite) EventSeen(ctx context.Context, platform, id string) (bool, error) {
	var one int
	err := s.r.QueryRowContext(ctx,
		`SELECT 1 FROM processed_events WHERE platform = $1 AND event_id = $2`, platform, id).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("event seen %s/%s: %w", platform, id, err)
	}
	return true, nil
}

// MarkEvent records an inbound event as processed and reports whether this
// call recorded it; false means it was processed before. Do not mark an
// event that is then passed to SaveTurn, which marks it itself.
func (s *SQLite) MarkEvent(ctx context.Context, platform, id string) (first bool, err error) {
	if id == "" {
		return false, fmt.Errorf("mark event: %w: empty id", ErrInvalid)
	}
	err = s.write(ctx, "mark event", func(tx *sql.Tx) error {
		first, err = markEvent(ctx, tx, platform, id, s.now())
		return err
	})
	if err != nil {
		return false, fmt.Errorf("mark event %s/%s: %w", platform, id, err)
	}
	return first, nil
}

func markEvent(ctx context.Context, tx *sql.Tx, platform, id string, now time.Time) (bool, error) {
	res, err := tx.ExecContext(ctx, `INSERT INTO processed_events (platform, event_id, seen_at)
		VALUES ($1, $2, $3) ON CONFLICT (platform, event_id) DO NOTHING`, platform, id, enc(now))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

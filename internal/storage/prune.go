package storage

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Prune deletes audit rows older than now-auditOlderThan and processed event
// ids older than now-eventsOlderThan, in one transaction; a duration <= 0
// keeps that kind forever. It returns how many rows of each it deleted.
func (s *SQLite) Prune(ctx context.Context, now time.Time, auditOlderThan, eventsOlderThan time.Duration) (auditDeleted, eventsDeleted int64, err error) {
	err = s.write(ctx, "prune", func(tx *sql.Tx) error {
		var err error
		if auditOlderThan > 0 {
			if auditDeleted, err = deleteBefore(ctx, tx, `DELETE FROM audit WHERE at < $1`, now.Add(-auditOlderThan)); err != nil {
				return fmt.Errorf("audit: %w", err)
			}
		}
		if eventsOlderThan > 0 {
			if eventsDeleted, err = deleteBefore(ctx, tx, `DELETE FROM processed_events WHERE seen_at < $1`, now.Add(-eventsOlderThan)); err != nil {
				return fmt.Errorf("events: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("prune: %w", err)
	}
	if auditDeleted+eventsDeleted > 0 {
		s.lg.Info("storage pruned", "audit", auditDeleted, "events", eventsDeleted)
	}
	return auditDeleted, eventsDeleted, nil
}

func deleteBefore(ctx context.Context, tx *sql.Tx, query string, cutoff time.Time) (int64, error) {
	res, err := tx.ExecContext(ctx, query, enc(cutoff))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

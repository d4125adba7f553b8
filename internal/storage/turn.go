package storage

import (
	"context"
	"database/sql"
	"fmt"
)

// SaveTurn writes a turn in one transaction: the inbound event marked
// processed and its inbox row deleted (if t.EventID is set), the session's
// Updated bumped, messages appended, variables upserted and removed, audit
// rows appended, decisions upserted, and the approvals in t.ResolvePending
// deleted. It returns
// ErrNotFound for an unknown session and ErrDuplicateEvent when the event
// was already processed; either way nothing was written.
func (s *SQLite) SaveTurn(ctx context.Context, t Turn) error {
	if t.SessionID == "" {
		return fmt.Errorf("save turn: %w: empty session id", ErrInvalid)
	}
	now := s.now()
	err := s.write(ctx, "save turn", func(tx *sql.Tx) error {
		if t.EventID != "" {
			first, err := markEvent(ctx, tx, t.EventPlatform, t.EventID, now)
			if err != nil {
				return err
			}
			if !first {
				return fmt.Errorf("event %s/%s: %w", t.EventPlatform, t.EventID, ErrDuplicateEvent)
			}
			if err := deleteInbound(ctx, tx, t.EventPlatform, t.EventID); err != nil {
				return err
			}
		}
		if err := touchSession(ctx, tx, t.SessionID, now); err != nil {
			return err
		}
		if err := insertMessages(ctx, tx, t.SessionID, t.Messages, now); err != nil {
			return err
		}
		if err := changeVars(ctx, tx, t.SessionID, t.VarUpserts, t.VarRemoved); err != nil {
			return err
		}
		if err := insertAudit(ctx, tx, t.SessionID, t.Audit, now); err != nil {
			return err
		}
		if err := upsertDecisions(ctx, tx, t.SessionID, t.Decisions, now); err != nil {
			return err
		}
		for _, id := range t.ResolvePending {
			if _, err := tx.ExecContext(ctx,
				`DELETE FROM pending_approvals WHERE id = $1 AND session_id = $2`, id, t.SessionID); err != nil {
				return fmt.Errorf("resolve pending %s: %w", id, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("save turn %s: %w", t.SessionID, err)
	}
	return nil
}

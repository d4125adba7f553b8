package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/threadbot/threadbot/internal/core/vars"
)

const pendingCols = `id, session_id, call_id, tool, args_summary, requester, message_ref,
	kind, checkpoint, status, decided_by, reason, created, expires, decided`

// SavePending upserts an approval by ID together with the session's
// variable changes, in one transaction, so a resumed turn finds its cached
// results; it also bumps the session's Updated. Saving again with the same
// ID replaces every field (e.g. to record MessageRef once the request is
// posted). An empty Status means pending; a zero Created takes the store's
// clock. It returns ErrNotFound for an unknown session.
func (s *SQLite) SavePending(ctx context.Context, p PendingApproval, varUpserts []vars.Variable, varRemoved []string) error {
	if p.ID == "" {
		return fmt.Errorf("save pending: %w: empty id", ErrInvalid)
	}
	if p.Status == "" {
		p.Status = StatusPending
	}
	if !validStatus(p.Status) {
		return fmt.Errorf("save pending %s: %w: status %q", p.ID, ErrInvalid, p.Status)
	}
	err := s.write(ctx, "save pending", func(tx *sql.Tx) error {
		now := s.now()
		if err := touchSession(ctx, tx, p.SessionID, now); err != nil {
			return err
		}
		if p.Created.IsZero() {
			p.Created = now
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO pending_approvals (`+pendingCols+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
			ON CONFLICT (id) DO UPDATE SET session_id = excluded.session_id,
				call_id = excluded.call_id, tool = excluded.tool,
				args_summary = excluded.args_summary, requester = excluded.requester,
				message_ref = excluded.message_ref, kind = excluded.kind,
				checkpoint = excluded.checkpoint, status = excluded.status,
				decided_by = excluded.decided_by, reason = excluded.reason,
				created = excluded.created, expires = excluded.expires, decided = excluded.decided`,
			p.ID, p.SessionID, p.CallID, p.Tool, p.ArgsSummary, p.Requester, p.MessageRef,
			p.Kind, blob(p.Checkpoint), p.Status, p.DecidedBy, p.Reason,
			enc(p.Created), enc(p.Expires), enc(p.Decided)); err != nil {
			return err
		}
		return changeVars(ctx, tx, p.SessionID, varUpserts, varRemoved)
	})
	if err != nil {
		return fmt.Errorf("save pending %s: %w", p.ID, err)
	}
	return nil
}

// GetPending returns an approval (ErrNotFound).
func (s *SQLite) GetPending(ctx context.Context, id string) (PendingApproval, error) {
	p, err := scanPending(s.r.QueryRowContext(ctx,
		`SELECT `+pendingCols+` FROM pending_approvals WHERE id = $1`, id))
	if err != nil {
		return PendingApproval{}, fmt.Errorf("get pending %s: %w", id, err)
	}
	return p, nil
}

// DecidePending sets status (approved, rejected or expired), who decided,
// why and when (a zero at means now), atomically and only if the approval
// is still pending, and returns it. When it is not pending any more it
// returns the stored approval, unchanged, with ErrAlreadyDecided, so a
// double click never decides twice. Unknown ids return ErrNotFound, another
// status ErrInvalid.
func (s *SQLite) DecidePending(ctx context.Context, id, status, by, reason string, at time.Time) (PendingApproval, error) {
	if status == StatusPending || !validStatus(status) {
		return PendingApproval{}, fmt.Errorf("decide pending %s: %w: status %q", id, ErrInvalid, status)
	}
	var (
		p       PendingApproval
		decided bool
	)
	err := s.write(ctx, "decide pending", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE pending_approvals SET status = $1,
			decided_by = $2, reason = $3, decided = $4 WHERE id = $5 AND status = 'pending'`,
			status, by, reason, enc(s.orNow(at)), id)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		decided = n == 1
		p, err = scanPending(tx.QueryRowContext(ctx,
			`SELECT `+pendingCols+` FROM pending_approvals WHERE id = $1`, id))
		return err
	})
	if err != nil {
		return PendingApproval{}, fmt.Errorf("decide pending %s: %w", id, err)
	}
	if !decided {
		return p, fmt.Errorf("decide pending %s: %s by %q: %w", id, p.Status, p.DecidedBy, ErrAlreadyDecided)
	}
	return p, nil
}

// DeletePending removes an approval (ErrNotFound).
func (s *SQLite) DeletePending(ctx context.Context, id string) error {
	err := s.write(ctx, "delete pending", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM pending_approvals WHERE id = $1`, id)
		return oneRow(res, err)
	})
	if err != nil {
		return fmt.Errorf("delete pending %s: %w", id, err)
	}
	return nil
}

// RecoverPending is called at start, in one transaction. Pending approvals
// that expire after now, or never (zero Expires), are returned in live with
// their checkpoints to wait for a click again; live also holds approvals
// already approved or rejected whose turn was never saved, to resume at once
// (their Status says how). Pending approvals at or past their expiry are
// marked expired (decided at now, reason "expired") and returned in
// expired, together with earlier expired ones not yet deleted, so the
// thread can be told; delete them (DeletePending, Turn.ResolvePending) once
// it is. Both lists are ordered by Created, then ID.
func (s *SQLite) RecoverPending(ctx context.Context, now time.Time) (live, expired []PendingApproval, err error) {
	err = s.write(ctx, "recover pending", func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE pending_approvals SET status = 'expired',
			decided = $1, reason = 'expired' WHERE status = 'pending' AND expires <> 0 AND expires <= $1`,
			enc(now)); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+pendingCols+` FROM pending_approvals
			ORDER BY created, id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			p, err := scanPending(rows)
			if err != nil {
				return err
			}
			if p.Status == StatusExpired {
				expired = append(expired, p)
			} else {
				live = append(live, p)
			}
		}
		return rows.Err()
	})
	if err != nil {
		return nil, nil, fmt.Errorf("recover pending: %w", err)
	}
	if len(live)+len(expired) > 0 {
		s.lg.Info("storage recovered pending approvals", "live", len(live), "expired", len(expired))
	}
	return live, expired, nil
}

func validStatus(s string) bool {
	switch s {
	case StatusPending, StatusApproved, StatusRejected, StatusExpired:
		return true
	}
	return false
}

func scanPending(sc scanner) (PendingApproval, error) {
	var (
		p                         PendingApproval
		created, expires, decided int64
	)
	err := sc.Scan(&p.ID, &p.SessionID, &p.CallID, &p.Tool, &p.ArgsSummary, &p.Requester,
		&p.MessageRef, &p.Kind, &p.Checkpoint, &p.Status, &p.DecidedBy, &p.Reason,
		&created, &expires, &decided)
	if errors.Is(err, sql.ErrNoRows) {
		return PendingApproval{}, ErrNotFound
	}
	if err != nil {
		return PendingApproval{}, err
	}
	p.Checkpoint = blob(p.Checkpoint)
	p.Created, p.Expires, p.Decided = dec(created), dec(expires), dec(decided)
	return p, nil
}

package storage

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

const auditCols = `id, session_id, kind, tool, call_id, status, actor, detail, duration_ns, at`

// AppendAudit appends audit rows in one transaction. A zero At takes the
// store's clock.
func (s *SQLite) AppendAudit(ctx context.Context, entries ...AuditEntry) error {
	if len(entries) == 0 {
		return nil
	}
	err := s.write(ctx, "append audit", func(tx *sql.Tx) error {
		return insertAudit(ctx, tx, "", entries, s.now())
	})
	if err != nil {
		return fmt.Errorf("append audit: %w", err)
	}
	return nil
}

// Audit returns the last limit audit rows of a session, or of every session
// when sessionID is empty, in chronological order; limit <= 0 means all.
func (s *SQLite) Audit(ctx context.Context, sessionID string, limit int) ([]AuditEntry, error) {
	where, args := `TRUE`, []any{}
	if sessionID != "" {
		where, args = `session_id = $1`, append(args, sessionID)
	}
	query := `SELECT ` + auditCols + ` FROM audit WHERE ` + where + ` ORDER BY id`
	if limit > 0 {
		args = append(args, limit)
		query = fmt.Sprintf(`SELECT * FROM (SELECT %s FROM audit WHERE %s ORDER BY id DESC LIMIT $%d)
			AS last ORDER BY id`, auditCols, where, len(args))
	}
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("audit %s: %w", sessionID, err)
	}
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		var (
			e       AuditEntry
			dur, at int64
		)
		if err := rows.Scan(&e.ID, &e.SessionID, &e.Kind, &e.Tool, &e.CallID, &e.Status,
			&e.Actor, &e.Detail, &dur, &at); err != nil {
			return nil, fmt.Errorf("audit %s: %w", sessionID, err)
		}
		e.Duration, e.At = time.Duration(dur), dec(at)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit %s: %w", sessionID, err)
	}
	return out, nil
}

// insertAudit appends entries; an entry's empty SessionID becomes sessionID.
func insertAudit(ctx context.Context, tx *sql.Tx, sessionID string, entries []AuditEntry, now time.Time) error {
	if len(entries) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO audit (session_id, kind, tool, call_id,
		status, actor, detail, duration_ns, at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for i, e := range entries {
		if e.SessionID == "" {
			e.SessionID = sessionID
		}
		if e.Kind == "" {
			return fmt.Errorf("audit entry %d: %w: empty kind", i, ErrInvalid)
		}
		at := e.At
		if at.IsZero() {
			at = now
		}
		if _, err := stmt.ExecContext(ctx, e.SessionID, e.Kind, e.Tool, e.CallID, e.Status,
			e.Actor, e.Detail, int64(e.Duration), enc(at)); err != nil {
			return fmt.Errorf("audit entry %d: %w", i, err)
		}
	}
	return nil
}

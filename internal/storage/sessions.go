package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

const sessionCols = `id, platform, workspace, channel, thread, settings, created, updated`

// EnsureSession creates s if no session has its ID and returns the stored
// session. Zero Created and Updated take the store's clock. A different ID
// for a Key that already has a session is an error.
func (s *SQLite) EnsureSession(ctx context.Context, sess Session) (Session, error) {
	if sess.ID == "" {
		return Session{}, fmt.Errorf("ensure session: %w: empty id", ErrInvalid)
	}
	settings, err := encSettings(sess.Settings)
	if err != nil {
		return Session{}, fmt.Errorf("ensure session %s: %w", sess.ID, err)
	}
	created := s.orNow(sess.Created)
	updated := sess.Updated
	if updated.IsZero() {
		updated = created
	}
	var out Session
	err = s.write(ctx, "ensure session", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `
			INSERT INTO sessions (`+sessionCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (id) DO NOTHING`,
			sess.ID, sess.Key.Platform, sess.Key.Workspace, sess.Key.Channel, sess.Key.Thread,
			settings, enc(created), enc(updated))
		if err != nil {
			return err
		}
		out, err = getSession(ctx, tx, `id = $1`, sess.ID)
		return err
	})
	if err != nil {
		return Session{}, fmt.Errorf("ensure session %s: %w", sess.ID, err)
	}
	return out, nil
}

// GetSession returns the session with id, or ErrNotFound.
func (s *SQLite) GetSession(ctx context.Context, id string) (Session, error) {
	out, err := getSession(ctx, s.r, `id = $1`, id)
	if err != nil {
		return Session{}, fmt.Errorf("get session %s: %w", id, err)
	}
	return out, nil
}

// FindSession returns the session at key, or ErrNotFound.
func (s *SQLite) FindSession(ctx context.Context, key SessionKey) (Session, error) {
	out, err := getSession(ctx, s.r,
		`platform = $1 AND workspace = $2 AND channel = $3 AND thread = $4`,
		key.Platform, key.Workspace, key.Channel, key.Thread)
	if err != nil {
		return Session{}, fmt.Errorf("find session %s/%s/%s/%s: %w",
			key.Platform, key.Workspace, key.Channel, key.Thread, err)
	}
	return out, nil
}

// UpdateSessionSettings replaces the settings of a session (ErrNotFound).
func (s *SQLite) UpdateSessionSettings(ctx context.Context, id string, settings map[string]string) error {
	js, err := encSettings(settings)
	if err != nil {
		return fmt.Errorf("update session settings %s: %w", id, err)
	}
	err = s.write(ctx, "update session settings", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET settings = $1 WHERE id = $2`, js, id)
		return oneRow(res, err)
	})
	if err != nil {
		return fmt.Errorf("update session settings %s: %w", id, err)
	}
	return nil
}

// ListSessions returns every session, most recently updated first.
func (s *SQLite) ListSessions(ctx context.Context) ([]Session, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+sessionCols+` FROM sessions ORDER BY updated DESC, id`)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		out = append(out, sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}

// DeleteSession removes a session with its messages, variables, decisions
// and pending approvals; its audit rows stay (ErrNotFound).
func (s *SQLite) DeleteSession(ctx context.Context, id string) error {
	err := s.write(ctx, "delete session", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = $1`, id)
		return oneRow(res, err)
	})
	if err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	return nil
}

// touchSession sets a session's Updated, returning ErrNotFound when it
// does not exist. Every write that belongs to a session starts with it.
func touchSession(ctx context.Context, tx *sql.Tx, id string, now time.Time) error {
	res, err := tx.ExecContext(ctx, `UPDATE sessions SET updated = $1 WHERE id = $2`, enc(now), id)
	if err := oneRow(res, err); err != nil {
		return fmt.Errorf("session %s: %w", id, err)
	}
	return nil
}

func getSession(ctx context.Context, q queryer, where string, args ...any) (Session, error) {
	return scanSession(q.QueryRowContext(ctx, `SELECT `+sessionCols+` FROM sessions WHERE `+where, args...))
}

func scanSession(sc scanner) (Session, error) {
	var (
		sess             Session
		settings         string
		created, updated int64
	)
	err := sc.Scan(&sess.ID, &sess.Key.Platform, &sess.Key.Workspace, &sess.Key.Channel,
		&sess.Key.Thread, &settings, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, ErrNotFound
	}
	if err != nil {
		return Session{}, err
	}
	if settings != "" && settings != "{}" {
		if err := json.Unmarshal([]byte(settings), &sess.Settings); err != nil {
			return Session{}, fmt.Errorf("settings: %w", err)
		}
	}
	sess.Created, sess.Updated = dec(created), dec(updated)
	return sess, nil
}

func encSettings(m map[string]string) (string, error) {
	return encJSON(m, len(m) == 0, "{}")
}

// oneRow turns an Exec result that touched no row into ErrNotFound.
func oneRow(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

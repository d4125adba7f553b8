package storage

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

const messageCols = `id, session_id, role, content, hint_size, chain_json, native_json,
	prompt_tokens, completion_tokens, total_tokens, tokens_sent, created`

// LoadSession returns the session with its whole history, variables and
// decisions, read in one consistent snapshot (ErrNotFound).
func (s *SQLite) LoadSession(ctx context.Context, id string) (Snapshot, error) {
	var snap Snapshot
	err := s.read(ctx, func(tx *sql.Tx) error {
		var err error
		if snap.Session, err = getSession(ctx, tx, `id = $1`, id); err != nil {
			return err
		}
		if snap.Messages, err = queryMessages(ctx, tx, id, 0); err != nil {
			return err
		}
		if snap.Vars, err = queryVars(ctx, tx, id); err != nil {
			return err
		}
		snap.Decisions, err = queryDecisions(ctx, tx, id)
		return err
	})
	if err != nil {
		return Snapshot{}, fmt.Errorf("load session %s: %w", id, err)
	}
	return snap, nil
}

// Messages returns the last limit messages of a session in chronological
// order; limit <= 0 returns all of them. An unknown session has none.
func (s *SQLite) Messages(ctx context.Context, sessionID string, limit int) ([]Message, error) {
	msgs, err := queryMessages(ctx, s.r, sessionID, limit)
	if err != nil {
		return nil, fmt.Errorf("messages %s: %w", sessionID, err)
	}
	return msgs, nil
}

func queryMessages(ctx context.Context, q queryer, sessionID string, limit int) ([]Message, error) {
	query := `SELECT ` + messageCols + ` FROM messages WHERE session_id = $1 ORDER BY id`
	args := []any{sessionID}
	if limit > 0 {
		query = `SELECT * FROM (SELECT ` + messageCols + ` FROM messages
			WHERE session_id = $1 ORDER BY id DESC LIMIT $2) AS last ORDER BY id`
		args = append(args, limit)
	}
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		var (
			m       Message
			created int64
		)
		if err := rows.Scan(&m.ID, &m.SessionID, &m.Role, &m.Content, &m.HintSize,
			&m.ChainJSON, &m.NativeJSON, &m.Usage.PromptTokens, &m.Usage.CompletionTokens,
			&m.Usage.TotalTokens, &m.TokensSent, &created); err != nil {
			return nil, err
		}
		m.ChainJSON, m.NativeJSON = blob(m.ChainJSON), blob(m.NativeJSON)
		m.Created = dec(created)
		out = append(out, m)
	}
	return out, rows.Err()
}

// insertMessages appends messages of sessionID; a message's own SessionID
// must be empty or sessionID.
func insertMessages(ctx context.Context, tx *sql.Tx, sessionID string, msgs []Message, now time.Time) error {
	if len(msgs) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO messages (session_id, role, content,
		hint_size, chain_json, native_json, prompt_tokens, completion_tokens, total_tokens,
		tokens_sent, created) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for i, m := range msgs {
		if m.SessionID != "" && m.SessionID != sessionID {
			return fmt.Errorf("message %d: %w: session %s in a turn of %s", i, ErrInvalid, m.SessionID, sessionID)
		}
		created := m.Created
		if created.IsZero() {
			created = now
		}
		if _, err := stmt.ExecContext(ctx, sessionID, m.Role, m.Content, m.HintSize,
			blob(m.ChainJSON), blob(m.NativeJSON), m.Usage.PromptTokens, m.Usage.CompletionTokens,
			m.Usage.TotalTokens, m.TokensSent, enc(created)); err != nil {
			return fmt.Errorf("message %d: %w", i, err)
		}
	}
	return nil
}

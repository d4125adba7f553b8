package storage

import (
	"context"
	"database/sql"
	"fmt"
)

// JournalEntry is a raw platform event kept until the runtime has taken it.
type JournalEntry struct {
	ID      string
	Payload []byte
}

// JournalPut keeps a raw event of a platform under id; an id already kept
// is left as it is.
func (s *SQLite) JournalPut(ctx context.Context, platform, id string, payload []byte) error {
	if platform == "" || id == "" {
		return fmt.Errorf("journal put: %w: empty platform or id", ErrInvalid)
	}
	now := s.now()
	err := s.write(ctx, "journal put", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO journal (platform, id, payload, received_at, seq)
			VALUES ($1, $2, $3, $4, (SELECT COALESCE(MAX(seq), 0) + 1 FROM journal))
			ON CONFLICT (platform, id) DO NOTHING`, platform, id, payload, enc(now))
		return err
	})
	if err != nil {
		return fmt.Errorf("journal put %s/%s: %w", platform, id, err)
	}
	return nil
}

// JournalDelete forgets a raw event; a missing one is not an error.
func (s *SQLite) JournalDelete(ctx context.Context, platform, id string) error {
	err := s.write(ctx, "journal delete", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM journal WHERE platform = $1 AND id = $2`, platform, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("journal delete %s/%s: %w", platform, id, err)
	}
	return nil
}

// Journal returns the raw events kept for a platform, in the order they
// were put.
func (s *SQLite) Journal(ctx context.Context, platform string) ([]JournalEntry, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, payload FROM journal WHERE platform = $1 ORDER BY seq`, platform)
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", platform, err)
	}
	defer rows.Close()
	var out []JournalEntry
	for rows.Next() {
		var e JournalEntry
		if err := rows.Scan(&e.ID, &e.Payload); err != nil {
			return nil, fmt.Errorf("journal %s: %w", platform, err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal %s: %w", platform, err)
	}
	return out, nil
}

// PlatformJournal is the journal of one platform, in the shape the chat
// adapters take (slack.Journal).
type PlatformJournal struct {
	st       Store
	platform string
}

// JournalOf returns the journal of platform in st.
func JournalOf(st Store, platform string) PlatformJournal {
	return PlatformJournal{st: st, platform: platform}
}

// Put keeps a raw event.
func (j PlatformJournal) Put(ctx context.Context, id string, payload []byte) error {
	return j.st.JournalPut(ctx, j.platform, id, payload)
}

// Delete forgets a raw event.
func (j PlatformJournal) Delete(ctx context.Context, id string) error {
	return j.st.JournalDelete(ctx, j.platform, id)
}

// All returns the kept events in the order they were put.
func (j PlatformJournal) All(ctx context.Context) (ids []string, payloads [][]byte, err error) {
	es, err := j.st.Journal(ctx, j.platform)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range es {
		ids = append(ids, e.ID)
		payloads = append(payloads, e.Payload)
	}
	return ids, payloads, nil
}

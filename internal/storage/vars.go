package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/threadbot/threadbot/internal/core/vars"
)

// SaveVars upserts and removes variables of a session outside a turn, e.g.
// before waiting for an approval, and bumps its Updated (ErrNotFound).
// Removing a variable that does not exist is not an error.
func (s *SQLite) SaveVars(ctx context.Context, sessionID string, upserts []vars.Variable, removed []string) error {
	err := s.write(ctx, "save vars", func(tx *sql.Tx) error {
		if err := touchSession(ctx, tx, sessionID, s.now()); err != nil {
			return err
		}
		return changeVars(ctx, tx, sessionID, upserts, removed)
	})
	if err != nil {
		return fmt.Errorf("save vars %s: %w", sessionID, err)
	}
	return nil
}

// changeVars upserts every field of each variable as given (times included,
// so the eviction order is restored exactly), then removes names.
func changeVars(ctx context.Context, tx *sql.Tx, sessionID string, upserts []vars.Variable, removed []string) error {
	if len(upserts) > 0 {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO variables (session_id, name, value,
			descr, type, tags, keep, created, updated, last_visited, ref_count)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
			ON CONFLICT (session_id, name) DO UPDATE SET value = excluded.value,
				descr = excluded.descr, type = excluded.type, tags = excluded.tags,
				keep = excluded.keep, created = excluded.created, updated = excluded.updated,
				last_visited = excluded.last_visited, ref_count = excluded.ref_count`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, v := range upserts {
			if v.Name == "" {
				return fmt.Errorf("variable: %w: empty name", ErrInvalid)
			}
			tags, err := encJSON(v.Tags, len(v.Tags) == 0, "[]")
			if err != nil {
				return fmt.Errorf("variable %s: %w", v.Name, err)
			}
			if _, err := stmt.ExecContext(ctx, sessionID, v.Name, v.Value, v.Desc, string(v.Type),
				tags, v.Keep, enc(v.Created), enc(v.Updated), enc(v.LastVisited), v.RefCount); err != nil {
				return fmt.Errorf("variable %s: %w", v.Name, err)
			}
		}
	}
	if len(removed) > 0 {
		stmt, err := tx.PrepareContext(ctx, `DELETE FROM variables WHERE session_id = $1 AND name = $2`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, name := range removed {
			if _, err := stmt.ExecContext(ctx, sessionID, name); err != nil {
				return fmt.Errorf("remove variable %s: %w", name, err)
			}
		}
	}
	return nil
}

func queryVars(ctx context.Context, q queryer, sessionID string) ([]vars.Variable, error) {
	rows, err := q.QueryContext(ctx, `SELECT name, value, descr, type, tags, keep, created,
		updated, last_visited, ref_count FROM variables WHERE session_id = $1 ORDER BY name`, sessionID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []vars.Variable
	for rows.Next() {
		var (
			v                         vars.Variable
			typ, tags                 string
			created, updated, visited int64
		)
		if err := rows.Scan(&v.Name, &v.Value, &v.Desc, &typ, &tags, &v.Keep,
			&created, &updated, &visited, &v.RefCount); err != nil {
			return nil, err
		}
		if tags != "" && tags != "[]" {
			if err := json.Unmarshal([]byte(tags), &v.Tags); err != nil {
				return nil, fmt.Errorf("variable %s tags: %w", v.Name, err)
			}
		}
		v.Type = vars.Type(typ)
		v.Created, v.Updated, v.LastVisited = dec(created), dec(updated), dec(visited)
		out = append(out, v)
	}
	return out, rows.Err()
}

package storage

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// migrationFS holds the schema migrations, NNNN_name.sql, applied in order.
//
//go:embed migrations/*.sql
var migrationFS embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations sorted by version, checking
// that the versions run 1, 2, 3… without gaps.
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, path := range names {
		name := strings.TrimPrefix(path, "migrations/")
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name is not NNNN_name.sql", name)
		}
		b, err := migrationFS.ReadFile(path)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: name, sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: want version %d", m.name, i+1)
		}
	}
	return ms, nil
}

// Migrate applies the embedded migrations the database has not seen yet,
// each in its own transaction, recording progress in PRAGMA user_version.
// It is idempotent and safe against a concurrent Migrate in another process
// (the version is read inside each immediate transaction). It returns how
// many it applied, and ErrSchemaTooNew when the database is ahead of this
// binary.
func (s *SQLite) Migrate(ctx context.Context) (applied int, err error) {
	ms, err := migrations()
	if err != nil {
		return 0, fmt.Errorf("migrate: %w", err)
	}
	for _, m := range ms {
		var ran bool
		err := s.write(ctx, "migrate", func(tx *sql.Tx) error {
			cur, err := userVersion(ctx, tx)
			if err != nil {
				return err
			}
			if cur >= m.version {
				return nil
			}
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return err
			}
			// PRAGMA takes no parameters; the version is an int we control.
			if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
				return err
			}
			ran = true
			return nil
		})
		if err != nil {
			return applied, fmt.Errorf("migrate %s: %w", m.name, err)
		}
		if ran {
			applied++
			s.lg.Info("storage migration applied", "migration", m.name, "version", m.version)
		}
	}
	cur, err := userVersion(ctx, s.w)
	if err != nil {
		return applied, fmt.Errorf("migrate: %w", err)
	}
	if cur > len(ms) {
		return applied, fmt.Errorf("migrate: version %d, binary knows %d: %w", cur, len(ms), ErrSchemaTooNew)
	}
	return applied, nil
}

// Version returns the schema version of the database and the latest one
// this binary knows; they differ only when migrations are pending (or the
// database is newer).
func (s *SQLite) Version(ctx context.Context) (current, latest int, err error) {
	ms, err := migrations()
	if err != nil {
		return 0, 0, fmt.Errorf("schema version: %w", err)
	}
	cur, err := userVersion(ctx, s.r)
	if err != nil {
		return 0, 0, fmt.Errorf("schema version: %w", err)
	}
	return cur, len(ms), nil
}

func userVersion(ctx context.Context, q queryer) (int, error) {
	var v int
	err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Options configures Open. The zero value is usable.
type Options struct {
	// Now is the store's clock for times the caller leaves zero; time.Now
	// when nil.
	Now func() time.Time
	// Logger receives migration and close messages; discarded when nil.
	Logger *slog.Logger
	// NoMigrate leaves the schema as it is; call Migrate yourself (the
	// `threadbot migrate` subcommand does, to report what it applied).
	NoMigrate bool
	// ReadConns is the size of the read pool; max(4, GOMAXPROCS) when <= 0.
	ReadConns int
}

// SQLite is the SQLite implementation of Store. All writes go through one
// connection (so concurrent sessions queue in the process instead of
// failing with "database is locked"); reads use a separate pool, which WAL
// lets run beside the writer. It is safe for concurrent use.
type SQLite struct {
	w   *sql.DB // exactly one connection, BEGIN IMMEDIATE
	r   *sql.DB // read-only pool
	now func() time.Time
	lg  *slog.Logger

	// beforeCommit, when set by a test, runs inside every write transaction
	// just before Commit; an error aborts the transaction.
	beforeCommit func(op string) error
}

var _ Store = (*SQLite)(nil)

// busyTimeout is how long a connection waits for another process's lock
// (e.g. `threadbot migrate` beside a running bot) before failing.
const busyTimeout = 5000 // ms

// Open opens (creating it and its parent directories if needed) the SQLite
// database at dsn, a file path or a "file:" URI, and applies pending
// migrations unless opts.NoMigrate. The writer connection runs with
// busy_timeout(5000), WAL, synchronous(NORMAL), foreign_keys(ON) and
// immediate transactions. It returns ErrSchemaTooNew when the file was
// migrated by a newer binary.
func Open(ctx context.Context, dsn string, opts Options) (*SQLite, error) {
	base, err := baseURI(dsn)
	if err != nil {
		return nil, fmt.Errorf("open storage: %w", err)
	}
	s := &SQLite{now: opts.Now, lg: opts.Logger}
	if s.now == nil {
		s.now = time.Now
	}
	if s.lg == nil {
		s.lg = slog.New(slog.DiscardHandler)
	}

	s.w, err = sql.Open("sqlite", withParams(base,
		fmt.Sprintf("_pragma=busy_timeout(%d)", busyTimeout),
		"_pragma=journal_mode(WAL)",
		"_pragma=synchronous(NORMAL)",
		"_pragma=foreign_keys(ON)",
		"_txlock=immediate"))
	if err != nil {
		return nil, fmt.Errorf("open storage: %w", err)
	}
	s.w.SetMaxOpenConns(1)
	s.w.SetMaxIdleConns(1)
	s.w.SetConnMaxIdleTime(0)
	s.w.SetConnMaxLifetime(0)
	// Connect now, so WAL is on before any reader opens and a bad path
	// fails here rather than on the first turn.
	if err := s.w.PingContext(ctx); err != nil {
		s.w.Close()
		return nil, fmt.Errorf("open storage: %w", err)
	}

	s.r, err = sql.Open("sqlite", withParams(base,
		fmt.Sprintf("_pragma=busy_timeout(%d)", busyTimeout),
		"_pragma=query_only(1)"))
	if err != nil {
		s.w.Close()
		return nil, fmt.Errorf("open storage: %w", err)
	}
	n := opts.ReadConns
	if n <= 0 {
		n = max(4, runtime.GOMAXPROCS(0))
	}
	s.r.SetMaxOpenConns(n)
	s.r.SetMaxIdleConns(n)

	if !opts.NoMigrate {
		if _, err := s.Migrate(ctx); err != nil {
			s.Close()
			return nil, fmt.Errorf("open storage: %w", err)
		}
	}
	return s, nil
}

// baseURI turns a path into a "file:" URI (creating the parent directory)
// and passes a "file:" URI through.
func baseURI(dsn string) (string, error) {
	if dsn == "" {
		return "", fmt.Errorf("%w: empty database path", ErrInvalid)
	}
	if strings.HasPrefix(dsn, "file:") {
		return dsn, nil
	}
	abs, err := filepath.Abs(dsn)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return "", err
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	if !strings.HasPrefix(u.Path, "/") { // Windows: file:///C:/...
		u.Path = "/" + u.Path
	}
	return u.String(), nil
}

func withParams(uri string, params ...string) string {
	sep := "?"
	if strings.Contains(uri, "?") {
		sep = "&"
	}
	return uri + sep + strings.Join(params, "&")
}

// Close closes both connection pools.
func (s *SQLite) Close() error {
	return errors.Join(s.r.Close(), s.w.Close())
}

// write runs fn in one write transaction: BeginTx, defer Rollback, Commit.
func (s *SQLite) write(ctx context.Context, op string, fn func(tx *sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if s.beforeCommit != nil {
		if err := s.beforeCommit(op); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// read runs fn in one read-only transaction on the read pool, so every
// query in it sees the same snapshot.
func (s *SQLite) read(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// orNow returns t, or the store's clock when t is zero.
func (s *SQLite) orNow(t time.Time) time.Time {
	if t.IsZero() {
		return s.now()
	}
	return t
}

// queryer is what both *sql.DB and *sql.Tx offer.
type queryer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// scanner is *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// enc converts a time to Unix nanoseconds; the zero time is 0.
func enc(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// dec converts Unix nanoseconds back to a UTC time; 0 is the zero time.
func dec(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// encJSON stores v as JSON, with empty becoming the given literal.
func encJSON(v any, empty bool, literal string) (string, error) {
	if empty {
		return literal, nil
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// blob returns nil for an empty byte slice, so NULL and empty read the same.
func blob(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

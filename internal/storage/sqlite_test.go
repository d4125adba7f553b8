package storage_test

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/storage"
	"github.com/threadbot/threadbot/internal/storage/storagetest"
)

// tlog routes the store's logs to t.Log.
type tlog struct{ t testing.TB }

func (w tlog) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tlog{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// open opens a store on path, closed when the test ends.
func open(t testing.TB, path string, opts storage.Options) *storage.SQLite {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	s, err := storage.Open(context.Background(), path, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		// A parent directory that does not exist yet, with characters that
		// need escaping in a file: URI.
		path := filepath.Join(t.TempDir(), "data dir #1?", "threadbot.db")
		s, err := storage.Open(t.Context(), path, storage.Options{Logger: testLogger(t)})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		return s
	})
}

// TestReopen writes a session, closes the store and opens a new one on the
// same file, as a restarted process would: everything comes back exactly.
func TestReopen(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "threadbot.db")
	s := open(t, path, storage.Options{})

	sess := storagetest.Session("slack:T1:C1:1700000000.0001")
	sess.Settings = map[string]string{"history": "native"}
	if _, err := s.EnsureSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	// Variables whose eviction order depends on nanoseconds of lastVisited.
	vs := storagetest.Vars(50, "web_fetch", time.Date(2026, 1, 2, 3, 4, 5, 999999999, time.UTC))
	turn := storage.Turn{
		SessionID: sess.ID,
		Messages: []storage.Message{
			{Role: "user", Content: "hi"},
			{Role: "assistant", Content: "hello", HintSize: 0, ChainJSON: []byte(`{}`), NativeJSON: []byte(`[]`)},
		},
		VarUpserts:    vs,
		Decisions:     []storage.Decision{{Key: storage.AlwaysAllowKey("read"), Tool: "read", Approved: true, By: "U1"}},
		Audit:         []storage.AuditEntry{{Kind: storage.AuditToolCall, Tool: "read", Duration: time.Millisecond}},
		EventPlatform: "slack", EventID: "Ev1",
	}
	if err := s.SaveTurn(ctx, turn); err != nil {
		t.Fatal(err)
	}
	p := storage.PendingApproval{ID: "p1", SessionID: sess.ID, Tool: "bash", Kind: storage.KindExecution,
		Checkpoint: []byte("checkpoint"), Expires: time.Now().Add(time.Hour)}
	if err := s.SavePending(ctx, p, nil, nil); err != nil {
		t.Fatal(err)
	}
	setting := storage.ToolSetting{Platform: "slack", Workspace: "T1", Kind: storage.SettingGroup, Name: "shell", Enabled: true}
	if err := s.SetToolSetting(ctx, setting); err != nil {
		t.Fatal(err)
	}
	before, err := s.LoadSession(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	s2 := open(t, path, storage.Options{})
	after, err := s2.LoadSession(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(after, before) {
		t.Errorf("after reopening:\n got %+v\nwant %+v", after, before)
	}
	// Exact variables: every field, in name order, so the variable system
	// restores the same eviction order.
	if len(after.Vars) != len(vs) {
		t.Fatalf("%d vars, want %d", len(after.Vars), len(vs))
	}
	for i, v := range after.Vars {
		w := vs[i]
		if v.Name != w.Name || v.Value != w.Value || v.Keep != w.Keep || v.RefCount != w.RefCount ||
			!v.Created.Equal(w.Created) || !v.Updated.Equal(w.Updated) || !v.LastVisited.Equal(w.LastVisited) ||
			!reflect.DeepEqual(v.Tags, w.Tags) || v.Type != w.Type || v.Desc != w.Desc {
			t.Errorf("var %d:\n got %+v\nwant %+v", i, v, w)
		}
	}
	if seen, err := s2.EventSeen(ctx, "slack", "Ev1"); err != nil || !seen {
		t.Errorf("EventSeen after reopening = %v, %v", seen, err)
	}
	live, expired, err := s2.RecoverPending(ctx, time.Now())
	if err != nil || len(live) != 1 || len(expired) != 0 || string(live[0].Checkpoint) != "checkpoint" {
		t.Errorf("RecoverPending after reopening = %+v, %+v, %v", live, expired, err)
	}
	if got, err := s2.ToolSettings(ctx, "slack", "T1", "C1"); err != nil || len(got) != 1 || !got[0].Enabled {
		t.Errorf("ToolSettings after reopening = %+v, %v", got, err)
	}
}

// TestMigrate shows migrations are idempotent: a second Open and a second
// Migrate apply nothing and leave user_version as it was.
func TestMigrate(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "threadbot.db")

	s := open(t, path, storage.Options{NoMigrate: true})
	cur, latest, err := s.Version(ctx)
	if err != nil || cur != 0 || latest < 1 {
		t.Fatalf("Version of a new file = %d, %d, %v; want 0, >= 1", cur, latest, err)
	}
	n, err := s.Migrate(ctx)
	if err != nil || n != latest {
		t.Fatalf("first Migrate = %d, %v; want %d", n, err, latest)
	}
	n, err = s.Migrate(ctx)
	if err != nil || n != 0 {
		t.Fatalf("second Migrate = %d, %v; want 0", n, err)
	}
	s.Close()

	s = open(t, path, storage.Options{})
	n, err = s.Migrate(ctx)
	if err != nil || n != 0 {
		t.Errorf("Migrate after reopening = %d, %v; want 0", n, err)
	}
	if c, _, _ := s.Version(ctx); c != latest {
		t.Errorf("Version after reopening = %d, want %d", c, latest)
	}
	s.Close()
	if v := rawUserVersion(t, path); v != latest {
		t.Errorf("user_version = %d, want %d", v, latest)
	}

	// A file from a newer binary is refused, and left alone.
	raw := rawDB(t, path)
	if _, err := raw.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if _, err := storage.Open(ctx, path, storage.Options{}); !errors.Is(err, storage.ErrSchemaTooNew) {
		t.Errorf("Open of a newer schema: err = %v, want ErrSchemaTooNew", err)
	}
	if v := rawUserVersion(t, path); v != 99 {
		t.Errorf("user_version after refusing = %d, want 99", v)
	}
}

// TestConcurrentMigrate opens one new file from several goroutines at once
// (as two processes starting together would); exactly one applies the
// schema.
func TestConcurrentMigrate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "threadbot.db")
	const n = 4
	stores := make([]*storage.SQLite, n)
	applied := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			s, err := storage.Open(t.Context(), path, storage.Options{NoMigrate: true})
			if err != nil {
				t.Error(err)
				return
			}
			stores[i] = s
			applied[i], err = s.Migrate(t.Context())
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	total := 0
	for i, s := range stores {
		if s != nil {
			s.Close()
		}
		total += applied[i]
	}
	_, latest, _ := open(t, path, storage.Options{}).Version(t.Context())
	if total != latest {
		t.Errorf("migrations applied in all = %d, want %d", total, latest)
	}
}

func TestPragmas(t *testing.T) {
	path := filepath.Join(t.TempDir(), "threadbot.db")
	open(t, path, storage.Options{})
	var mode string
	if err := rawDB(t, path).QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := storage.Open(t.Context(), "", storage.Options{}); !errors.Is(err, storage.ErrInvalid) {
		t.Errorf("Open(\"\"): err = %v, want ErrInvalid", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := storage.Open(t.Context(), filepath.Join(file, "x.db"), storage.Options{}); err == nil {
		s.Close()
		t.Error("Open under a regular file: no error")
	}
	notDB := filepath.Join(t.TempDir(), "junk.db")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("junk", 1024)), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := storage.Open(t.Context(), notDB, storage.Options{}); err == nil {
		s.Close()
		t.Error("Open of a file that is not a database: no error")
	}
}

func TestFileURI(t *testing.T) {
	path := filepath.Join(t.TempDir(), "threadbot.db")
	s := open(t, "file:"+path+"?cache=private", storage.Options{})
	if _, err := s.EnsureSession(t.Context(), storagetest.Session("s1")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database file: %v", err)
	}
}

// TestClock shows the store's clock (Options.Now) decides the times callers
// leave zero, and Prune removes only old event ids.
func TestClock(t *testing.T) {
	ctx := t.Context()
	var (
		mu  sync.Mutex
		now = time.Date(2026, 5, 1, 12, 0, 0, 1, time.UTC)
	)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	s := open(t, filepath.Join(t.TempDir(), "threadbot.db"), storage.Options{Now: clock})

	sess, err := s.EnsureSession(ctx, storage.Session{ID: "s1", Key: storage.SessionKey{Platform: "test"}})
	if err != nil || !sess.Created.Equal(clock()) {
		t.Fatalf("EnsureSession = %+v, %v; want Created %v", sess, err, clock())
	}
	advance(time.Minute)
	if err := s.SaveTurn(ctx, storage.Turn{SessionID: "s1", Messages: []storage.Message{{Role: "user", Content: "x"}},
		Audit: []storage.AuditEntry{{Kind: storage.AuditToolCall}}}); err != nil {
		t.Fatal(err)
	}
	snap, _ := s.LoadSession(ctx, "s1")
	audit, _ := s.Audit(ctx, "s1", 0)
	if !snap.Updated.Equal(clock()) || !snap.Messages[0].Created.Equal(clock()) || !audit[0].At.Equal(clock()) {
		t.Errorf("times from the clock: updated %v, message %v, audit %v; want %v",
			snap.Updated, snap.Messages[0].Created, audit[0].At, clock())
	}

	for _, id := range []string{"old", "middle", "new"} {
		if _, err := s.MarkEvent(ctx, "slack", id); err != nil {
			t.Fatal(err)
		}
		advance(time.Hour)
	}
	// The clock is 3h past "old": events older than 90 minutes are "old"
	// (3h) and "middle" (2h).
	_, n, err := s.Prune(ctx, clock(), 0, 90*time.Minute)
	if err != nil || n != 2 {
		t.Errorf("Prune = %d, %v; want 2 events", n, err)
	}
	for id, want := range map[string]bool{"old": false, "middle": false, "new": true} {
		if seen, _ := s.EventSeen(ctx, "slack", id); seen != want {
			t.Errorf("EventSeen(%s) = %v, want %v", id, seen, want)
		}
	}
}

// TestAbortedTurn fails a turn after every statement of it ran, just before
// Commit: nothing of it is visible, and the store goes on working.
func TestAbortedTurn(t *testing.T) {
	ctx := t.Context()
	s := open(t, filepath.Join(t.TempDir(), "threadbot.db"), storage.Options{})
	before := seed(t, s)

	boom := errors.New("boom")
	storage.SetBeforeCommit(s, func(op string) error {
		if op == "save turn" {
			return boom
		}
		return nil
	})
	if err := s.SaveTurn(ctx, bigTurn("Ev-aborted")); !errors.Is(err, boom) {
		t.Fatalf("SaveTurn: err = %v, want boom", err)
	}
	storage.SetBeforeCommit(s, nil)
	checkSeeded(t, s, before, "Ev-aborted")
	if err := s.SaveTurn(ctx, bigTurn("Ev-aborted")); err != nil {
		t.Errorf("SaveTurn after the abort: %v", err)
	}
}

// TestCrash kills a process in the middle of a large turn, after every
// statement ran and before Commit, with pages already spilled to the WAL:
// the next process finds the previous state intact.
func TestCrash(t *testing.T) {
	if path := os.Getenv("THREADBOT_STORAGE_CRASH_DB"); path != "" {
		crashChild(path)
		return
	}
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "threadbot.db")
	s := open(t, path, storage.Options{})
	before := seed(t, s)
	s.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestCrash$", "-test.count=1")
	cmd.Env = append(os.Environ(), "THREADBOT_STORAGE_CRASH_DB="+path)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("child: %v, want exit status 3; output:\n%s", err, out)
	}
	if fi, err := os.Stat(path + "-wal"); err == nil {
		t.Logf("WAL after the crash: %d bytes (uncommitted pages of the big turn)", fi.Size())
	}

	s = open(t, path, storage.Options{})
	checkSeeded(t, s, before, "Ev-crash")
	if err := s.SaveTurn(ctx, bigTurn("Ev-crash")); err != nil {
		t.Errorf("SaveTurn after the crash: %v", err)
	}
}

// crashChild runs in the child process of TestCrash.
func crashChild(path string) {
	s, err := storage.Open(context.Background(), path, storage.Options{})
	if err != nil {
		os.Exit(2)
	}
	storage.SetBeforeCommit(s, func(op string) error {
		if op == "save turn" {
			os.Exit(3) // no Rollback, no Close: the process is gone
		}
		return nil
	})
	s.SaveTurn(context.Background(), bigTurn("Ev-crash"))
	os.Exit(4)
}

// seed writes one ordinary turn to session s1 and returns its snapshot.
func seed(t *testing.T, s *storage.SQLite) storage.Snapshot {
	t.Helper()
	ctx := t.Context()
	if _, err := s.EnsureSession(ctx, storagetest.Session("s1")); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveTurn(ctx, storage.Turn{
		SessionID:     "s1",
		Messages:      []storage.Message{{Role: "user", Content: "first"}, {Role: "assistant", Content: "ok"}},
		VarUpserts:    storagetest.Vars(10, "first", time.Now()),
		EventPlatform: "slack", EventID: "Ev-first",
	}); err != nil {
		t.Fatal(err)
	}
	snap, err := s.LoadSession(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// bigTurn is a turn of session s1 large enough (about 4 MB of variables)
// to spill pages to the WAL before it commits.
func bigTurn(eventID string) storage.Turn {
	vs := storagetest.Vars(500, "big", time.Now())
	for i := range vs {
		vs[i].Value = strings.Repeat(vs[i].Name, 8<<10/len(vs[i].Name))
	}
	first := storagetest.Vars(10, "first", time.Now())[0]
	first.Value = "overwritten"
	return storage.Turn{
		SessionID:      "s1",
		Messages:       []storage.Message{{Role: "user", Content: "second"}, {Role: "assistant", Content: strings.Repeat("x", 1<<20)}},
		VarUpserts:     append(vs, first),
		VarRemoved:     []string{storagetest.Vars(10, "first", time.Now())[1].Name},
		Audit:          []storage.AuditEntry{{Kind: storage.AuditToolCall, Tool: "bash"}},
		Decisions:      []storage.Decision{{Key: "bash {}", Tool: "bash", Approved: true}},
		EventPlatform:  "slack",
		EventID:        eventID,
		ResolvePending: []string{"none"},
	}
}

func checkSeeded(t *testing.T, s *storage.SQLite, want storage.Snapshot, eventID string) {
	t.Helper()
	ctx := t.Context()
	got, err := s.LoadSession(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("session after an unfinished turn:\n got %d messages, %d vars, %d decisions, updated %v\nwant %d, %d, %d, %v",
			len(got.Messages), len(got.Vars), len(got.Decisions), got.Updated,
			len(want.Messages), len(want.Vars), len(want.Decisions), want.Updated)
	}
	if seen, err := s.EventSeen(ctx, "slack", eventID); err != nil || seen {
		t.Errorf("EventSeen(%s) = %v, %v; want false", eventID, seen, err)
	}
	if a, err := s.Audit(ctx, "", 0); err != nil || len(a) != 0 {
		t.Errorf("audit rows = %d, %v; want 0", len(a), err)
	}
}

// rawDB opens the file with the driver directly, as another process would.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func rawUserVersion(t *testing.T, path string) int {
	t.Helper()
	var v int
	if err := rawDB(t, path).QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

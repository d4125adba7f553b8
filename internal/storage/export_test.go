package storage

// SetBeforeCommit installs a hook that runs inside every write transaction
// of s just before Commit; an error aborts the transaction.
func SetBeforeCommit(s *SQLite, f func(op string) error) { s.beforeCommit = f }

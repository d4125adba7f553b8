// Package storage owns everything threadbot keeps across restarts: sessions,
// their compressed message history, their variables, ask-once decisions,
// tool settings per scope, pending approvals with the loop checkpoint that
// resumes them, processed inbound event ids, the inbox of accepted messages
// whose turn is not stored yet, the journal of raw platform events between
// their acknowledgement and the runtime taking them, and the audit trail.
//
// [Store] is the contract the session runtime uses; every backend implements
// it and passes the conformance suite in package storagetest. [SQLite] is the
// default backend (modernc.org/sqlite, pure Go, WAL), opened with [Open],
// which applies the embedded migrations in migrations/. No driver type
// appears in the interface, so a PostgreSQL backend can follow without
// changing callers.
//
// Everything one chat turn writes (messages, variable changes, audit rows,
// decisions, the processed event id, resolved approvals, the message's
// inbox row) goes through [Store.SaveTurn] in one transaction: a crash
// leaves either the whole turn or none of it, and a redelivered event is
// refused with [ErrDuplicateEvent]. The inbox ([Store.AddInbound]) holds a
// message from the moment the runtime accepts it, with when its turn
// started, how often, and whether it called a tool yet, so the runtime can
// tell after a crash what to run again and what to report.
//
// Times are stored as INTEGER Unix nanoseconds in UTC and come back in UTC
// with no monotonic reading, so they are equal (time.Time.Equal) to what was
// written, to the nanosecond; the zero time is stored as 0 and comes back as
// the zero time (so times must lie between the years 1678 and 2262). Empty
// maps, slices and byte slices come back nil.
//
// Durability: WAL with synchronous(NORMAL) means a committed turn survives a
// crash of the process; a power failure may lose the last few commits but
// never corrupts the file or splits a turn.
//
// This package imports only core types (internal/core/llm, the Variable type
// of internal/core/vars) and the database driver; never adapters, config or
// the runtime.
package storage

package storage

import "errors"

// ErrNotFound is returned when a session, pending approval or other keyed
// row does not exist.
var ErrNotFound = errors.New("not found")

// ErrDuplicateEvent is returned by SaveTurn when its inbound event was
// already processed; nothing of that turn was written.
var ErrDuplicateEvent = errors.New("event already processed")

// ErrAlreadyDecided is returned by DecidePending when the approval is no
// longer pending (a second click, or a decision racing the timeout); the
// stored approval is returned with it.
var ErrAlreadyDecided = errors.New("approval already decided")

// ErrInvalid is returned when an argument cannot be stored as given (an
// empty id, an unknown status, a message of another session).
var ErrInvalid = errors.New("invalid argument")

// ErrSchemaTooNew is returned by Open and Migrate when the database was
// migrated by a newer threadbot than this one.
var ErrSchemaTooNew = errors.New("database schema is newer than this binary")

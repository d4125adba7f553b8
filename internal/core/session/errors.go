package session

import "errors"

// Sentinel errors.
var (
	// ErrNotAllowed is returned when a user may not do what they asked
	// (decide someone else's approval, stop someone else's turn, change
	// tool settings without being an admin).
	ErrNotAllowed = errors.New("not allowed")
	// ErrAlreadyDecided is returned by Decide for an approval that was
	// decided already (a double click). Stores return it too.
	ErrAlreadyDecided = errors.New("approval already decided")
	// ErrNotFound is returned for an unknown approval, group or tool.
	// Stores return it too.
	ErrNotFound = errors.New("not found")
	// ErrDuplicateEvent is returned by stores for an event processed
	// before.
	ErrDuplicateEvent = errors.New("event already processed")
	// ErrStopped is the cause of a turn's context when someone pressed Stop.
	ErrStopped = errors.New("stopped by a user")
	// ErrShutdown is the cause of a turn's context at shutdown.
	ErrShutdown = errors.New("the bot is shutting down")
	// ErrClosed is returned by Handle after Shutdown.
	ErrClosed = errors.New("session manager closed")
)

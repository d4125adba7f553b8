package chat

import (
	"context"
	"errors"
	"time"
)

// Source reads a platform's messages for a session. Adapters implement it.
// Both methods return messages people can see in the thread or channel,
// never the bot's own placeholder for the running turn; an unsupported
// operation returns an error that wraps ErrUnsupported.
type Source interface {
	// ThreadMessages returns up to limit messages of the session's thread
	// that came before the current turn, oldest first.
	ThreadMessages(ctx context.Context, sessionID string, limit int) ([]Message, error)
	// SearchChannel returns up to limit messages of the session's channel
	// (or workspace, where the platform searches only that way) that match
	// query, best match first.
	SearchChannel(ctx context.Context, sessionID, query string, limit int) ([]Message, error)
}

// Message is one chat message.
type Message struct {
	Author string
	Text   string
	Time   time.Time
	// Link is the message's permalink, if the platform has one.
	Link string
}

// ErrUnsupported is matched (errors.Is) by the error of a Source that cannot
// do what was asked on a platform.
var ErrUnsupported = errors.New("not supported on this platform")

// UnsupportedError says which operation a platform does not support.
type UnsupportedError struct {
	// Op is what was asked, such as "reading the thread".
	Op       string
	Platform string
}

func (e *UnsupportedError) Error() string {
	if e.Platform == "" {
		return e.Op + " is not supported here"
	}
	return e.Op + " is not supported on " + e.Platform
}

// Is reports whether target is ErrUnsupported.
func (e *UnsupportedError) Is(target error) bool { return target == ErrUnsupported }

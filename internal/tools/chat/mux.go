package chat

import (
	"context"
	"strings"
	"sync"
)

// Operations named by UnsupportedError.
const (
	opThread = "reading the thread"
	opSearch = "searching the channel"
)

// Mux is a Source that dispatches by platform: the part of a session id
// before its first "-" (session ids look like
// platform-workspace-channel-thread). The zero value is ready to use and
// safe for concurrent use.
type Mux struct {
	mu      sync.RWMutex
	sources map[string]Source
}

// Register makes s the source of platform, replacing any earlier one.
func (m *Mux) Register(platform string, s Source) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sources == nil {
		m.sources = map[string]Source{}
	}
	m.sources[platform] = s
}

// ThreadMessages calls the source of the session's platform. For an
// unregistered platform it returns an *UnsupportedError ("reading the
// thread is not supported on PLATFORM").
func (m *Mux) ThreadMessages(ctx context.Context, sessionID string, limit int) ([]Message, error) {
	s, err := m.source(sessionID, opThread)
	if err != nil {
		return nil, err
	}
	return s.ThreadMessages(ctx, sessionID, limit)
}

// SearchChannel calls the source of the session's platform. For an
// unregistered platform it returns an *UnsupportedError ("searching the
// channel is not supported on PLATFORM").
func (m *Mux) SearchChannel(ctx context.Context, sessionID, query string, limit int) ([]Message, error) {
	s, err := m.source(sessionID, opSearch)
	if err != nil {
		return nil, err
	}
	return s.SearchChannel(ctx, sessionID, query, limit)
}

func (m *Mux) source(sessionID, op string) (Source, error) {
	platform, _, _ := strings.Cut(sessionID, "-")
	m.mu.RLock()
	s, ok := m.sources[platform]
	m.mu.RUnlock()
	if !ok || s == nil {
		return nil, &UnsupportedError{Op: op, Platform: platform}
	}
	return s, nil
}

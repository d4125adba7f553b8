package chain

import (
	"context"
	"errors"
	"sync"

	"github.com/threadbot/threadbot/internal/core/llm"
)

// ScriptModel is a deterministic Model for tests: it answers from a queue of
// replies (or a function) and records every request.
type ScriptModel struct {
	mu      sync.Mutex
	replies []ScriptReply
	reqs    []llm.Request
	// Func, when set and the queue is empty, answers dynamically.
	Func func(req llm.Request) ScriptReply
}

// ScriptReply is one scripted answer.
type ScriptReply struct {
	Response llm.Response
	Err      error
}

// ErrScriptEmpty is returned when the script has no reply left.
var ErrScriptEmpty = errors.New("script model: no reply left")

// Push queues replies.
func (m *ScriptModel) Push(rs ...llm.Response) *ScriptModel {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range rs {
		m.replies = append(m.replies, ScriptReply{Response: r})
	}
	return m
}

// PushErr queues an error.
func (m *ScriptModel) PushErr(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.replies = append(m.replies, ScriptReply{Err: err})
}

// Requests returns the requests received so far.
func (m *ScriptModel) Requests() []llm.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]llm.Request(nil), m.reqs...)
}

// Complete implements Model. Content is streamed to onDelta in two pieces.
func (m *ScriptModel) Complete(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, context.Cause(ctx)
	}
	m.mu.Lock()
	req.Messages = append([]llm.Message(nil), req.Messages...)
	m.reqs = append(m.reqs, req)
	var r ScriptReply
	switch {
	case len(m.replies) > 0:
		r = m.replies[0]
		m.replies = m.replies[1:]
	case m.Func != nil:
		f := m.Func
		m.mu.Unlock()
		r = f(req)
		m.mu.Lock()
	default:
		r.Err = ErrScriptEmpty
	}
	m.mu.Unlock()
	if r.Err != nil {
		return llm.Response{}, r.Err
	}
	if onDelta != nil && r.Response.Content != "" {
		half := len(r.Response.Content) / 2
		for half > 0 && half < len(r.Response.Content) && r.Response.Content[half]&0xC0 == 0x80 {
			half++
		}
		onDelta(llm.Delta{Content: r.Response.Content[:half]})
		onDelta(llm.Delta{Content: r.Response.Content[half:]})
	}
	return r.Response, nil
}

package executor

import (
	"context"
	"encoding/json"
	"sync"
)

// ApprovalKind says what a person is asked to approve.
type ApprovalKind string

// Approval kinds.
const (
	// KindExecution asks before a call runs.
	KindExecution ApprovalKind = "execution"
	// KindResult asks before the model sees a result.
	KindResult ApprovalKind = "result"
	// KindPermission asks for something a running tool needs, such as a
	// path outside the sandbox.
	KindPermission ApprovalKind = "permission"
)

// ApprovalRequest is what a person sees when asked.
type ApprovalRequest struct {
	Kind      ApprovalKind
	SessionID string
	MessageID string
	CallID    string
	Tool      string
	// Args are the arguments after $VAR_REF expansion.
	Args map[string]any
	// ArgsSummary is the compressed arguments for display.
	ArgsSummary string
	// Requester is the user who started the turn; only they or an admin
	// may decide.
	Requester string
	// Result is the result text (KindResult) or the permission detail
	// (KindPermission).
	Result string
	// Failed is set for a KindResult request about a failed call.
	Failed bool
	// Title is a one-line summary, e.g. "read: /etc/hosts is outside the sandbox".
	Title string
}

// Decision is a person's answer.
type Decision struct {
	Approved bool   `json:"approved"`
	Reason   string `json:"reason,omitempty"`
	// By is the user id of whoever decided ("" for automatic decisions).
	By string `json:"by,omitempty"`
	// Always allows this tool for the rest of the session without asking.
	Always bool `json:"always,omitempty"`
}

// Approver asks people. Adapters implement it (Slack buttons, a console
// prompt); it blocks until a decision, the time-out (a rejection with that
// reason) or ctx's end. An error counts as a rejection whose reason is the
// error text.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Decision, error)
}

// ApproverFunc adapts a function to Approver.
type ApproverFunc func(ctx context.Context, req ApprovalRequest) (Decision, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, req ApprovalRequest) (Decision, error) {
	return f(ctx, req)
}

// memory holds a session's remembered decisions: ask-once decisions keyed by
// tool and expanded arguments, and tools always allowed in this session.
type memory struct {
	mu     sync.Mutex
	byKey  map[string]Decision
	always map[string]Decision
	fresh  []Remembered
}

// Remembered is a decision the executor remembers, as storage saves it.
// Key is DecisionKey(tool, args) for ask-once decisions and AlwaysKey(tool)
// for "always in this session".
type Remembered struct {
	Key      string
	Tool     string
	Decision Decision
}

// DecisionKey is the ask-once key of a call: the tool name and the canonical
// JSON of the expanded arguments (encoding/json sorts object keys).
func DecisionKey(tool string, args map[string]any) string {
	b, err := json.Marshal(args)
	if err != nil {
		b = []byte("?")
	}
	return tool + "\x00" + string(b)
}

// AlwaysKey is the key under which "always allow tool in this session" is
// remembered.
func AlwaysKey(tool string) string { return "tool:" + tool }

func (m *memory) lookup(tool, key string) (Decision, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if d, ok := m.always[tool]; ok {
		return d, true
	}
	d, ok := m.byKey[key]
	return d, ok
}

func (m *memory) remember(tool, key string, d Decision) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byKey == nil {
		m.byKey = map[string]Decision{}
		m.always = map[string]Decision{}
	}
	if d.Always && d.Approved {
		m.always[tool] = d
		m.fresh = append(m.fresh, Remembered{Key: AlwaysKey(tool), Tool: tool, Decision: d})
		return
	}
	m.byKey[key] = d
	m.fresh = append(m.fresh, Remembered{Key: key, Tool: tool, Decision: d})
}

func (m *memory) restore(rs []Remembered) {
	for _, r := range rs {
		d := r.Decision
		if r.Key == AlwaysKey(r.Tool) {
			d.Always, d.Approved = true, true
		}
		m.remember(r.Tool, r.Key, d)
	}
	m.mu.Lock()
	m.fresh = nil
	m.mu.Unlock()
}

func (m *memory) take() []Remembered {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.fresh
	m.fresh = nil
	return out
}

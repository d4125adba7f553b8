package chain

import (
	"context"
	"time"

	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/core/llm"
)

// Model is what the loop needs from a language model.
type Model interface {
	Complete(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error)
}

// DefaultMaxRounds is the default limit of tool rounds.
const DefaultMaxRounds = 10

// Status is how a chain ended.
type Status string

// Chain statuses.
const (
	StatusCompleted Status = "completed"
	StatusAborted   Status = "aborted"
	StatusError     Status = "error"
	StatusTimeout   Status = "timeout"
)

// Callbacks let the caller watch the chain. Every field is optional.
type Callbacks struct {
	// OnToolCallStart fires before a call runs (args nil when they did not
	// parse).
	OnToolCallStart func(call llm.ToolCall, args map[string]any)
	// OnToolCallComplete fires after a call finished.
	OnToolCallComplete func(rec CallRecord)
	// OnProgress relays a running tool's progress.
	OnProgress func(callID, title string, data map[string]any)
	// OnText streams answer text as the model writes it.
	OnText func(delta string)
	// OnBeforeSend may replace the messages of a request; nil keeps them.
	OnBeforeSend func(msgs []llm.Message) []llm.Message
	// OnCheckpoint fires before each call runs with the state to resume
	// from if the process stops while the call waits for a person.
	OnCheckpoint func(cp *Checkpoint)
}

// Options configures a chain. The zero value is usable.
type Options struct {
	// Request carries the model parameters (Model, Temperature,
	// MaxTokens); its Messages, Tools and ToolChoice are set by the chain.
	Request llm.Request
	// Context is the conversation before the chain: system prompt, history
	// and the new user message. Used by Turn and Run, not by Resume.
	Context []llm.Message
	// MaxRounds limits tool rounds; 0 means DefaultMaxRounds.
	MaxRounds int
	// MessageID and Requester are passed to every call.
	MessageID string
	Requester string
	// SkipResultApproval disables result approval (the seed's
	// checkToolResults=false).
	SkipResultApproval bool
	Callbacks          Callbacks
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

func (o Options) maxRounds() int {
	if o.MaxRounds <= 0 {
		return DefaultMaxRounds
	}
	return o.MaxRounds
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// CallRecord is the history entry of one call.
type CallRecord struct {
	CallID  string          `json:"callId"`
	Tool    string          `json:"tool"`
	RawArgs string          `json:"rawArgs"`
	Args    map[string]any  `json:"args,omitempty"`
	Result  executor.Result `json:"result"`
	Start   time.Time       `json:"start"`
	End     time.Time       `json:"end"`
	Round   int             `json:"round"`
	// Usage is the usage of the model response that asked for the call.
	Usage llm.Usage `json:"usage"`
}

// Messages are the messages of a chain.
type Messages struct {
	Context   []llm.Message `json:"context"`
	ToolChain []llm.Message `json:"toolChain"`
	Complete  []llm.Message `json:"complete"`
}

// Stats summarises a chain.
type Stats struct {
	Rounds   int           `json:"rounds"`
	Calls    int           `json:"calls"`
	Started  time.Time     `json:"started"`
	Ended    time.Time     `json:"ended"`
	Duration time.Duration `json:"duration"`
}

// Result is the outcome of a chain (seed 004's ToolChainResult).
type Result struct {
	// Final is the model's final answer text.
	Final string `json:"final"`
	// ResponseContent is the natural flow: assistant text interleaved with
	// one [Tool Execution Log] block per call, ending with the answer.
	ResponseContent string `json:"responseContent"`
	// ToolChainContent is the <SYSTEM-CONTEXT> hint ("" without calls).
	ToolChainContent string       `json:"toolChainContent"`
	Usage            llm.Usage    `json:"usage"`
	RoundUsage       []llm.Usage  `json:"roundUsage,omitempty"`
	Messages         Messages     `json:"messages"`
	History          []CallRecord `json:"history"`
	Status           Status       `json:"status"`
	// Error is the failure for StatusError and StatusTimeout.
	Error string `json:"error,omitempty"`
	Stats Stats  `json:"stats"`
}

// Content is what is stored as the turn's assistant message: the hint
// followed by the natural flow.
func (r *Result) Content() string { return r.ToolChainContent + r.ResponseContent }

// HintSize is the length in bytes of the hint at the start of Content.
func (r *Result) HintSize() int { return len(r.ToolChainContent) }

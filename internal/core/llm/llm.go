// Package llm holds the provider-neutral model types that the core speaks:
// messages, tool definitions, tool calls, streamed deltas and token usage.
//
// It imports only the standard library. Model clients (internal/adapters/openai)
// translate to and from these types; the core never sees a provider SDK type.
package llm

import "encoding/json"

// Role is the author of a message.
type Role string

// The four roles of the chat-completions protocol.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of a conversation.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content,omitempty"`
	// ToolCalls is set on assistant messages that ask for tools.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID is set on tool messages: the call this message answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Name is the tool name on tool messages (optional for providers).
	Name string `json:"name,omitempty"`
}

// ToolCall is one function call requested by the model.
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the raw JSON text the model produced. It may be invalid;
	// the loop turns a parse failure into an ERROR result for the model.
	Arguments string `json:"arguments"`
}

// ToolDefinition describes a function the model may call.
type ToolDefinition struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is a JSON Schema for the arguments object.
	Parameters json.RawMessage `json:"parameters"`
}

// Usage counts tokens of one or more requests.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Add returns the sum of u and o.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + o.PromptTokens,
		CompletionTokens: u.CompletionTokens + o.CompletionTokens,
		TotalTokens:      u.TotalTokens + o.TotalTokens,
	}
}

// ToolChoice values for Request.ToolChoice.
const (
	ToolChoiceAuto = "auto"
	ToolChoiceNone = "none"
)

// Request is one completion request.
type Request struct {
	// Model names the model; empty means the client's default.
	Model    string           `json:"model,omitempty"`
	Messages []Message        `json:"messages"`
	Tools    []ToolDefinition `json:"tools,omitempty"`
	// ToolChoice is "", ToolChoiceAuto or ToolChoiceNone.
	ToolChoice string `json:"tool_choice,omitempty"`
	// Temperature is nil for the provider default.
	Temperature *float32 `json:"temperature,omitempty"`
	// MaxTokens limits the completion; 0 means the provider default.
	MaxTokens int `json:"max_tokens,omitempty"`
}

// Response is a complete answer of the model.
type Response struct {
	Content      string     `json:"content,omitempty"`
	ToolCalls    []ToolCall `json:"tool_calls,omitempty"`
	FinishReason string     `json:"finish_reason,omitempty"`
	Usage        Usage      `json:"usage"`
	Model        string     `json:"model,omitempty"`
}

// Message returns the response as an assistant message.
func (r Response) Message() Message {
	return Message{Role: RoleAssistant, Content: r.Content, ToolCalls: r.ToolCalls}
}

// Delta is an increment of a streamed response.
type Delta struct {
	// Content is new answer text.
	Content string
	// ToolCallIndex and ToolCallName announce that the model started
	// writing a tool call (Name set once, when first known).
	ToolCallIndex int
	ToolCallName  string
}

package fakeopenai

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Request is one recorded chat-completions request, decoded from its JSON body.
type Request struct {
	// Seq numbers the requests the server received, starting at 1.
	Seq      int       `json:"-"`
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	Tools    []Tool    `json:"tools,omitempty"`
	// ToolChoice is the tool_choice value: the string itself ("auto",
	// "none", "required"), the compact JSON of an object choice, or "" when
	// absent.
	ToolChoice string `json:"-"`
	Stream     bool   `json:"stream"`
	// IncludeUsage reports stream_options.include_usage.
	IncludeUsage bool `json:"-"`
	// Temperature is nil when the request did not name one, so an explicit 0
	// can be told from the provider default.
	Temperature         *float64 `json:"temperature,omitempty"`
	MaxTokens           int      `json:"max_tokens,omitempty"`
	MaxCompletionTokens int      `json:"max_completion_tokens,omitempty"`
	// Header holds the HTTP request headers (Authorization included).
	Header http.Header `json:"-"`
	// Raw is the request body exactly as received.
	Raw json.RawMessage `json:"-"`
}

// LastMessage returns the last message of the request, or the zero Message
// when there is none.
func (r Request) LastMessage() Message {
	if len(r.Messages) == 0 {
		return Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// Message is one message of a recorded request.
type Message struct {
	Role string `json:"role"`
	// Content is the text of the message; array content is recorded as its
	// text parts joined with newlines.
	Content    string     `json:"content"`
	Name       string     `json:"name,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// UnmarshalJSON decodes a wire message, accepting content as a string, null,
// or an array of parts.
func (m *Message) UnmarshalJSON(b []byte) error {
	var w struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		Name       string          `json:"name"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = Message{Role: w.Role, Name: w.Name, ToolCallID: w.ToolCallID}
	for _, c := range w.ToolCalls {
		m.ToolCalls = append(m.ToolCalls, ToolCall{ID: c.ID, Type: c.Type, Name: c.Function.Name, Arguments: c.Function.Arguments})
	}
	if len(w.Content) == 0 || string(w.Content) == "null" {
		return nil
	}
	if w.Content[0] == '"' {
		return json.Unmarshal(w.Content, &m.Content)
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(w.Content, &parts); err != nil {
		return err
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	m.Content = strings.Join(texts, "\n")
	return nil
}

// ToolCall is a function call: in a recorded assistant message, or in a
// scripted Response. An empty ID in a Response is filled in as "call_<n>".
type ToolCall struct {
	ID string `json:"id"`
	// Type is "function" in recorded messages; it is ignored in a Response.
	Type      string `json:"type,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool is a tool definition offered in a recorded request.
type Tool struct {
	Type     string   `json:"type"`
	Function Function `json:"function"`
}

// Function is the function part of a Tool. Parameters is the JSON Schema
// exactly as sent.
type Function struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      bool            `json:"strict,omitempty"`
}

// Usage is the token count the server reports.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Response is one scripted reply. The zero Response is an empty answer with
// finish reason "stop".
type Response struct {
	// Content is the answer text.
	Content string
	// ToolCalls are the calls the model makes, after any Content.
	ToolCalls []ToolCall
	// FinishReason defaults to "tool_calls" when ToolCalls is set and to
	// "stop" otherwise.
	FinishReason string
	// Usage is reported as given; nil means an estimate of about one token
	// per four characters.
	Usage *Usage
	// Model is reported as the answering model; empty means the requested one.
	Model string

	// Status, when not 0 or 200, makes the server answer with this HTTP
	// status and OpenAI's error JSON (or RawBody) instead of a completion.
	Status int
	// RetryAfter, if set, is sent as the Retry-After header of an error.
	RetryAfter string
	// ErrorMessage, ErrorType and ErrorCode fill the error JSON; empty
	// values get defaults that depend on Status.
	ErrorMessage string
	ErrorType    string
	ErrorCode    string

	// ChunkSize is the number of characters (runes) per streamed content or
	// argument fragment; 0 means 4.
	ChunkSize int
	// OmitToolCallIndex streams tool-call deltas without "index"; every
	// fragment then carries the call's id instead, as some
	// OpenAI-compatible servers do.
	OmitToolCallIndex bool
	// InterleaveToolCalls streams the argument fragments of several calls
	// alternately instead of one call after the other.
	InterleaveToolCalls bool

	// Hang holds the request without answering until the client gives up
	// or the server closes.
	Hang bool
	// HangAfterChunks > 0 streams that many chunks, then hangs like Hang.
	HangAfterChunks int
	// DropAfterChunks > 0 streams that many chunks, then breaks the
	// connection without finishing the response.
	DropAfterChunks int
	// RawBody, if set, is sent verbatim instead of a generated body, with
	// Status (200 if 0) and as text/event-stream when the request streams
	// and Status is 0: to test malformed streams or non-JSON error pages.
	RawBody string
}

// Handler computes a reply from a request. It runs on the server's request
// goroutine, possibly concurrently with other calls.
type Handler func(req Request) Response

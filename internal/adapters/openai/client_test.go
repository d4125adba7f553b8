package openai

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/core/llm"
	"github.com/threadbot/threadbot/internal/fakeopenai"
)

// Client is a core Model (internal/core/chain declares the same interface).
var _ interface {
	Complete(context.Context, llm.Request, func(llm.Delta)) (llm.Response, error)
} = (*Client)(nil)

const testKey = "sk-test-never-logged"

// harness is a Client pointed at a fake server, with waits recorded instead
// of slept and the jitter fixed at the top of its range.
type harness struct {
	srv    *fakeopenai.Server
	c      *Client
	sleeps []time.Duration
}

var testNow = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func newHarness(t testing.TB, opts Options) *harness {
	t.Helper()
	h := &harness{srv: fakeopenai.New(t)}
	opts.BaseURL = h.srv.URL()
	opts.APIKey = testKey
	if opts.Model == "" {
		opts.Model = "gpt-test"
	}
	if opts.Sleep == nil {
		opts.Sleep = func(ctx context.Context, d time.Duration) error {
			h.sleeps = append(h.sleeps, d)
			return ctx.Err()
		}
	}
	h.c = New(testLogger(t), opts)
	h.c.jitter = func(n int64) int64 { return n - 1 }
	h.c.now = func() time.Time { return testNow }
	return h
}

// testLogger routes logs to t.Log.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func userRequest(text string) llm.Request {
	return llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: text}}}
}

func TestCompleteStreamsText(t *testing.T) {
	h := newHarness(t, Options{})
	h.srv.Reply(fakeopenai.Response{
		Content:   "Hello, wörld! How are you?",
		ChunkSize: 3,
		Model:     "gpt-test-2026",
		Usage:     &fakeopenai.Usage{PromptTokens: 11, CompletionTokens: 9, TotalTokens: 20},
	})
	var deltas []string
	resp, err := h.c.Complete(context.Background(), userRequest("hi"), func(d llm.Delta) {
		if d.ToolCallName != "" {
			t.Errorf("unexpected tool delta %+v", d)
		}
		deltas = append(deltas, d.Content)
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Hel", "lo,", " wö", "rld", "! H", "ow ", "are", " yo", "u?"}
	if !reflect.DeepEqual(deltas, want) {
		t.Errorf("deltas = %q, want %q", deltas, want)
	}
	wantResp := llm.Response{
		Content:      "Hello, wörld! How are you?",
		FinishReason: "stop",
		Usage:        llm.Usage{PromptTokens: 11, CompletionTokens: 9, TotalTokens: 20},
		Model:        "gpt-test-2026",
	}
	if !reflect.DeepEqual(resp, wantResp) {
		t.Errorf("response = %+v, want %+v", resp, wantResp)
	}
}

func TestCompleteAssemblesToolCalls(t *testing.T) {
	calls := []fakeopenai.ToolCall{
		{ID: "call_a", Name: "search", Arguments: `{"q":"wörld \"quoted\"","n":3}`},
		{ID: "call_b", Name: "read_file", Arguments: `{"path":"notes/todo.md"}`},
		{Name: "ReadVar", Arguments: `{"name":"x"}`}, // the fake names it call_2
	}
	wantCalls := []llm.ToolCall{
		{ID: "call_a", Name: "search", Arguments: `{"q":"wörld \"quoted\"","n":3}`},
		{ID: "call_b", Name: "read_file", Arguments: `{"path":"notes/todo.md"}`},
		{ID: "call_2", Name: "ReadVar", Arguments: `{"name":"x"}`},
	}
	wantAnnounced := []llm.Delta{
		{ToolCallIndex: 0, ToolCallName: "search"},
		{ToolCallIndex: 1, ToolCallName: "read_file"},
		{ToolCallIndex: 2, ToolCallName: "ReadVar"},
	}
	tests := []struct {
		name       string
		omitIndex  bool
		interleave bool
	}{
		{"with index", false, false},
		{"with index, interleaved", false, true},
		{"without index", true, false},
		{"without index, interleaved", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Options{})
			h.srv.Reply(fakeopenai.Response{
				Content:             "Let me check.",
				ToolCalls:           calls,
				ChunkSize:           3,
				OmitToolCallIndex:   tt.omitIndex,
				InterleaveToolCalls: tt.interleave,
			})
			var text strings.Builder
			var announced []llm.Delta
			resp, err := h.c.Complete(context.Background(), userRequest("go"), func(d llm.Delta) {
				if d.ToolCallName != "" {
					announced = append(announced, d)
				}
				text.WriteString(d.Content)
			})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(resp.ToolCalls, wantCalls) {
				t.Errorf("tool calls = %+v, want %+v", resp.ToolCalls, wantCalls)
			}
			if !reflect.DeepEqual(announced, wantAnnounced) {
				t.Errorf("announced = %+v, want %+v", announced, wantAnnounced)
			}
			if resp.Content != "Let me check." || text.String() != resp.Content {
				t.Errorf("content = %q, streamed %q", resp.Content, text.String())
			}
			if resp.FinishReason != "tool_calls" {
				t.Errorf("finish reason = %q", resp.FinishReason)
			}
		})
	}
}

func TestCompleteTranslatesRequest(t *testing.T) {
	temp := float32(0.5)
	req := llm.Request{
		Model: "gpt-override",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "be brief"},
			{Role: llm.RoleUser, Content: "what is 2+2?", Name: "alice"},
			{Role: llm.RoleAssistant, Content: "Computing.", ToolCalls: []llm.ToolCall{
				{ID: "call_1", Name: "calc", Arguments: `{"expr":"2+2"}`},
				{ID: "call_2", Name: "noop"},
			}},
			{Role: llm.RoleTool, ToolCallID: "call_1", Name: "calc", Content: "4"},
			{Role: llm.RoleTool, ToolCallID: "call_2", Name: "noop", Content: "ok"},
		},
		Tools: []llm.ToolDefinition{
			{Name: "calc", Description: "Evaluates an expression.", Parameters: json.RawMessage(`{"type":"object","properties":{"expr":{"type":"string"}},"required":["expr"]}`)},
			{Name: "noop", Description: "Does nothing."},
		},
		ToolChoice:  llm.ToolChoiceAuto,
		Temperature: &temp,
		MaxTokens:   256,
	}
	h := newHarness(t, Options{})
	h.srv.Reply(fakeopenai.Response{Content: "4"})
	if _, err := h.c.Complete(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	got := reqs[0]
	if got.Model != "gpt-override" || !got.Stream || !got.IncludeUsage {
		t.Errorf("model %q stream %v include_usage %v", got.Model, got.Stream, got.IncludeUsage)
	}
	if auth := got.Header.Get("Authorization"); auth != "Bearer "+testKey {
		t.Errorf("Authorization = %q", auth)
	}
	wantMsgs := []fakeopenai.Message{
		{Role: "system", Content: "be brief"},
		{Role: "user", Content: "what is 2+2?", Name: "alice"},
		{Role: "assistant", Content: "Computing.", ToolCalls: []fakeopenai.ToolCall{
			{ID: "call_1", Type: "function", Name: "calc", Arguments: `{"expr":"2+2"}`},
			{ID: "call_2", Type: "function", Name: "noop", Arguments: `{}`},
		}},
		{Role: "tool", ToolCallID: "call_1", Content: "4"},
		{Role: "tool", ToolCallID: "call_2", Content: "ok"},
	}
	if !reflect.DeepEqual(got.Messages, wantMsgs) {
		t.Errorf("messages = %+v\nwant %+v", got.Messages, wantMsgs)
	}
	wantTools := []fakeopenai.Tool{
		{Type: "function", Function: fakeopenai.Function{Name: "calc", Description: "Evaluates an expression.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"expr":{"type":"string"}},"required":["expr"]}`)}},
		{Type: "function", Function: fakeopenai.Function{Name: "noop", Description: "Does nothing.",
			Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}},
	}
	if !reflect.DeepEqual(got.Tools, wantTools) {
		t.Errorf("tools = %+v\nwant %+v", got.Tools, wantTools)
	}
	if got.ToolChoice != "auto" || got.Temperature == nil || *got.Temperature != 0.5 ||
		got.MaxCompletionTokens != 256 || got.MaxTokens != 0 {
		t.Errorf("tool_choice %q temperature %v max_completion_tokens %d max_tokens %d",
			got.ToolChoice, got.Temperature, got.MaxCompletionTokens, got.MaxTokens)
	}
}

func TestCompleteRequestOptions(t *testing.T) {
	zero, one := float32(0), float32(1)
	tests := []struct {
		name  string
		opts  Options
		edit  func(*llm.Request)
		check func(t *testing.T, got fakeopenai.Request)
	}{
		{
			name: "model from options, temperature and tool choice absent",
			check: func(t *testing.T, got fakeopenai.Request) {
				if got.Model != "gpt-test" || got.Temperature != nil || got.ToolChoice != "" {
					t.Errorf("model %q temperature %v tool_choice %q", got.Model, got.Temperature, got.ToolChoice)
				}
				if strings.Contains(string(got.Raw), "temperature") || strings.Contains(string(got.Raw), "max_") {
					t.Errorf("raw body names defaults: %s", got.Raw)
				}
			},
		},
		{
			name: "temperature 0 is sent",
			edit: func(r *llm.Request) { r.Temperature = &zero },
			check: func(t *testing.T, got fakeopenai.Request) {
				if got.Temperature == nil || *got.Temperature != 0 || got.Model != "gpt-test" {
					t.Errorf("temperature %v model %q; raw %s", got.Temperature, got.Model, got.Raw)
				}
			},
		},
		{
			name: "temperature 1",
			edit: func(r *llm.Request) { r.Temperature = &one },
			check: func(t *testing.T, got fakeopenai.Request) {
				if got.Temperature == nil || *got.Temperature != 1 {
					t.Errorf("temperature %v", got.Temperature)
				}
			},
		},
		{
			name: "tool choice none",
			edit: func(r *llm.Request) {
				r.ToolChoice = llm.ToolChoiceNone
				r.Tools = []llm.ToolDefinition{{Name: "t", Parameters: json.RawMessage(`{"type":"object"}`)}}
			},
			check: func(t *testing.T, got fakeopenai.Request) {
				if got.ToolChoice != "none" || len(got.Tools) != 1 {
					t.Errorf("tool_choice %q tools %d", got.ToolChoice, len(got.Tools))
				}
			},
		},
		{
			name: "legacy max_tokens",
			opts: Options{LegacyMaxTokens: true},
			edit: func(r *llm.Request) { r.MaxTokens = 64 },
			check: func(t *testing.T, got fakeopenai.Request) {
				if got.MaxTokens != 64 || got.MaxCompletionTokens != 0 {
					t.Errorf("max_tokens %d max_completion_tokens %d", got.MaxTokens, got.MaxCompletionTokens)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.opts)
			h.srv.Reply(fakeopenai.Response{Content: "ok"})
			req := userRequest("hi")
			if tt.edit != nil {
				tt.edit(&req)
			}
			if _, err := h.c.Complete(context.Background(), req, nil); err != nil {
				t.Fatal(err)
			}
			tt.check(t, h.srv.Requests()[0])
		})
	}
}

// TestCompleteLoop drives the client the way the core's tool loop does: a
// dynamic fake model calls a tool until it sees the tool's result.
func TestCompleteLoop(t *testing.T) {
	h := newHarness(t, Options{})
	h.srv.SetHandler(func(req fakeopenai.Request) fakeopenai.Response {
		if last := req.LastMessage(); last.Role == "tool" {
			return fakeopenai.Response{Content: "The file says: " + last.Content}
		}
		return fakeopenai.Response{ToolCalls: []fakeopenai.ToolCall{{Name: "read", Arguments: `{"path":"a.txt"}`}}}
	})
	req := userRequest("read a.txt")
	first, err := h.c.Complete(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Messages = append(req.Messages, first.Message(),
		llm.Message{Role: llm.RoleTool, ToolCallID: first.ToolCalls[0].ID, Content: "hello"})
	second, err := h.c.Complete(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if second.Content != "The file says: hello" || len(second.ToolCalls) != 0 {
		t.Errorf("second = %+v", second)
	}
	if got := h.srv.Requests()[1].Messages[1].ToolCalls[0].ID; got != "call_0" {
		t.Errorf("replayed call id = %q", got)
	}
}

func TestCompleteInvalidRequest(t *testing.T) {
	tests := []struct {
		name    string
		noModel bool
		req     llm.Request
	}{
		{"no model", true, userRequest("hi")},
		{"tool schema not JSON", false, llm.Request{Messages: userRequest("hi").Messages,
			Tools: []llm.ToolDefinition{{Name: "bad", Parameters: json.RawMessage(`{"type":`)}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Options{})
			if tt.noModel {
				h.c.opts.Model = ""
			}
			_, err := h.c.Complete(context.Background(), tt.req, nil)
			if !errors.Is(err, ErrInvalidRequest) {
				t.Fatalf("err = %v, want ErrInvalidRequest", err)
			}
			if n := len(h.srv.Requests()); n != 0 {
				t.Errorf("%d requests sent, want 0", n)
			}
		})
	}
}

package openai

import (
	"context"
	"fmt"
	"testing"

	"github.com/threadbot/threadbot/internal/core/llm"
	"github.com/threadbot/threadbot/internal/fakeopenai"
)

const benchReply = "Hello! How can I help you with this thread today?"

// BenchmarkCompleteStreaming measures one short streamed reply through the
// real client and the fake server over loopback: request translation,
// HTTP, SSE parsing and assembly. The fake's own work (decoding the request,
// encoding 15 chunks) is included, so the figure is an upper bound on the
// client's overhead.
func BenchmarkCompleteStreaming(b *testing.B) {
	srv := fakeopenai.New(b)
	srv.SetHandler(func(fakeopenai.Request) fakeopenai.Response {
		return fakeopenai.Response{Content: benchReply}
	})
	c := New(nil, Options{BaseURL: srv.URL(), APIKey: "sk-bench", Model: "gpt-bench"})
	req := userRequest("hi")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		resp, err := c.Complete(ctx, req, func(llm.Delta) {})
		if err != nil || resp.Content != benchReply {
			b.Fatalf("resp %+v err %v", resp, err)
		}
	}
}

// BenchmarkReadStream measures the client's share alone: decoding and
// assembling the chunks of the same reply, without HTTP.
func BenchmarkReadStream(b *testing.B) {
	var raw []string
	raw = append(raw, `{"id":"c","object":"chat.completion.chunk","model":"gpt-bench","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}`)
	for i := 0; i < len(benchReply); i += 4 {
		piece := benchReply[i:min(i+4, len(benchReply))]
		raw = append(raw, fmt.Sprintf(`{"id":"c","object":"chat.completion.chunk","model":"gpt-bench","choices":[{"index":0,"delta":{"content":%q},"finish_reason":null}],"usage":null}`, piece))
	}
	raw = append(raw,
		`{"id":"c","object":"chat.completion.chunk","model":"gpt-bench","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}`,
		`{"id":"c","object":"chat.completion.chunk","model":"gpt-bench","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":12,"total_tokens":13}}`)
	b.ReportAllocs()
	for b.Loop() {
		s := chunks(raw)
		resp, err := readStream(&s, func(llm.Delta) {})
		if err != nil || resp.Content != benchReply {
			b.Fatalf("resp %+v err %v", resp, err)
		}
	}
}

package mcp

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/threadbot/threadbot/internal/core/executor"
)

// pngBytes is a stand-in for image data; nothing decodes it.
var pngBytes = []byte("\x89PNG\r\n\x1a\nfake")

func rawTool(name, schema string, h sdk.ToolHandler) (*sdk.Tool, sdk.ToolHandler) {
	return &sdk.Tool{Name: name, Description: "Tool " + name + ".", InputSchema: json.RawMessage(schema)}, h
}

func result(content ...sdk.Content) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: content}
}

// memoryServer starts an SDK server with tools that exercise every kind of
// content, on an in-memory transport, and returns the client side.
func memoryServer(t *testing.T) sdk.Transport {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "mem", Version: "v1"}, &sdk.ServerOptions{PageSize: 3})
	obj := `{"type":"object"}`
	s.AddTool(rawTool("echo", `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`,
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct{ Text string }
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			return result(&sdk.TextContent{Text: in.Text}), nil
		}))
	s.AddTool(rawTool("picture", obj, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return result(&sdk.TextContent{Text: "here it is"}, &sdk.ImageContent{Data: pngBytes, MIMEType: "image/png"}), nil
	}))
	s.AddTool(rawTool("mixed", obj, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return result(
			&sdk.ResourceLink{URI: "file:///docs/a.md", Name: "a.md", Description: "the A doc"},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "note body"}},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///img/chart.png", MIMEType: "image/png", Blob: pngBytes}},
			&sdk.AudioContent{Data: []byte("RIFF"), MIMEType: "audio/wav"},
		), nil
	}))
	s.AddTool(rawTool("structured", obj, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: map[string]any{"answer": 42}}, nil
	}))
	s.AddTool(rawTool("empty", obj, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return result(), nil
	}))
	s.AddTool(rawTool("oops", obj, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "quota exceeded"}}}, nil
	}))
	s.AddTool(rawTool("slow", obj, func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}))
	s.AddTool(rawTool("do.thing/now", obj, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return result(&sdk.TextContent{Text: "did the thing"}), nil
	}))
	s.AddTool(rawTool("mem_prefixed", obj, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return result(&sdk.TextContent{Text: "already prefixed"}), nil
	}))
	s.AddTool(rawTool(strings.Repeat("x", 80), obj, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return result(&sdk.TextContent{Text: "long name"}), nil
	}))
	// A schema the executor cannot compile still gives a callable tool.
	s.AddTool(rawTool("odd", `{"type":"object","properties":{"n":{"type":"number","minimum":"zero"}}}`,
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return result(&sdk.TextContent{Text: "odd ran"}), nil
		}))
	serverT, clientT := sdk.NewInMemoryTransports()
	ss, err := s.Connect(t.Context(), serverT, nil)
	if err != nil {
		t.Fatalf("server Connect: %v", err)
	}
	t.Cleanup(func() { ss.Close() })
	return clientT
}

func TestInMemoryServer(t *testing.T) {
	groups, _, errs := connectAll(t, Server{
		Name:      "mem",
		Policy:    executor.Permission{Execution: executor.Auto},
		Timeout:   300 * time.Millisecond,
		transport: memoryServer(t),
	})
	if len(errs) > 0 {
		t.Fatalf("errs = %v", errs)
	}
	got := toolNames(groups[0])
	slices.Sort(got)
	long := "mem_" + strings.Repeat("x", 60)
	want := []string{long, "mem_do_thing_now", "mem_echo", "mem_empty", "mem_mixed", "mem_odd", "mem_oops", "mem_picture", "mem_prefixed", "mem_slow", "mem_structured"}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("tools =\n%v\nwant\n%v", got, want)
	}
	x, asked := newExecutor(t, groups...)

	tests := []struct {
		tool   string
		args   map[string]any
		status executor.Status
		want   []string
		atts   []string // kind:name:mime
	}{
		{"mem_echo", map[string]any{"text": "hello"}, executor.StatusSuccess, []string{"hello"}, nil},
		{"mem_echo", map[string]any{}, executor.StatusError, []string{"invalid arguments", "text"}, nil},
		{"mem_picture", nil, executor.StatusSuccess,
			[]string{"here it is\n[image mem_picture-1.png (image/png, 12 bytes) attached to the thread]"},
			[]string{"image:mem_picture-1.png:image/png"}},
		{"mem_mixed", nil, executor.StatusSuccess, []string{
			"[resource link: a.md <file:///docs/a.md> — the A doc]",
			"[resource <file:///notes.txt>]\nnote body",
			"[image chart.png (image/png, 12 bytes) attached to the thread] from <file:///img/chart.png>",
			"[audio (audio/wav, 4 bytes) not shown]",
		}, []string{"image:chart.png:image/png"}},
		{"mem_structured", nil, executor.StatusSuccess, []string{`{"answer":42}`}, nil},
		{"mem_empty", nil, executor.StatusSuccess, []string{noContent}, nil},
		{"mem_oops", nil, executor.StatusError, []string{"Error: quota exceeded"}, nil},
		{"mem_slow", nil, executor.StatusError, []string{"the MCP server mem did not answer within 300ms"}, nil},
		{"mem_do_thing_now", nil, executor.StatusSuccess, []string{"did the thing"}, nil},
		{"mem_prefixed", nil, executor.StatusSuccess, []string{"already prefixed"}, nil},
		{long, nil, executor.StatusSuccess, []string{"long name"}, nil},
		{"mem_odd", map[string]any{"n": "anything"}, executor.StatusSuccess, []string{"odd ran"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			r := execute(t, x, tt.tool, tt.args)
			if r.Status != tt.status {
				t.Errorf("status = %s, want %s; text = %q", r.Status, tt.status, r.Text)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.Text, w) {
					t.Errorf("text = %q, want it to contain %q", r.Text, w)
				}
			}
			var atts []string
			for _, a := range r.Attachments {
				atts = append(atts, a.Kind+":"+a.Name+":"+a.MIMEType)
				if string(a.Data) != string(pngBytes) {
					t.Errorf("attachment %s data = %q, want the image bytes", a.Name, a.Data)
				}
			}
			if !slices.Equal(atts, tt.atts) {
				t.Errorf("attachments = %v, want %v", atts, tt.atts)
			}
		})
	}
	if n := asked.count(); n != 0 {
		t.Errorf("approvals asked = %d with policy auto, want 0", n)
	}
}

func TestCallHonoursCancellation(t *testing.T) {
	groups, _, errs := connectAll(t, Server{Name: "mem", Policy: executor.Permission{Execution: executor.Auto}, transport: memoryServer(t)})
	if len(errs) > 0 {
		t.Fatalf("errs = %v", errs)
	}
	x, _ := newExecutor(t, groups...)
	ctx, cancel := context.WithCancelCause(t.Context())
	time.AfterFunc(100*time.Millisecond, func() { cancel(context.Canceled) })
	start := time.Now()
	r := x.Execute(ctx, "mem_slow", nil, executor.CallOptions{CallID: "c1"})
	if r.Status != executor.StatusError || !strings.Contains(r.Text, "call stopped") {
		t.Errorf("got %s %q, want ERROR saying the call stopped", r.Status, r.Text)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancelled call took %s", d)
	}
}

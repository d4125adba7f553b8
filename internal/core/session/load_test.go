package session_test

import (
	"context"

	"fmt"
	"github.com/threadbot/threadbot/internal/core/chain"
	"github.com/threadbot/threadbot/internal/core/llm"
	"runtime"
	"testing"

	"github.com/threadbot/threadbot/internal/adapters/openai"
	"github.com/threadbot/threadbot/internal/core/session"
	"github.com/threadbot/threadbot/internal/fakeopenai"
)

// TestManySessionsAgainstFakeServer runs 200 sessions' turns at once
// through the real model client and the fake OpenAI server (run with -race).
func TestManySessionsAgainstFakeServer(t *testing.T) {
	srv := fakeopenai.New(t)
	srv.SetHandler(func(r fakeopenai.Request) fakeopenai.Response {
		last := r.LastMessage()
		if last.Role == "tool" {
			return fakeopenai.Response{Content: "done: " + last.Content}
		}
		return fakeopenai.Response{ToolCalls: []fakeopenai.ToolCall{{ID: "c1", Name: "Lookup", Arguments: fmt.Sprintf(`{"q":%q}`, last.Content)}}}
	})
	h := newHarness(t, func(o *session.Options) { o.MaxConcurrentRequests = 16 })
	model := openai.New(nil, openai.Options{BaseURL: srv.URL(), APIKey: "k", Model: "m", MaxRetries: -1})
	h.stop()
	h.startWith(model)
	const n = 200
	for i := 0; i < n; i++ {
		h.send(key(fmt.Sprint("many-", i)), "U1", fmt.Sprint("q", i), fmt.Sprint("E", i))
	}
	h.plat.waitDone(t, n)
	for i := 0; i < n; i++ {
		k := key(fmt.Sprint("many-", i))
		want := fmt.Sprintf("done: result for q%d", i)
		if got := h.plat.answers(k); len(got) != 1 || got[0] != want {
			t.Fatalf("thread %d answers %q, want %q", i, got, want)
		}
	}
	if got := len(srv.Requests()); got != 2*n {
		t.Errorf("%d model requests, want %d", got, 2*n)
	}
}

// BenchmarkTurnOverhead measures what a turn adds beyond the model and the
// tools: a model that answers at once, one tool call, storage included.
// With event ids (as from Slack) each message also goes through the inbox:
// stored on arrival, marked when its turn starts and calls its first tool.
func BenchmarkTurnOverhead(b *testing.B) {
	for _, withEvents := range []bool{false, true} {
		name := "no-event-id"
		if withEvents {
			name = "event-id"
		}
		b.Run(name, func(b *testing.B) {
			h := newBenchHarness(b)
			h.model.Func = benchModel
			k := key("bench")
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				ev := ""
				if withEvents {
					ev = fmt.Sprint("E", i)
				}
				h.send(k, "U1", fmt.Sprint("q", i), ev)
				h.plat.waitDoneB(b, 1)
			}
		})
	}
}

// BenchmarkSessionMemory reports the heap held per idle and per loaded
// session after one turn each.
func BenchmarkSessionMemory(b *testing.B) {
	h := newBenchHarness(b)
	h.model.Func = benchModel
	const n = 100
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < n; i++ {
		h.send(key(fmt.Sprint("mem-", i)), "U1", "hello", "")
	}
	h.plat.waitDoneB(b, n)
	_ = h.m.Drain(context.Background())
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	for b.Loop() {
	}
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/n, "B/loaded-session")
}

func newBenchHarness(b *testing.B) *harness {
	h := newHarness(b, nil)
	h.stop() // restart without the test logger: benchmarks must not log every turn
	h.quiet = true
	h.start()
	return h
}

func benchModel(req llm.Request) chain.ScriptReply {
	if req.Messages[len(req.Messages)-1].Role == llm.RoleTool {
		return chain.ScriptReply{Response: llm.Response{Content: "ok"}}
	}
	return chain.ScriptReply{Response: llm.Response{ToolCalls: []llm.ToolCall{{ID: "c", Name: "Lookup", Arguments: `{"q":"x"}`}}}}
}

package chain

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/core/llm"
	"github.com/threadbot/threadbot/internal/core/vars"
)

var update = flag.Bool("update", false, "rewrite golden files")

func call(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: args}
}

func toolResp(calls ...llm.ToolCall) llm.Response {
	return llm.Response{ToolCalls: calls, Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12}}
}

func textResp(s string) llm.Response {
	return llm.Response{Content: s, Usage: llm.Usage{PromptTokens: 20, CompletionTokens: 5, TotalTokens: 25}}
}

// fixedClock advances one second per call.
func fixedClock() func() time.Time {
	t := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Second); return t }
}

func newExecutor(t *testing.T, a executor.Approver) *executor.Executor {
	t.Helper()
	x := executor.New(nil, executor.Options{SessionID: "s1", Approver: a, Vars: vars.New(vars.Options{Now: fixedClock()})})
	g := &executor.Group{Name: "demo", Tools: []*executor.Tool{
		{
			Name:       "Weather",
			Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
			Run: func(_ context.Context, _ executor.Call, args map[string]any) (executor.Output, error) {
				return executor.Output{Data: map[string]any{"city": args["city"], "temp": 21}}, nil
			},
		},
		{
			Name:       "Shell",
			Permission: executor.Permission{Execution: executor.AskAlways},
			Parameters: json.RawMessage(`{"type":"object","properties":{"cmd":{"type":"string"}},"required":["cmd"]}`),
			Run: func(_ context.Context, _ executor.Call, args map[string]any) (executor.Output, error) {
				return executor.Output{Data: "ran " + args["cmd"].(string)}, nil
			},
		},
	}}
	if err := x.Register(g); err != nil {
		t.Fatal(err)
	}
	if err := x.SetGroupEnabled("demo", true); err != nil {
		t.Fatal(err)
	}
	return x
}

func ctxMsgs() []llm.Message {
	return []llm.Message{{Role: llm.RoleSystem, Content: "sys"}, {Role: llm.RoleUser, Content: "weather in Oslo?"}}
}

func TestTurnWithoutTools(t *testing.T) {
	m := (&ScriptModel{}).Push(textResp("Hello!"))
	var streamed strings.Builder
	res, err := Turn(context.Background(), m, newExecutor(t, nil), Options{
		Context:   ctxMsgs(),
		Callbacks: Callbacks{OnText: func(s string) { streamed.WriteString(s) }},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Final != "Hello!" || res.Content() != "Hello!" || res.HintSize() != 0 || res.Status != StatusCompleted {
		t.Errorf("result = final %q content %q hint %d status %s", res.Final, res.Content(), res.HintSize(), res.Status)
	}
	if streamed.String() != "Hello!" {
		t.Errorf("streamed %q", streamed.String())
	}
	req := m.Requests()[0]
	if got := len(req.Tools); got != 4 || req.ToolChoice != llm.ToolChoiceAuto {
		t.Errorf("first request: %d tools, choice %q; want 4 (Weather, Shell, ReadVar, ListVars) and auto", got, req.ToolChoice)
	}
}

func TestChainRounds(t *testing.T) {
	m := (&ScriptModel{}).Push(
		llm.Response{Content: "Let me check.", ToolCalls: []llm.ToolCall{call("c1", "Weather", `{"city":"Oslo"}`), call("c2", "Weather", `{"city":`)}, Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12}},
		toolResp(call("c3", "Shell", `{"cmd":"rm -rf /"}`)),
		textResp("It is 21 degrees in Oslo."),
	)
	a := executor.ApproverFunc(func(context.Context, executor.ApprovalRequest) (executor.Decision, error) {
		return executor.Decision{Reason: "too dangerous", By: "U9"}, nil
	})
	x := newExecutor(t, a)
	var events []string
	res, err := Turn(context.Background(), m, x, Options{
		Context: ctxMsgs(),
		Now:     fixedClock(),
		Callbacks: Callbacks{
			OnToolCallStart:    func(c llm.ToolCall, _ map[string]any) { events = append(events, "start:"+c.ID) },
			OnToolCallComplete: func(r CallRecord) { events = append(events, "done:"+r.CallID+":"+string(r.Result.Status)) },
			OnCheckpoint:       func(cp *Checkpoint) { events = append(events, fmt.Sprintf("cp:%s", cp.Pending[0].ID)) },
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	wantEvents := []string{"cp:c1", "start:c1", "done:c1:SUCCESS", "cp:c2", "start:c2", "done:c2:ERROR", "cp:c3", "start:c3", "done:c3:EXECUTION_REJECTED"}
	if !slices.Equal(events, wantEvents) {
		t.Errorf("events = %v\nwant %v", events, wantEvents)
	}
	reqs := m.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	// Round 2 request: context + assistant(tool_calls) + two tool messages.
	r2 := reqs[1].Messages
	if len(r2) != 5 || r2[2].Role != llm.RoleAssistant || len(r2[2].ToolCalls) != 2 {
		t.Fatalf("round-2 messages = %+v", r2)
	}
	if r2[3].ToolCallID != "c1" || r2[3].Content != `{"city":"Oslo","temp":21}` {
		t.Errorf("tool message 1 = %+v", r2[3])
	}
	if r2[4].ToolCallID != "c2" || !strings.Contains(r2[4].Content, "not a valid JSON object") {
		t.Errorf("tool message 2 = %+v", r2[4])
	}
	r3 := reqs[2].Messages
	var rej struct{ Status, Message string }
	if err := json.Unmarshal([]byte(r3[len(r3)-1].Content), &rej); err != nil || rej.Status != "rejected" || !strings.Contains(rej.Message, "too dangerous") {
		t.Errorf("rejection tool message = %q", r3[len(r3)-1].Content)
	}
	if res.Status != StatusCompleted || res.Final != "It is 21 degrees in Oslo." {
		t.Errorf("status %s final %q", res.Status, res.Final)
	}
	if res.Stats.Rounds != 2 || res.Stats.Calls != 3 {
		t.Errorf("stats = %+v", res.Stats)
	}
	if want := (llm.Usage{PromptTokens: 40, CompletionTokens: 9, TotalTokens: 49}); res.Usage != want {
		t.Errorf("usage = %+v, want %+v", res.Usage, want)
	}
	if res.History[2].Round != 2 || res.History[0].Usage.TotalTokens != 12 || !res.History[0].End.After(res.History[0].Start) {
		t.Errorf("history = %+v", res.History)
	}
	if len(res.Messages.Context) != 2 || len(res.Messages.ToolChain) != 6 || len(res.Messages.Complete) != 8 {
		t.Errorf("messages: %d context, %d chain, %d complete", len(res.Messages.Context), len(res.Messages.ToolChain), len(res.Messages.Complete))
	}
	golden(t, "rounds.golden", res.Content())
	if !strings.HasPrefix(res.Content(), "<SYSTEM-CONTEXT>") || res.Content()[:res.HintSize()] != res.ToolChainContent {
		t.Error("content does not start with the hint of HintSize bytes")
	}
}

func TestMaxRoundsFinalAnswer(t *testing.T) {
	m := &ScriptModel{}
	for i := 0; i < 3; i++ {
		m.Push(toolResp(call(fmt.Sprint("r", i, "a"), "Weather", `{"city":"A"}`), call(fmt.Sprint("r", i, "b"), "Weather", `{"city":"B"}`)))
	}
	m.Push(textResp("Best effort answer."))
	res, err := Turn(context.Background(), m, newExecutor(t, nil), Options{Context: ctxMsgs(), MaxRounds: 2})
	if err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	last := reqs[3]
	if last.ToolChoice != llm.ToolChoiceNone {
		t.Errorf("final request tool choice = %q, want none", last.ToolChoice)
	}
	msgs := last.Messages
	sys := msgs[len(msgs)-1]
	if sys.Role != llm.RoleUser || !strings.HasPrefix(sys.Content, "[SYSTEM]") || !strings.Contains(sys.Content, "limit of 2 tool rounds") {
		t.Errorf("final prompt = %+v", sys)
	}
	for _, mm := range msgs[len(msgs)-3 : len(msgs)-1] {
		if mm.Role != llm.RoleTool || !strings.Contains(mm.Content, `"incomplete"`) {
			t.Errorf("unexecuted call message = %+v, want incomplete tool message", mm)
		}
	}
	if res.Stats.Calls != 4 || res.Stats.Rounds != 2 || res.Final != "Best effort answer." {
		t.Errorf("calls %d rounds %d final %q", res.Stats.Calls, res.Stats.Rounds, res.Final)
	}
	if !strings.Contains(res.ResponseContent, "✗ Not executed") {
		t.Error("flow does not show the unexecuted calls")
	}
}

func TestEmptyFinalAnswer(t *testing.T) {
	m := (&ScriptModel{}).Push(toolResp(call("c1", "Weather", `{"city":"A"}`)), textResp(""), textResp("Now an answer."))
	res, err := Turn(context.Background(), m, newExecutor(t, nil), Options{Context: ctxMsgs()})
	if err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	if len(reqs) != 3 || !strings.Contains(reqs[2].Messages[len(reqs[2].Messages)-1].Content, "last reply was empty") {
		t.Fatalf("requests = %d; last = %+v", len(reqs), reqs[len(reqs)-1].Messages)
	}
	if res.Final != "Now an answer." {
		t.Errorf("final = %q", res.Final)
	}
}

func TestAbortBetweenCalls(t *testing.T) {
	m := (&ScriptModel{}).Push(toolResp(call("c1", "Weather", `{"city":"A"}`), call("c2", "Weather", `{"city":"B"}`)), textResp("never"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := Turn(ctx, m, newExecutor(t, nil), Options{
		Context:   ctxMsgs(),
		Callbacks: Callbacks{OnToolCallComplete: func(CallRecord) { cancel() }},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusAborted || res.Stats.Calls != 1 || len(m.Requests()) != 1 {
		t.Errorf("status %s, %d calls, %d requests; want aborted, 1, 1", res.Status, res.Stats.Calls, len(m.Requests()))
	}
	last := res.Messages.Complete[len(res.Messages.Complete)-1]
	if last.ToolCallID != "c2" || !strings.Contains(last.Content, "incomplete") {
		t.Errorf("last message = %+v, want incomplete c2", last)
	}
}

func TestModelError(t *testing.T) {
	m := (&ScriptModel{}).Push(toolResp(call("c1", "Weather", `{"city":"A"}`)))
	m.PushErr(errors.New("upstream 500"))
	res, err := Turn(context.Background(), m, newExecutor(t, nil), Options{Context: ctxMsgs()})
	if err == nil || res.Status != StatusError || !strings.Contains(res.Error, "upstream 500") || res.Stats.Calls != 1 {
		t.Errorf("err %v status %s error %q calls %d", err, res.Status, res.Error, res.Stats.Calls)
	}
	m2 := &ScriptModel{}
	m2.PushErr(fmt.Errorf("slow: %w", context.DeadlineExceeded))
	res, _ = Turn(context.Background(), m2, newExecutor(t, nil), Options{Context: ctxMsgs()})
	if res.Status != StatusTimeout {
		t.Errorf("status = %s, want timeout", res.Status)
	}
}

func TestBeforeSend(t *testing.T) {
	m := (&ScriptModel{}).Push(toolResp(call("c1", "Weather", `{"city":"A"}`)), textResp("ok"))
	_, err := Turn(context.Background(), m, newExecutor(t, nil), Options{
		Context: ctxMsgs(),
		Callbacks: Callbacks{OnBeforeSend: func(msgs []llm.Message) []llm.Message {
			return append(msgs, llm.Message{Role: llm.RoleUser, Content: "injected"})
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range m.Requests() {
		if last := r.Messages[len(r.Messages)-1]; last.Content != "injected" {
			t.Errorf("request %d last message %q, want injected", i, last.Content)
		}
	}
}

// TestResumeFromCheckpoint stops a chain while a call waits for approval,
// serialises the checkpoint, and resumes it with a fresh executor.
func TestResumeFromCheckpoint(t *testing.T) {
	script := func() *ScriptModel {
		return (&ScriptModel{}).Push(
			toolResp(call("c1", "Weather", `{"city":"Oslo"}`), call("c2", "Shell", `{"cmd":"ls"}`)),
			textResp("Done: ran ls."),
		)
	}
	// A reference run that approves straight away.
	approve := executor.ApproverFunc(func(context.Context, executor.ApprovalRequest) (executor.Decision, error) {
		return executor.Decision{Approved: true, By: "U1"}, nil
	})
	ref, err := Turn(context.Background(), script(), newExecutor(t, approve), Options{Context: ctxMsgs()})
	if err != nil {
		t.Fatal(err)
	}
	// The interrupted run: the approval never comes; the process "dies".
	var saved []byte
	ctx, cancel := context.WithCancel(context.Background())
	x1 := newExecutor(t, nil)
	x1.SetApprover(executor.ApproverFunc(func(ctx context.Context, req executor.ApprovalRequest) (executor.Decision, error) {
		cancel() // the process stops while waiting
		<-ctx.Done()
		return executor.Decision{}, ctx.Err()
	}))
	m1 := script()
	_, _ = Turn(ctx, m1, x1, Options{Context: ctxMsgs(), Callbacks: Callbacks{OnCheckpoint: func(cp *Checkpoint) {
		if aw, _ := cp.Awaiting(); aw.Name == "Shell" {
			saved, _ = cp.Marshal()
		}
	}}})
	if saved == nil {
		t.Fatal("no checkpoint before the Shell call")
	}
	// A new process: restore variables, decode the checkpoint, resume.
	cp, err := UnmarshalCheckpoint(saved)
	if err != nil {
		t.Fatal(err)
	}
	if aw, ok := cp.Awaiting(); !ok || aw.ID != "c2" {
		t.Fatalf("awaiting %+v", aw)
	}
	x2 := newExecutor(t, approve)
	x2.Vars().Restore(x1.Vars().Snapshot())
	m2 := (&ScriptModel{}).Push(textResp("Done: ran ls."))
	res, err := Resume(context.Background(), m2, x2, cp, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Content() != ref.Content() {
		t.Errorf("resumed content differs from uninterrupted run:\n%s\n---\n%s", res.Content(), ref.Content())
	}
	if got := m2.Requests()[0].Messages; len(got) != len(m1.Requests()[0].Messages)+3 {
		t.Errorf("resumed request has %d messages, want context+assistant+2 tool", len(got))
	}
	if _, ok := x2.Vars().Peek("Weather_c1_result"); !ok {
		t.Error("the first call's cached result is gone after resume")
	}
	if _, err := UnmarshalCheckpoint([]byte(`{"version":99}`)); err == nil {
		t.Error("unknown checkpoint version accepted")
	}
}

func TestFormatter(t *testing.T) {
	hist := []CallRecord{
		{CallID: "a", Tool: "Fetch", Args: map[string]any{"url": strings.Repeat("u", 70)}, Result: executor.Result{Status: executor.StatusSuccess, Text: strings.Repeat("r", 300), ResultVar: "Fetch_a_result", ArgsVar: "Fetch_a_args"}},
		{CallID: "b", Tool: "Shell", Args: map[string]any{"cmd": "ls"}, Result: executor.Result{Status: executor.StatusExecutionRejected, RejectReason: "no", Text: "Execution rejected: no"}},
		{CallID: "c", Tool: "ReadVar", Args: map[string]any{"name": "x"}, Result: executor.Result{Status: executor.StatusError, Text: "Error: missing"}},
	}
	msgs := []llm.Message{
		{Role: llm.RoleAssistant, Content: "Looking.", ToolCalls: []llm.ToolCall{call("a", "Fetch", ""), call("b", "Shell", "")}},
		{Role: llm.RoleTool, Content: "ignored"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("c", "ReadVar", "")}},
		{Role: llm.RoleAssistant, Content: "Final."},
	}
	hint, flow := Hint(hist), Flow(msgs, hist)
	golden(t, "formatter.golden", hint+flow)
	for _, want := range []string{
		"- `Fetch` (args=$VAR_REF{{Fetch_a_args}}, result=$VAR_REF{{Fetch_a_result}})",
		"- `Shell` (not cached: rejected)",
		"</SYSTEM-CONTEXT>\n---\n",
	} {
		if !strings.Contains(hint, want) {
			t.Errorf("hint lacks %q", want)
		}
	}
	for _, want := range []string{
		"Looking.\n\n**[Tool Execution Log]**: Fetch\n```accesslog\nArguments: {\"url\":\"" + strings.Repeat("u", 50) + "…\"}\nStatus: ✓ Success\n\n" + strings.Repeat("r", 200) + "…\n```",
		"Status: ⚠️ Rejected\n\nno\n```",
		"Status: ✗ Failed\n\nError: missing",
		"```\n\nFinal.",
	} {
		if !strings.Contains(flow, want) {
			t.Errorf("flow lacks %q\n%s", want, flow)
		}
	}
	if Hint(nil) != "" {
		t.Error("hint for no calls is not empty")
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/threadbot/threadbot/internal/core/vars"
)

// recorder is an Approver that records requests and answers from a script.
type recorder struct {
	mu     sync.Mutex
	reqs   []ApprovalRequest
	answer func(ApprovalRequest) Decision
}

func (r *recorder) Approve(_ context.Context, req ApprovalRequest) (Decision, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	if r.answer == nil {
		return Decision{Approved: true, By: "U1"}, nil
	}
	return r.answer(req), nil
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs)
}

func echoTool(name string, perm Permission) *Tool {
	return &Tool{
		Name:        name,
		Description: "echo the text",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`),
		Permission:  perm,
		Run: func(_ context.Context, _ Call, args map[string]any) (Output, error) {
			return Output{Data: args["text"]}, nil
		},
	}
}

func newExec(t testing.TB, a Approver, groups ...*Group) *Executor {
	t.Helper()
	x := New(slog.New(slog.DiscardHandler), Options{SessionID: "s1", Approver: a})
	for _, g := range groups {
		if err := x.Register(g); err != nil {
			t.Fatalf("Register(%s): %v", g.Name, err)
		}
		if err := x.SetGroupEnabled(g.Name, true); err != nil {
			t.Fatal(err)
		}
	}
	return x
}

func defNames(x *Executor) []string {
	var out []string
	for _, d := range x.Definitions() {
		out = append(out, d.Name)
	}
	return out
}

func TestRegisterDefaults(t *testing.T) {
	x := New(nil, Options{})
	g := &Group{
		Name:  "web",
		Tools: []*Tool{echoTool("Fetch", Permission{}), echoTool("Search", Permission{})},
		SkillRules: []vars.SkillRule{
			{Name: "Cite", Desc: "how to cite", Prompt: "Always cite the URL."},
		},
	}
	if err := x.Register(g); err != nil {
		t.Fatal(err)
	}
	if x.GroupEnabled("web") {
		t.Error("group enabled after Register; want disabled")
	}
	if got := defNames(x); len(got) != 0 {
		t.Errorf("Definitions with no group enabled = %v, want none", got)
	}
	v, ok := x.Vars().Peek("Rule/web/Cite")
	if !ok {
		t.Fatal("skill rule variable Rule/web/Cite missing")
	}
	if v.Type != vars.TypeRule || !v.Keep || v.Value != "Always cite the URL." {
		t.Errorf("rule variable = %+v, want RULE, keep, the prompt", v)
	}
	for _, name := range []string{"Rule/Agent/VarRef", "Rule/Agent/TODO"} {
		if v, ok := x.Vars().Peek(name); !ok || !v.Keep || len(v.Value) < 200 {
			t.Errorf("built-in rule %s missing, not keep, or too short", name)
		}
	}
	if err := x.SetGroupEnabled("web", true); err != nil {
		t.Fatal(err)
	}
	if got, want := defNames(x), []string{"Fetch", "ListVars", "ReadVar", "Search"}; !slices.Equal(got, want) {
		t.Errorf("Definitions = %v, want %v", got, want)
	}
	if err := x.SetToolEnabled("Search", false); err != nil {
		t.Fatal(err)
	}
	if got, want := defNames(x), []string{"Fetch", "ListVars", "ReadVar"}; !slices.Equal(got, want) {
		t.Errorf("Definitions after disabling Search = %v, want %v", got, want)
	}
	if err := x.SetGroupEnabled("vars", true); err != nil {
		t.Fatal(err)
	}
	if got, want := defNames(x), []string{"Fetch", "ListVars", "ReadVar", "RemoveVars", "WriteVar"}; !slices.Equal(got, want) {
		t.Errorf("Definitions with vars = %v, want %v", got, want)
	}
	if err := x.Register(&Group{Name: "web"}); !errors.Is(err, ErrDuplicateGroup) {
		t.Errorf("duplicate group err = %v, want ErrDuplicateGroup", err)
	}
	if err := x.Register(&Group{Name: "other", Tools: []*Tool{echoTool("Fetch", Permission{})}}); !errors.Is(err, ErrDuplicateTool) {
		t.Errorf("duplicate tool err = %v, want ErrDuplicateTool", err)
	}
	bad := &Tool{Name: "Bad", Parameters: json.RawMessage(`{"type": 12}`), Run: echoTool("x", Permission{}).Run}
	if err := x.Register(&Group{Name: "bad", Tools: []*Tool{bad}}); !errors.Is(err, ErrBadSchema) {
		t.Errorf("bad schema err = %v, want ErrBadSchema", err)
	}
	if err := x.SetGroupEnabled("nope", true); !errors.Is(err, ErrUnknown) {
		t.Errorf("unknown group err = %v, want ErrUnknown", err)
	}
}

func TestToolRules(t *testing.T) {
	x := New(nil, Options{})
	if got := x.ToolRules(); got != "" {
		t.Errorf("ToolRules with nothing enabled = %q, want empty", got)
	}
	var gotNames []string
	g := &Group{
		Name:  "fs",
		Tools: []*Tool{echoTool("write", Permission{}), echoTool("read", Permission{})},
		RuleFunc: func(names []string) string {
			gotNames = names
			return "Files live in the sandbox: " + strings.Join(names, "+")
		},
		SkillRules: []vars.SkillRule{
			{Name: "Edit", Desc: "how to edit | safely", When: "before editing", Prompt: "Read first."},
			{Name: "Paths", Desc: "paths", Prompt: "Paths are relative to the sandbox.", AlwaysLoad: true},
		},
	}
	static := &Group{Name: "basic", Tools: []*Tool{echoTool("time", Permission{})}, Rules: "Use time for the date."}
	off := &Group{Name: "off", Tools: []*Tool{echoTool("offtool", Permission{})}, Rules: "NEVER SHOWN"}
	empty := &Group{Name: "empty", Tools: []*Tool{echoTool("gone", Permission{})}, Rules: "ALSO NEVER SHOWN"}
	for _, gr := range []*Group{g, static, off, empty} {
		if err := x.Register(gr); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"fs", "basic", "empty"} {
		if err := x.SetGroupEnabled(n, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.SetToolEnabled("gone", false); err != nil {
		t.Fatal(err)
	}
	got := x.ToolRules()
	for _, want := range []string{
		"<tool-rules>", "</tool-rules>",
		"hidden integer argument `limit`", "(default 8000)",
		"Never write `[Tool Execution Log]` blocks",
		"| `Rule/Agent/VarRef` |", "| `Rule/Agent/TODO` |",
		`<group name="fs">`, "Files live in the sandbox: read+write",
		"| `Rule/fs/Edit` | how to edit \\| safely | before editing |",
		"*Access via: ReadVar(",
		"**Rule: Paths**\nPaths are relative to the sandbox.",
		`<group name="basic">`, "Use time for the date.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("ToolRules lacks %q\n%s", want, got)
		}
	}
	for _, unwanted := range []string{"NEVER SHOWN", "`Rule/fs/Paths`"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("ToolRules contains %q", unwanted)
		}
	}
	if !slices.Equal(gotNames, []string{"read", "write"}) {
		t.Errorf("RuleFunc got %v, want sorted enabled names", gotNames)
	}
	if strings.Index(got, `<group name="fs">`) > strings.Index(got, `<group name="basic">`) {
		t.Error("groups not in registration order")
	}
}

// TestPipelineOrder records every step of Execute and checks the order of
// DESIGN.md §3.
func TestPipelineOrder(t *testing.T) {
	var steps []string
	x := New(nil, Options{SessionID: "s1"})
	tool := &Tool{
		Name:       "Probe",
		Parameters: json.RawMessage(`{"type":"object","properties":{"s":{"type":"string","maxLength":5}},"required":["s"]}`),
		Permission: Permission{Execution: AskAlways, Result: Always},
		Limit:      10,
		Run: func(_ context.Context, _ Call, args map[string]any) (Output, error) {
			steps = append(steps, "run:"+args["s"].(string))
			return Output{Data: strings.Repeat("x", 30)}, nil
		},
		Format: func(out Output, _ map[string]any) string {
			steps = append(steps, "format")
			return out.Data.(string)
		},
		Truncate: func(text string, limit int, _ map[string]any) (string, bool) {
			_, cached := x.Vars().Peek("Probe_c1_result")
			steps = append(steps, fmt.Sprintf("truncate:%d:cached=%v", limit, cached))
			return text[:limit], true
		},
	}
	x.SetApprover(ApproverFunc(func(_ context.Context, req ApprovalRequest) (Decision, error) {
		switch req.Kind {
		case KindExecution:
			// validation passed, so $VAR_REF (16 chars > maxLength 5) was resolved first
			steps = append(steps, "approve-exec:"+req.Args["s"].(string))
		case KindResult:
			_, cached := x.Vars().Peek("Probe_c1_result")
			steps = append(steps, fmt.Sprintf("approve-result:cached=%v:hint=%v", cached, strings.Contains(req.Result, "Probe_c1_result")))
		}
		return Decision{Approved: true}, nil
	}))
	if err := x.Register(&Group{Name: "g", Tools: []*Tool{tool}}); err != nil {
		t.Fatal(err)
	}
	_ = x.SetGroupEnabled("g", true)
	if err := x.Vars().Add("short", "abc", vars.TypeUserAdd, "", nil); err != nil {
		t.Fatal(err)
	}
	r := x.Execute(context.Background(), "Probe", map[string]any{"s": "$VAR_REF{{short}}"}, CallOptions{CallID: "c1"})
	want := []string{
		"approve-exec:abc", "run:abc", "format", "truncate:10:cached=false",
		"approve-result:cached=true:hint=true",
	}
	if !slices.Equal(steps, want) {
		t.Errorf("steps = %q\nwant    %q", steps, want)
	}
	if r.Status != StatusSuccess || !r.Truncated || r.Omitted != 20 {
		t.Errorf("result = %s truncated=%v omitted=%d, want SUCCESS true 20", r.Status, r.Truncated, r.Omitted)
	}
}

func TestExecuteStatuses(t *testing.T) {
	failing := &Tool{Name: "Fail", Run: func(context.Context, Call, map[string]any) (Output, error) {
		return Output{}, errors.New("disk on fire")
	}}
	panicking := &Tool{Name: "Panic", Run: func(context.Context, Call, map[string]any) (Output, error) {
		panic("boom")
	}}
	strict := &Tool{
		Name:       "Strict",
		Parameters: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"},"mode":{"enum":["a","b"]}},"required":["n"],"additionalProperties":false}`),
		Run:        func(context.Context, Call, map[string]any) (Output, error) { return Output{Data: "ran"}, nil },
	}
	hidden := echoTool("Hidden", Permission{})
	g := &Group{Name: "g", Tools: []*Tool{failing, panicking, strict, hidden, echoTool("Echo", Permission{})}}
	x := newExec(t, nil, g)
	_ = x.SetToolEnabled("Hidden", false)
	tests := []struct {
		name       string
		tool       string
		args       map[string]any
		wantStatus Status
		wantText   []string
	}{
		{"unknown", "Nope", nil, StatusNotFound, []string{`tool "Nope" is not available`}},
		{"disabled", "Hidden", map[string]any{"text": "x"}, StatusNotFound, []string{`"Hidden" is not available`}},
		{"tool error", "Fail", nil, StatusError, []string{"Error: disk on fire"}},
		{"panic", "Panic", nil, StatusError, []string{"panicked: boom"}},
		{"missing field", "Strict", map[string]any{}, StatusError, []string{"invalid arguments for Strict", "missing property 'n'"}},
		{"wrong type", "Strict", map[string]any{"n": "five"}, StatusError, []string{"/n: got string, want integer"}},
		{"extra field", "Strict", map[string]any{"n": 1, "x": 2}, StatusError, []string{"additional properties 'x' not allowed"}},
		{"bad enum", "Strict", map[string]any{"n": 1, "mode": "c"}, StatusError, []string{"/mode"}},
		{"hidden limit is not an extra field", "Strict", map[string]any{"n": 1, "limit": 5}, StatusSuccess, []string{"ran"}},
		{"missing var", "Echo", map[string]any{"text": "$VAR_REF{{nope}}"}, StatusError, []string{"resolve $VAR_REF", `"nope" not found`}},
		{"ok", "Echo", map[string]any{"text": "hi"}, StatusSuccess, []string{"hi"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := x.Execute(context.Background(), tt.tool, tt.args, CallOptions{CallID: "c-" + tt.name})
			if r.Status != tt.wantStatus {
				t.Errorf("status = %s, want %s (text %q)", r.Status, tt.wantStatus, r.Text)
			}
			for _, w := range tt.wantText {
				if !strings.Contains(r.Text, w) {
					t.Errorf("text = %q, want it to contain %q", r.Text, w)
				}
			}
		})
	}
}

func TestApprovalPolicies(t *testing.T) {
	ctx := context.Background()
	t.Run("ask-once remembers approval per expanded args", func(t *testing.T) {
		rec := &recorder{}
		x := newExec(t, rec, &Group{Name: "g", Tools: []*Tool{echoTool("Once", Permission{Execution: AskOnce})}})
		_ = x.Vars().Add("v", "same", vars.TypeUserAdd, "", nil)
		for i := 0; i < 3; i++ {
			if r := x.Execute(ctx, "Once", map[string]any{"text": "same"}, CallOptions{CallID: fmt.Sprint(i)}); r.Status != StatusSuccess {
				t.Fatalf("call %d: %s", i, r.Status)
			}
		}
		// The same expanded arguments through a reference: still remembered.
		x.Execute(ctx, "Once", map[string]any{"text": "$VAR_REF{{v}}"}, CallOptions{CallID: "ref"})
		if rec.count() != 1 {
			t.Errorf("asked %d times, want 1", rec.count())
		}
		x.Execute(ctx, "Once", map[string]any{"text": "other"}, CallOptions{CallID: "o"})
		if rec.count() != 2 {
			t.Errorf("asked %d times after new args, want 2", rec.count())
		}
		// Not shared across sessions.
		rec2 := &recorder{}
		y := newExec(t, rec2, &Group{Name: "g", Tools: []*Tool{echoTool("Once", Permission{Execution: AskOnce})}})
		y.Execute(ctx, "Once", map[string]any{"text": "same"}, CallOptions{CallID: "y"})
		if rec2.count() != 1 {
			t.Errorf("second session asked %d times, want 1", rec2.count())
		}
		if got := x.RememberedDecisions(); len(got) != 2 {
			t.Errorf("RememberedDecisions = %d, want 2", len(got))
		}
	})
	t.Run("ask-once remembers rejection", func(t *testing.T) {
		rec := &recorder{answer: func(ApprovalRequest) Decision { return Decision{Reason: "not today", By: "U2"} }}
		x := newExec(t, rec, &Group{Name: "g", Tools: []*Tool{echoTool("Once", Permission{Execution: AskOnce})}})
		for i := 0; i < 2; i++ {
			r := x.Execute(ctx, "Once", map[string]any{"text": "a"}, CallOptions{CallID: fmt.Sprint(i)})
			if r.Status != StatusExecutionRejected || r.RejectReason != "not today" {
				t.Errorf("call %d = %s %q, want EXECUTION_REJECTED not today", i, r.Status, r.RejectReason)
			}
			if !strings.Contains(r.Text, "not today") {
				t.Errorf("text %q lacks the reason", r.Text)
			}
		}
		if rec.count() != 1 {
			t.Errorf("asked %d times, want 1", rec.count())
		}
	})
	t.Run("ask-always asks every time until always", func(t *testing.T) {
		n := 0
		rec := &recorder{answer: func(ApprovalRequest) Decision {
			n++
			return Decision{Approved: true, Always: n == 2}
		}}
		x := newExec(t, rec, &Group{Name: "g", Tools: []*Tool{echoTool("Sh", Permission{Execution: AskAlways})}})
		for i := 0; i < 4; i++ {
			x.Execute(ctx, "Sh", map[string]any{"text": fmt.Sprint(i % 2)}, CallOptions{CallID: fmt.Sprint(i)})
		}
		if rec.count() != 2 {
			t.Errorf("asked %d times, want 2 (the second answer was 'always')", rec.count())
		}
		got := x.RememberedDecisions()
		if len(got) != 1 || got[0].Key != AlwaysKey("Sh") {
			t.Errorf("remembered %+v, want one always decision", got)
		}
		// Restored into a new executor, "always" still holds.
		rec2 := &recorder{}
		y := newExec(t, rec2, &Group{Name: "g", Tools: []*Tool{echoTool("Sh", Permission{Execution: AskAlways})}})
		y.RestoreDecisions(got)
		y.Execute(ctx, "Sh", map[string]any{"text": "z"}, CallOptions{CallID: "z"})
		if rec2.count() != 0 {
			t.Errorf("restored executor asked %d times, want 0", rec2.count())
		}
	})
	t.Run("no approver rejects", func(t *testing.T) {
		x := newExec(t, nil, &Group{Name: "g", Tools: []*Tool{echoTool("Sh", Permission{Execution: AskAlways})}})
		r := x.Execute(ctx, "Sh", map[string]any{"text": "a"}, CallOptions{})
		if r.Status != StatusExecutionRejected {
			t.Errorf("status = %s, want EXECUTION_REJECTED", r.Status)
		}
	})
	t.Run("admin override", func(t *testing.T) {
		rec := &recorder{}
		x := newExec(t, rec, &Group{Name: "g", Tools: []*Tool{echoTool("Sh", Permission{Execution: Auto})}})
		if err := x.SetPermission("Sh", Permission{Execution: AskAlways}); err != nil {
			t.Fatal(err)
		}
		x.Execute(ctx, "Sh", map[string]any{"text": "a"}, CallOptions{})
		if rec.count() != 1 {
			t.Errorf("asked %d times, want 1", rec.count())
		}
	})
	t.Run("result policies", func(t *testing.T) {
		fail := &Tool{Name: "F", Permission: Permission{Result: OnError}, Run: func(context.Context, Call, map[string]any) (Output, error) {
			return Output{}, errors.New("bad")
		}}
		okOnErr := echoTool("OK", Permission{Result: OnError})
		always := echoTool("A", Permission{Result: Always})
		rec := &recorder{answer: func(r ApprovalRequest) Decision {
			return Decision{Approved: r.Tool != "A", Reason: "private data"}
		}}
		x := newExec(t, rec, &Group{Name: "g", Tools: []*Tool{fail, okOnErr, always}})
		if r := x.Execute(ctx, "OK", map[string]any{"text": "a"}, CallOptions{}); r.Status != StatusSuccess || rec.count() != 0 {
			t.Errorf("on-error success: %s asked=%d, want SUCCESS asked=0", r.Status, rec.count())
		}
		if r := x.Execute(ctx, "F", nil, CallOptions{}); r.Status != StatusError || rec.count() != 1 || !rec.reqs[0].Failed {
			t.Errorf("on-error failure: %s asked=%d, want ERROR asked=1 with Failed", r.Status, rec.count())
		}
		r := x.Execute(ctx, "A", map[string]any{"text": "secret"}, CallOptions{})
		if r.Status != StatusResultRejected || strings.Contains(r.Text, "secret") || !strings.Contains(r.Text, "private data") {
			t.Errorf("always: %s %q, want RESULT_REJECTED without the result", r.Status, r.Text)
		}
		if r := x.Execute(ctx, "A", map[string]any{"text": "x"}, CallOptions{SkipResultApproval: true}); r.Status != StatusSuccess {
			t.Errorf("skip result approval: %s", r.Status)
		}
	})
}

func TestTruncation(t *testing.T) {
	ctx := context.Background()
	long := strings.Repeat("a", 6000) + strings.Repeat("é", 4000) + strings.Repeat("z", 2000) // 12,000 characters
	mk := func(name string, mod func(*Tool)) *Tool {
		tl := &Tool{Name: name, Run: func(context.Context, Call, map[string]any) (Output, error) { return Output{Data: long}, nil }}
		if mod != nil {
			mod(tl)
		}
		return tl
	}
	g := &Group{Name: "g", Tools: []*Tool{
		mk("Default", nil),
		mk("Skip", func(t *Tool) { t.SkipTruncate = true }),
		mk("Small", func(t *Tool) { t.Limit = 100 }),
		mk("Own", func(t *Tool) {
			t.Truncate = func(text string, limit int, _ map[string]any) (string, bool) { return text[:5] + "[cut]", false }
		}),
	}}
	x := newExec(t, nil, g)
	tests := []struct {
		tool          string
		args          map[string]any
		wantTruncated bool
		wantLen       int // characters of the text before the hint; 0 = don't check
		wantOmitted   int
	}{
		{"Default", nil, true, 0, 4000},
		{"Default", map[string]any{"limit": 0}, false, 12000, 0},
		{"Default", map[string]any{"limit": -1}, false, 12000, 0},
		{"Default", map[string]any{"limit": 20000}, false, 12000, 0},
		{"Default", map[string]any{"limit": 300}, true, 0, 11700},
		{"Skip", nil, false, 12000, 0},
		{"Small", nil, true, 0, 11900},
		{"Own", nil, true, 10, 11990},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprintf("%s/%v", tt.tool, tt.args), func(t *testing.T) {
			r := x.Execute(ctx, tt.tool, tt.args, CallOptions{CallID: fmt.Sprint("c", i)})
			if r.Status != StatusSuccess {
				t.Fatalf("status %s: %s", r.Status, r.Text)
			}
			if r.Truncated != tt.wantTruncated || r.Omitted != tt.wantOmitted {
				t.Errorf("truncated=%v omitted=%d, want %v %d", r.Truncated, r.Omitted, tt.wantTruncated, tt.wantOmitted)
			}
			if !utf8.ValidString(r.Text) {
				t.Error("text is not valid UTF-8")
			}
			body, _, hinted := strings.Cut(r.Text, "\n\n[SYSTEM]")
			if hinted != tt.wantTruncated {
				t.Errorf("hint present = %v, want %v", hinted, tt.wantTruncated)
			}
			if tt.wantLen > 0 && utf8.RuneCountInString(body) != tt.wantLen {
				t.Errorf("len = %d, want %d", utf8.RuneCountInString(body), tt.wantLen)
			}
			if v, ok := x.Vars().Peek(r.ResultVar); !ok || v.Value != long {
				t.Errorf("result variable %q missing or not the whole result", r.ResultVar)
			}
			if tt.wantTruncated && !strings.Contains(r.Text, fmt.Sprintf("%d of 12000 characters omitted", tt.wantOmitted)) {
				t.Errorf("hint does not count truthfully: %q", r.Text[len(body):])
			}
		})
	}
}

func TestTruncateFunc(t *testing.T) {
	tests := []struct {
		in                string
		limit             int
		wantHead, wantOut int // wantOut: omitted
	}{
		{"hello", 10, 5, 0},
		{"hello", 5, 5, 0},
		{"hello", 0, 5, 0},
		{"0123456789", 6, 4, 4},
		{"ééééééééé", 3, 2, 6},
		{"日本語のテキストです", 5, 3, 5},
	}
	for _, tt := range tests {
		out, head, omitted := Truncate(tt.in, tt.limit)
		if head != tt.wantHead || omitted != tt.wantOut {
			t.Errorf("Truncate(%q, %d) head=%d omitted=%d, want %d %d", tt.in, tt.limit, head, omitted, tt.wantHead, tt.wantOut)
		}
		if !utf8.ValidString(out) {
			t.Errorf("Truncate(%q, %d) = %q: invalid UTF-8", tt.in, tt.limit, out)
		}
		if omitted > 0 && !strings.Contains(out, fmt.Sprintf("[%d characters omitted]", omitted)) {
			t.Errorf("Truncate(%q, %d) = %q: no marker", tt.in, tt.limit, out)
		}
	}
	out, _, _ := Truncate("0123456789", 6)
	if !strings.HasPrefix(out, "0123") || !strings.HasSuffix(out, "89") {
		t.Errorf("head/tail = %q, want 0123…89", out)
	}
}

func TestCacheAndHint(t *testing.T) {
	x := newExec(t, nil, &Group{Name: "g", Tools: []*Tool{echoTool("Echo", Permission{})}})
	r := x.Execute(context.Background(), "Echo", map[string]any{"text": strings.Repeat("x", 9000)}, CallOptions{CallID: "call:1/2"})
	if r.ResultVar != "Echo_call_1_2_result" || r.ArgsVar != "Echo_call_1_2_args" {
		t.Errorf("vars = %q %q", r.ResultVar, r.ArgsVar)
	}
	args, ok := x.Vars().Peek(r.ArgsVar)
	if !ok || args.Type != vars.TypeToolCallArgs || !strings.HasPrefix(args.Value, `{"text":"xxx`) {
		t.Errorf("args var = %+v", args)
	}
	for _, want := range []string{"`Echo_call_1_2_result`", `"start": 5333`, `"length": 1000`, "$VAR_REF{{Echo_call_1_2_result}}"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("hint lacks %q: %q", want, r.Text[len(r.Text)-400:])
		}
	}
	// Reading back the omitted part gives exactly the omitted characters.
	rv := x.Execute(context.Background(), ReadVarTool, map[string]any{"name": r.ResultVar, "start": 5333, "length": 1000}, CallOptions{CallID: "rv"})
	if got, _, _ := strings.Cut(rv.Text, "\n\n[SYSTEM]"); got != strings.Repeat("x", 1000) {
		t.Errorf("ReadVar chunk = %d chars, want 1000", len(got))
	}
	if rv.ResultVar != "" || rv.ArgsVar != "" {
		t.Errorf("var tool result was cached as %q %q", rv.ResultVar, rv.ArgsVar)
	}
	before := x.Vars().Len()
	x.Execute(context.Background(), ListVarsTool, nil, CallOptions{CallID: "lv"})
	if x.Vars().Len() != before {
		t.Error("ListVars created variables")
	}
}

func TestVarTools(t *testing.T) {
	ctx := context.Background()
	x := newExec(t, nil, &Group{Name: "g", Tools: []*Tool{echoTool("Echo", Permission{})}})
	_ = x.SetGroupEnabled(VarsGroup, true)
	run := func(tool string, args map[string]any) Result {
		t.Helper()
		return x.Execute(ctx, tool, args, CallOptions{CallID: "v"})
	}
	if r := run(WriteVarTool, map[string]any{"name": "note"}); r.Status != StatusError {
		t.Errorf("WriteVar without value: %s, want ERROR", r.Status)
	}
	if r := run(WriteVarTool, map[string]any{"name": "note", "value": "hello world", "desc": "a note", "tags": []any{"todo"}}); r.Status != StatusSuccess || !strings.Contains(r.Text, "Created") {
		t.Errorf("WriteVar: %s %q", r.Status, r.Text)
	}
	if v, _ := x.Vars().Peek("note"); v.Type != vars.TypeLLMAdd || v.Desc != "a note" {
		t.Errorf("written var = %+v, want LLMAdd with desc", v)
	}
	if r := run(WriteVarTool, map[string]any{"name": "Rule/Agent/TODO", "value": "pwned"}); r.Status != StatusError {
		t.Errorf("overwriting a RULE: %s, want ERROR", r.Status)
	}
	if r := run(ReadVarTool, map[string]any{"name": "note", "start": 6, "length": 3}); !strings.HasPrefix(r.Text, "wor") {
		t.Errorf("ReadVar slice = %q", r.Text)
	}
	if r := run(ReadVarTool, map[string]any{"name": "note"}); r.Text != "hello world" {
		t.Errorf("ReadVar whole = %q", r.Text)
	}
	if r := run(ReadVarTool, map[string]any{"name": "missing"}); r.Status != StatusError {
		t.Errorf("ReadVar missing: %s", r.Status)
	}
	if r := run(ListVarsTool, map[string]any{"filter": map[string]any{"tag": "todo"}}); !strings.Contains(r.Text, "1 variables") || !strings.Contains(r.Text, "| note | LLMAdd | 11 | a note | todo |") {
		t.Errorf("ListVars by tag = %q", r.Text)
	}
	if r := run(ListVarsTool, map[string]any{"filter": map[string]any{"type": "RULE"}, "pageSize": 1, "page": 2}); !strings.Contains(r.Text, "page 2 of 2") || !strings.Contains(r.Text, "Rule/Agent/VarRef") {
		t.Errorf("ListVars paging = %q", r.Text)
	}
	r := run(RemoveVarsTool, map[string]any{"names": []any{"note", "Rule/Agent/VarRef", "ghost"}})
	var out struct {
		Removed []string
		Failed  []struct{ Name, Reason string }
	}
	if err := json.Unmarshal([]byte(r.Text), &out); err != nil {
		t.Fatalf("RemoveVars output %q: %v", r.Text, err)
	}
	if !slices.Equal(out.Removed, []string{"note"}) || len(out.Failed) != 2 || out.Failed[0].Name != "Rule/Agent/VarRef" {
		t.Errorf("RemoveVars = %+v", out)
	}
}

func TestCompressArgs(t *testing.T) {
	long := strings.Repeat("y", 80)
	got := CompressArgs(map[string]any{"path": long, "id": long, "q": long, "n": 3})
	want := fmt.Sprintf(`{"id":%q,"n":3,"path":%q,"q":%q}`, long, long, strings.Repeat("y", 50)+"…")
	if got != want {
		t.Errorf("CompressArgs = %s\nwant %s", got, want)
	}
}

func BenchmarkExecuteNoop(b *testing.B) {
	noop := &Tool{
		Name:       "Noop",
		Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`),
		Run:        func(context.Context, Call, map[string]any) (Output, error) { return Output{Data: "ok"}, nil },
	}
	x := newExec(b, nil, &Group{Name: "g", Tools: []*Tool{noop}})
	args := map[string]any{"q": "hello"}
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r := x.Execute(ctx, "Noop", args, CallOptions{CallID: fmt.Sprint(i)})
		if r.Status != StatusSuccess {
			b.Fatal(r.Text)
		}
	}
}

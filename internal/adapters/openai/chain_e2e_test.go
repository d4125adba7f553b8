package openai_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/threadbot/threadbot/internal/adapters/openai"
	"github.com/threadbot/threadbot/internal/core/chain"
	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/core/llm"
	"github.com/threadbot/threadbot/internal/fakeopenai"
)

// End-to-end: the fake OpenAI-compatible server streams scripted answers
// over real SSE, the real go-openai client reads them, and chain.Turn runs a
// real Executor. The scripted model works like a real one: it reads the
// truncation hint out of the tool message it received and calls ReadVar with
// the start and length the hint names.
//
// The conversation (four requests, three tool rounds):
//
//	request 1 → text + Fetch           (Fetch's 20,000-character result is truncated)
//	request 2 → ReadVar + ListVars     (ReadVar's arguments parsed from the hint; the two calls
//	                                    streamed interleaved and without "index", so the client
//	                                    must tell them apart by id)
//	request 3 → text + Deploy          (ask-always; arguments use $VAR_REF into Fetch's result)
//	request 4 → the final answer

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const (
	e2eModel     = "e2e-model"
	e2eKey       = "sk-e2e"
	e2eSession   = "session-1"
	e2eMessageID = "msg-1"
	e2eRequester = "U123"

	fetchChars = 20000 // > executor.DefaultLimit, so the result is truncated
	fetchURL   = "https://example.com/releases/api.txt"
	listArgs   = `{"filter":{"type":"ToolCallResult"}}`

	introText  = "Let me fetch the release notes first."
	deployText = "The notes look good; deploying now."
	deployNote = "Roll out the release described in the fetched notes to every region, canary first."
	rejectWhy  = "change freeze until Monday"

	idFetch  = "call_fetch"
	idRead   = "call_read"
	idList   = "call_list"
	idDeploy = "call_deploy"
)

// Usage the server reports for each of the four requests.
var e2eUsage = []fakeopenai.Usage{
	{PromptTokens: 120, CompletionTokens: 12, TotalTokens: 132},
	{PromptTokens: 2300, CompletionTokens: 21, TotalTokens: 2321},
	{PromptTokens: 2900, CompletionTokens: 34, TotalTokens: 2934},
	{PromptTokens: 3100, CompletionTokens: 45, TotalTokens: 3145},
}

// releaseNotes is Fetch's result: exactly fetchChars characters, with
// multi-byte characters so that characters and bytes differ, and numbered
// lines so that every slice is unique. It starts "release v2.7.1\n".
func releaseNotes() string {
	var b strings.Builder
	b.WriteString("release v2.7.1\n")
	for i := 1; b.Len() < 2*fetchChars; i++ {
		fmt.Fprintf(&b, "change %04d → fixed ticket #%05d in the rollout plan\n", i, i*7919%100000)
	}
	return string([]rune(b.String())[:fetchChars])
}

// runes slices s by characters.
func runes(s string, from, to int) string { return string([]rune(s)[from:to]) }

var readVarHint = regexp.MustCompile(`ReadVar\((\{[^()]*\})\)`)

// readVarArgs is what a model takes from a truncation hint: the JSON object
// inside "ReadVar(...)".
type readVarArgs struct {
	Name   string `json:"name"`
	Start  int    `json:"start"`
	Length int    `json:"length"`
}

func parseHint(toolMsg string) (raw string, args readVarArgs, err error) {
	m := readVarHint.FindStringSubmatch(toolMsg)
	if m == nil {
		return "", args, fmt.Errorf("no ReadVar(...) in the tool message")
	}
	if err := json.Unmarshal([]byte(m[1]), &args); err != nil {
		return "", args, fmt.Errorf("ReadVar arguments %s: %v", m[1], err)
	}
	return m[1], args, nil
}

func deployArgs(resultVar string) string {
	b, _ := json.Marshal(struct {
		Service string `json:"service"`
		Version string `json:"version"`
		Notes   string `json:"notes"`
	}{"api", "$VAR_REF{{" + resultVar + ":8:6}}", deployNote})
	return string(b)
}

// finalAnswer is the model's last reply, depending on Deploy's tool message.
func finalAnswer(deployMsg string) string {
	if strings.Contains(deployMsg, `"rejected"`) {
		return "I did not deploy api v2.7.1: the deploy was rejected (" + rejectWhy + "). The release notes list the changes; ask me again after the freeze."
	}
	return "Deployed **api v2.7.1** to every region, canary first. The release notes (20,000 characters) are cached if you want details."
}

// scriptedModel answers by how many rounds the conversation holds, reading
// what it needs from the tool results it received, as a model would. A reply it cannot make is an HTTP 500 whose message says
// why, which fails the chain (the client does not retry).
func scriptedModel(req fakeopenai.Request) fakeopenai.Response {
	var tools []fakeopenai.Message
	n := 0 // assistant messages so far
	for _, m := range req.Messages {
		switch m.Role {
		case "tool":
			tools = append(tools, m)
		case "assistant":
			n++
		}
	}
	fail := func(err error) fakeopenai.Response {
		return fakeopenai.Response{Status: http.StatusInternalServerError, ErrorMessage: "scripted model: " + err.Error()}
	}
	if n >= len(e2eUsage) {
		return fail(fmt.Errorf("request after %d assistant messages", n))
	}
	usage := e2eUsage[n]
	switch n {
	case 0:
		return fakeopenai.Response{
			Content:   introText,
			ToolCalls: []fakeopenai.ToolCall{{ID: idFetch, Name: "Fetch", Arguments: `{"url":"` + fetchURL + `"}`}},
			ChunkSize: 3,
			Usage:     &usage,
		}
	case 1:
		raw, _, err := parseHint(tools[0].Content)
		if err != nil {
			return fail(err)
		}
		return fakeopenai.Response{
			ToolCalls: []fakeopenai.ToolCall{
				{ID: idRead, Name: "ReadVar", Arguments: raw},
				{ID: idList, Name: "ListVars", Arguments: listArgs},
			},
			ChunkSize:           5,
			OmitToolCallIndex:   true, // every fragment carries its call's id instead
			InterleaveToolCalls: true,
			Usage:               &usage,
		}
	case 2:
		_, hint, err := parseHint(tools[0].Content)
		if err != nil {
			return fail(err)
		}
		return fakeopenai.Response{
			Content:   deployText,
			ToolCalls: []fakeopenai.ToolCall{{ID: idDeploy, Name: "Deploy", Arguments: deployArgs(hint.Name)}},
			ChunkSize: 4,
			Usage:     &usage,
		}
	default:
		return fakeopenai.Response{Content: finalAnswer(tools[len(tools)-1].Content), ChunkSize: 7, Usage: &usage}
	}
}

// e2eRun is what one run of the scenario produced.
type e2eRun struct {
	srv       *fakeopenai.Server
	x         *executor.Executor
	res       *chain.Result
	full      string // Fetch's whole result
	approvals []executor.ApprovalRequest
	deploys   []map[string]any // arguments Deploy.Run received
	deltas    []string         // streamed text, in order
	events    []string         // tool callbacks, in order
}

func runScenario(t *testing.T, decide executor.Decision) *e2eRun {
	t.Helper()
	r := &e2eRun{srv: fakeopenai.New(t), full: releaseNotes()}
	r.srv.SetHandler(scriptedModel)

	var mu sync.Mutex // the approver and tools run on the chain's goroutine; be safe anyway
	fetch := &executor.Tool{
		Name:        "Fetch",
		Description: "Fetch a URL and return its text.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"url":{"type":"string"}},"required":["url"],"additionalProperties":false}`),
		Run: func(_ context.Context, _ executor.Call, args map[string]any) (executor.Output, error) {
			if args["url"] != fetchURL {
				return executor.Output{}, fmt.Errorf("unexpected url %v", args["url"])
			}
			return executor.Output{Data: r.full}, nil
		},
	}
	deploy := &executor.Tool{
		Name:        "Deploy",
		Description: "Deploy a service version.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"service":{"type":"string"},"version":{"type":"string"},"notes":{"type":"string"}},` +
			`"required":["service","version"],"additionalProperties":false}`),
		Permission: executor.Permission{Execution: executor.AskAlways},
		Run: func(_ context.Context, _ executor.Call, args map[string]any) (executor.Output, error) {
			mu.Lock()
			r.deploys = append(r.deploys, args)
			mu.Unlock()
			return executor.Output{Data: map[string]any{"deployed": args["service"], "version": args["version"], "status": "ok"}}, nil
		},
	}
	approver := executor.ApproverFunc(func(_ context.Context, req executor.ApprovalRequest) (executor.Decision, error) {
		mu.Lock()
		defer mu.Unlock()
		r.approvals = append(r.approvals, req)
		return decide, nil
	})
	r.x = executor.New(nil, executor.Options{SessionID: e2eSession, Approver: approver})
	if err := r.x.Register(&executor.Group{Name: "ops", Tools: []*executor.Tool{fetch, deploy}, Rules: "Fetch before you deploy."}); err != nil {
		t.Fatal(err)
	}
	if err := r.x.SetGroupEnabled("ops", true); err != nil {
		t.Fatal(err)
	}

	client := openai.New(nil, openai.Options{BaseURL: r.srv.URL(), APIKey: e2eKey, Model: e2eModel, MaxRetries: -1})
	opts := chain.Options{
		Context: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are threadbot.\n\n" + r.x.ToolRules()},
			{Role: llm.RoleUser, Content: "Deploy the latest api release."},
		},
		MessageID: e2eMessageID,
		Requester: e2eRequester,
		Callbacks: chain.Callbacks{
			OnText: func(d string) { r.deltas = append(r.deltas, d) },
			OnToolCallStart: func(c llm.ToolCall, _ map[string]any) {
				r.events = append(r.events, "start "+c.Name+" "+c.ID)
			},
			OnToolCallComplete: func(rec chain.CallRecord) {
				r.events = append(r.events, "complete "+rec.Tool+" "+rec.CallID+" "+string(rec.Result.Status))
			},
		},
	}
	res, err := chain.Turn(context.Background(), client, r.x, opts)
	if err != nil {
		t.Fatalf("Turn: %v", err)
	}
	r.res = res
	return r
}

// check is the part of the scenario both tests share: what the server
// received in every request, the streamed text, the truncation and ReadVar
// round trip, history, usage and the compressed content. It returns the
// Deploy tool message the server received.
func (r *e2eRun) check(t *testing.T) (deployMsg string) {
	reqs := r.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("server received %d requests, want 4", len(reqs))
	}

	// Every request: streamed with usage, all tools offered (ReadVar and
	// ListVars injected, the disabled vars group not), tool_choice auto.
	wantTools := []string{"Deploy", "Fetch", "ListVars", "ReadVar"}
	for i, req := range reqs {
		var names []string
		for _, tool := range req.Tools {
			names = append(names, tool.Function.Name)
			if tool.Type != "function" {
				t.Errorf("request %d: tool %s has type %q, want function", i+1, tool.Function.Name, tool.Type)
			}
		}
		if !reflect.DeepEqual(names, wantTools) {
			t.Errorf("request %d: tools = %q, want %q", i+1, names, wantTools)
		}
		if got, want := req.ToolChoice, "auto"; got != want {
			t.Errorf("request %d: tool_choice = %q, want %q", i+1, got, want)
		}
		if !req.Stream || !req.IncludeUsage {
			t.Errorf("request %d: stream = %v, include_usage = %v, want both true", i+1, req.Stream, req.IncludeUsage)
		}
		if req.Model != e2eModel {
			t.Errorf("request %d: model = %q, want %q", i+1, req.Model, e2eModel)
		}
		if got, want := req.Header.Get("Authorization"), "Bearer "+e2eKey; got != want {
			t.Errorf("request %d: Authorization = %q, want %q", i+1, got, want)
		}
	}
	for _, tool := range reqs[0].Tools {
		if tool.Function.Name == "Fetch" {
			if got, want := string(tool.Function.Parameters), `{"type":"object","properties":{"url":{"type":"string"}},"required":["url"],"additionalProperties":false}`; got != want {
				t.Errorf("Fetch parameters sent = %s, want %s", got, want)
			}
		}
	}

	// The truncated Fetch result, as the model received it in request 2.
	fetchMsg := reqs[1].LastMessage().Content
	total := utf8.RuneCountInString(r.full)
	body, hintText, ok := strings.Cut(fetchMsg, "\n\n[SYSTEM] Output truncated:")
	if !ok {
		t.Fatalf("Fetch tool message has no truncation hint:\n%.300s…", fetchMsg)
	}
	marker := regexp.MustCompile(`\n\n\.\.\. \[(\d+) characters omitted\] \.\.\.\n\n`)
	loc := marker.FindStringSubmatchIndex(body)
	if loc == nil {
		t.Fatalf("Fetch tool message has no [N characters omitted] marker")
	}
	omitted, _ := strconv.Atoi(body[loc[2]:loc[3]])
	head, tail := body[:loc[0]], body[loc[1]:]
	headN, tailN := utf8.RuneCountInString(head), utf8.RuneCountInString(tail)
	if got, want := omitted, total-executor.DefaultLimit; got != want {
		t.Errorf("omitted = %d, want %d", got, want)
	}
	if got, want := headN+tailN, executor.DefaultLimit; got != want {
		t.Errorf("head %d + tail %d characters = %d, want %d", headN, tailN, got, want)
	}
	if headN+omitted+tailN != total || head != runes(r.full, 0, headN) || tail != runes(r.full, total-tailN, total) {
		t.Errorf("truncated text is not head %d + tail %d of the original", headN, tailN)
	}
	rawHint, hint, err := parseHint(hintText)
	if err != nil {
		t.Fatal(err)
	}
	wantHint := readVarArgs{Name: "Fetch_" + idFetch + "_result", Start: headN, Length: min(omitted, 2000)}
	if hint != wantHint {
		t.Errorf("hint's ReadVar arguments = %+v, want %+v", hint, wantHint)
	}
	for _, want := range []string{
		fmt.Sprintf(" %d of %d characters omitted.", omitted, total),
		"variable `" + wantHint.Name + "`",
		"$VAR_REF{{" + wantHint.Name + "}}",
	} {
		if !strings.Contains(hintText, want) {
			t.Errorf("truncation hint lacks %q:\n%s", want, hintText)
		}
	}

	// ReadVar returned exactly the slice the hint named, all of it from the
	// omitted part, followed by the position note.
	readMsg := reqs[2].Messages[len(reqs[2].Messages)-2].Content
	listMsg := reqs[2].LastMessage().Content
	for _, want := range []string{"1 variables (page 1 of 1)", "| Fetch_call_fetch_result | ToolCallResult | 20000 |"} {
		if !strings.Contains(listMsg, want) {
			t.Errorf("ListVars tool message lacks %q:\n%s", want, listMsg)
		}
	}
	chunk, note, _ := strings.Cut(readMsg, "\n\n[SYSTEM] ")
	if want := runes(r.full, hint.Start, hint.Start+hint.Length); chunk != want {
		t.Errorf("ReadVar returned %d characters %.60q…, want characters %d-%d of the original %.60q…",
			utf8.RuneCountInString(chunk), chunk, hint.Start, hint.Start+hint.Length, want)
	}
	if hint.Start < headN || hint.Start+hint.Length > headN+omitted {
		t.Errorf("ReadVar read %d-%d, outside the omitted part %d-%d", hint.Start, hint.Start+hint.Length, headN, headN+omitted)
	}
	if strings.Contains(fetchMsg, chunk) {
		t.Error("the chunk ReadVar returned was already in the truncated Fetch message")
	}
	if want := fmt.Sprintf("Characters %d-%d of %d of `%s`.", hint.Start, hint.Start+hint.Length, total, hint.Name); !strings.HasPrefix(note, want) {
		t.Errorf("ReadVar note = %q, want it to start with %q", note, want)
	}

	// The messages of every request: each one replays the previous
	// request's messages, then the assistant message and its tool result.
	deployMsg = reqs[3].LastMessage().Content
	call := func(id, name, args string) []fakeopenai.ToolCall {
		return []fakeopenai.ToolCall{{ID: id, Type: "function", Name: name, Arguments: args}}
	}
	transcript := []fakeopenai.Message{
		{Role: "system", Content: "You are threadbot.\n\n" + r.x.ToolRules()},
		{Role: "user", Content: "Deploy the latest api release."},
		{Role: "assistant", Content: introText, ToolCalls: call(idFetch, "Fetch", `{"url":"`+fetchURL+`"}`)},
		{Role: "tool", ToolCallID: idFetch, Content: fetchMsg},
		{Role: "assistant", ToolCalls: append(call(idRead, "ReadVar", rawHint), call(idList, "ListVars", listArgs)...)},
		{Role: "tool", ToolCallID: idRead, Content: readMsg},
		{Role: "tool", ToolCallID: idList, Content: listMsg},
		{Role: "assistant", Content: deployText, ToolCalls: call(idDeploy, "Deploy", deployArgs(hint.Name))},
		{Role: "tool", ToolCallID: idDeploy, Content: deployMsg},
	}
	for i, n := range []int{2, 4, 7, 9} {
		got := reqs[i].Messages
		if !reflect.DeepEqual(got, transcript[:n]) {
			t.Errorf("request %d: messages differ\n got %s\nwant %s", i+1, roles(got), roles(transcript[:n]))
			for j := range min(len(got), n) {
				if !reflect.DeepEqual(got[j], transcript[j]) {
					t.Errorf("request %d, message %d:\n got %+.400v\nwant %+.400v", i+1, j, got[j], transcript[j])
				}
			}
		}
	}

	// The chain's view matches the wire: history, tool messages, rounds,
	// usage per round.
	h := r.res.History
	if len(h) != 4 {
		t.Fatalf("history has %d calls, want 4", len(h))
	}
	u := func(i int) llm.Usage {
		return llm.Usage{PromptTokens: e2eUsage[i].PromptTokens, CompletionTokens: e2eUsage[i].CompletionTokens, TotalTokens: e2eUsage[i].TotalTokens}
	}
	for i, want := range []struct {
		id, tool     string
		round        int
		usage        llm.Usage
		truncated    bool
		resultVar    string
		argsVar      string
		toolMsg      string
		rawArgsMatch string
	}{
		{idFetch, "Fetch", 1, u(0), true, "Fetch_call_fetch_result", "Fetch_call_fetch_args", fetchMsg, `{"url":"` + fetchURL + `"}`},
		{idRead, "ReadVar", 2, u(1), false, "", "", readMsg, rawHint},
		{idList, "ListVars", 2, u(1), false, "", "", listMsg, listArgs},
		{idDeploy, "Deploy", 3, u(2), false, "", "", deployMsg, deployArgs(hint.Name)},
	} {
		rec := h[i]
		if rec.CallID != want.id || rec.Tool != want.tool || rec.Round != want.round || rec.RawArgs != want.rawArgsMatch {
			t.Errorf("history[%d] = %s %s round %d args %s, want %s %s round %d args %s",
				i, rec.CallID, rec.Tool, rec.Round, rec.RawArgs, want.id, want.tool, want.round, want.rawArgsMatch)
		}
		if rec.Usage != want.usage {
			t.Errorf("history[%d].Usage = %+v, want %+v", i, rec.Usage, want.usage)
		}
		if rec.Result.Truncated != want.truncated {
			t.Errorf("history[%d].Result.Truncated = %v, want %v", i, rec.Result.Truncated, want.truncated)
		}
		if i < 3 && (rec.Result.ResultVar != want.resultVar || rec.Result.ArgsVar != want.argsVar) {
			t.Errorf("history[%d] cached as %q/%q, want %q/%q", i, rec.Result.ResultVar, rec.Result.ArgsVar, want.resultVar, want.argsVar)
		}
		if got := toolMessageOf(r.res.Messages.Complete, rec.CallID); got != want.toolMsg {
			t.Errorf("history[%d]: the chain's tool message differs from what the server received", i)
		}
		if rec.End.Before(rec.Start) {
			t.Errorf("history[%d] ends %v before it starts %v", i, rec.End, rec.Start)
		}
	}
	if got, want := r.res.RoundUsage, []llm.Usage{u(0), u(1), u(2)}; !reflect.DeepEqual(got, want) {
		t.Errorf("RoundUsage = %+v, want %+v", got, want)
	}
	if got, want := r.res.Usage, u(0).Add(u(1)).Add(u(2)).Add(u(3)); got != want {
		t.Errorf("Usage = %+v, want the sum of the four responses %+v", got, want)
	}
	if got, want := r.res.Stats, (chain.Stats{Rounds: 3, Calls: 4}); got.Rounds != want.Rounds || got.Calls != want.Calls {
		t.Errorf("Stats = %d rounds, %d calls, want %d, %d", got.Rounds, got.Calls, want.Rounds, want.Calls)
	}
	if r.res.Status != chain.StatusCompleted || r.res.Error != "" {
		t.Errorf("Status = %q (%q), want %q", r.res.Status, r.res.Error, chain.StatusCompleted)
	}
	final := finalAnswer(deployMsg)
	if r.res.Final != final {
		t.Errorf("Final = %q, want %q", r.res.Final, final)
	}
	if got, want := len(r.res.Messages.Complete), len(transcript)+1; got != want {
		t.Errorf("chain holds %d messages, want %d (the transcript and the final answer)", got, want)
	}

	// Fetch's whole result and its arguments are in the session variables;
	// ReadVar's are not.
	if v, ok := r.x.Vars().Get("Fetch_call_fetch_result"); !ok || v.Value != r.full {
		t.Errorf("Fetch_call_fetch_result holds %d characters (found %v), want the whole %d", utf8.RuneCountInString(v.Value), ok, total)
	}
	if v, ok := r.x.Vars().Get("Fetch_call_fetch_args"); !ok || v.Value != `{"url":"`+fetchURL+`"}` {
		t.Errorf("Fetch_call_fetch_args = %q (found %v)", v.Value, ok)
	}
	for _, name := range []string{"ReadVar_call_read_result", "ReadVar_call_read_args", "ListVars_call_list_result", "ListVars_call_list_args"} {
		if _, ok := r.x.Vars().Get(name); ok {
			t.Errorf("variable %s exists; the var tools are not cached", name)
		}
	}

	// Streamed text arrived in pieces no longer than each reply's chunk
	// size, and reassembles to the three texts of the turn.
	if got, want := strings.Join(r.deltas, ""), introText+deployText+final; got != want {
		t.Errorf("streamed text = %q, want %q", got, want)
	}
	if want := (len(introText)+2)/3 + (len(deployText)+3)/4 + (utf8.RuneCountInString(final)+6)/7; len(r.deltas) != want {
		t.Errorf("got %d text deltas, want %d", len(r.deltas), want)
	}
	for _, d := range r.deltas {
		if utf8.RuneCountInString(d) > 7 {
			t.Errorf("delta %q is longer than any chunk size", d)
		}
	}
	wantEvents := []string{
		"start Fetch call_fetch", "complete Fetch call_fetch SUCCESS",
		"start ReadVar call_read", "complete ReadVar call_read SUCCESS",
		"start ListVars call_list", "complete ListVars call_list SUCCESS",
		"start Deploy call_deploy", "complete Deploy call_deploy " + string(h[3].Result.Status),
	}
	if !reflect.DeepEqual(r.events, wantEvents) {
		t.Errorf("callbacks = %q, want %q", r.events, wantEvents)
	}

	// The approval request: expanded arguments and their summary.
	wantArgs := map[string]any{"service": "api", "version": "v2.7.1", "notes": deployNote}
	wantApproval := executor.ApprovalRequest{
		Kind: executor.KindExecution, SessionID: e2eSession, MessageID: e2eMessageID, CallID: idDeploy,
		Tool: "Deploy", Args: wantArgs, Requester: e2eRequester, Title: "Run Deploy",
		ArgsSummary: `{"notes":"` + runes(deployNote, 0, 50) + `…","service":"api","version":"v2.7.1"}`,
	}
	if len(r.approvals) != 1 || !reflect.DeepEqual(r.approvals[0], wantApproval) {
		t.Errorf("approvals = %+v\nwant exactly %+v", r.approvals, wantApproval)
	}

	// The compressed content: the hint, then the flow.
	content := r.res.Content()
	hintPart := r.res.ToolChainContent
	if got, want := r.res.HintSize(), len(hintPart); got != want || content[:got] != hintPart {
		t.Errorf("HintSize = %d, want %d, the length of the hint at the start of Content", got, want)
	}
	if !strings.HasPrefix(hintPart, "<SYSTEM-CONTEXT>") || !strings.Contains(hintPart, "</SYSTEM-CONTEXT>") {
		t.Errorf("hint is not a <SYSTEM-CONTEXT> block:\n%s", hintPart)
	}
	for _, want := range []string{"$VAR_REF{{Fetch_call_fetch_args}}", "$VAR_REF{{Fetch_call_fetch_result}}", "`ReadVar`"} {
		if !strings.Contains(hintPart, want) {
			t.Errorf("hint lacks %q:\n%s", want, hintPart)
		}
	}
	if strings.Contains(hintPart, "ReadVar_call_read") || strings.Contains(hintPart, "ListVars_call_list") {
		t.Errorf("hint names variables of the var tools, which are not cached:\n%s", hintPart)
	}
	flow := content[len(hintPart):]
	if got := strings.Count(flow, "**[Tool Execution Log]**:"); got != 4 {
		t.Errorf("flow has %d [Tool Execution Log] blocks, want 4:\n%s", got, flow)
	}
	for _, want := range []string{
		"**[Tool Execution Log]**: Fetch\n```accesslog\nArguments: {\"url\":\"" + fetchURL + "\"}\nStatus: ✓ Success\n\n" + runes(r.full, 0, chain.PreviewChars) + "…\n```",
		"**[Tool Execution Log]**: ReadVar\n```accesslog\nArguments: {\"length\":2000,\"name\":\"Fetch_call_fetch_result\",\"start\":" + strconv.Itoa(hint.Start) + "}\nStatus: ✓ Success\n\n" + runes(strings.TrimSpace(chunk), 0, chain.PreviewChars) + "…\n```",
		introText + "\n\n**[Tool Execution Log]**: Fetch",
		deployText + "\n\n**[Tool Execution Log]**: Deploy",
	} {
		if !strings.Contains(flow, want) {
			t.Errorf("flow lacks %q\n%s", want, flow)
		}
	}
	if !strings.HasSuffix(content, "```\n\n"+final) {
		t.Errorf("content does not end with the last log block and the final answer:\n…%s", content[max(0, len(content)-400):])
	}
	return deployMsg
}

func toolMessageOf(msgs []llm.Message, id string) string {
	for _, m := range msgs {
		if m.Role == llm.RoleTool && m.ToolCallID == id {
			return m.Content
		}
	}
	return "<none>"
}

func roles(msgs []fakeopenai.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Role)
		if m.ToolCallID != "" {
			b.WriteString("(" + m.ToolCallID + ")")
		}
		for _, c := range m.ToolCalls {
			b.WriteString("[" + c.Name + " " + c.ID + "]")
		}
		b.WriteString(" ")
	}
	return b.String()
}

func TestChainEndToEnd(t *testing.T) {
	r := runScenario(t, executor.Decision{Approved: true, By: e2eRequester})
	deployMsg := r.check(t)

	if got, want := deployMsg, `{"deployed":"api","status":"ok","version":"v2.7.1"}`; got != want {
		t.Errorf("Deploy tool message = %s, want %s", got, want)
	}
	if want := []map[string]any{{"service": "api", "version": "v2.7.1", "notes": deployNote}}; !reflect.DeepEqual(r.deploys, want) {
		t.Errorf("Deploy ran with %v, want %v", r.deploys, want)
	}
	rec := r.res.History[3]
	if rec.Result.Status != executor.StatusSuccess || rec.Result.ResultVar != "Deploy_call_deploy_result" || rec.Result.ArgsVar != "Deploy_call_deploy_args" {
		t.Errorf("Deploy result = %s cached as %q/%q", rec.Result.Status, rec.Result.ResultVar, rec.Result.ArgsVar)
	}
	if want := []executor.Decision{{Approved: true, By: e2eRequester}}; !reflect.DeepEqual(rec.Result.Decisions, want) {
		t.Errorf("Deploy decisions = %+v, want %+v", rec.Result.Decisions, want)
	}
	// The cached arguments are the expanded ones.
	if v, _ := r.x.Vars().Get("Deploy_call_deploy_args"); !strings.Contains(v.Value, `"version":"v2.7.1"`) {
		t.Errorf("Deploy_call_deploy_args = %s, want the expanded version", v.Value)
	}
	content := r.res.Content()
	if got := strings.Count(content, "✓ Success"); got != 4 {
		t.Errorf("content has %d ✓ Success, want 4", got)
	}
	if !strings.Contains(r.res.ToolChainContent, "$VAR_REF{{Deploy_call_deploy_result}}") {
		t.Errorf("hint lacks Deploy's result variable:\n%s", r.res.ToolChainContent)
	}
	golden(t, "chain_e2e_approved.golden", content)
}

func TestChainEndToEndRejected(t *testing.T) {
	r := runScenario(t, executor.Decision{Approved: false, Reason: rejectWhy, By: e2eRequester})
	deployMsg := r.check(t)

	var msg struct {
		Status  string `json:"status"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal([]byte(deployMsg), &msg); err != nil {
		t.Fatalf("Deploy tool message %q: %v", deployMsg, err)
	}
	if msg.Status != "rejected" || !strings.Contains(msg.Message, rejectWhy) {
		t.Errorf("Deploy tool message = %s, want status rejected with a message containing %q", deployMsg, rejectWhy)
	}
	if len(r.deploys) != 0 {
		t.Errorf("Deploy ran %d times after a rejection", len(r.deploys))
	}
	rec := r.res.History[3]
	if rec.Result.Status != executor.StatusExecutionRejected || rec.Result.RejectReason != rejectWhy {
		t.Errorf("Deploy result = %s (%q), want %s (%q)", rec.Result.Status, rec.Result.RejectReason, executor.StatusExecutionRejected, rejectWhy)
	}
	if rec.Result.ResultVar != "" || rec.Result.ArgsVar != "" {
		t.Errorf("rejected Deploy cached as %q/%q", rec.Result.ResultVar, rec.Result.ArgsVar)
	}
	content := r.res.Content()
	if got := strings.Count(content, "✓ Success"); got != 3 {
		t.Errorf("content has %d ✓ Success, want 3", got)
	}
	if want := "**[Tool Execution Log]**: Deploy\n```accesslog\nArguments: "; !strings.Contains(content, want) {
		t.Errorf("content lacks %q", want)
	}
	if want := "Status: ⚠️ Rejected\n\n" + rejectWhy + "\n```"; !strings.Contains(content, want) {
		t.Errorf("content lacks %q:\n%s", want, content[r.res.HintSize():])
	}
	if strings.Contains(r.res.ToolChainContent, "Deploy_call_deploy") {
		t.Errorf("hint names variables of the rejected Deploy:\n%s", r.res.ToolChainContent)
	}
	golden(t, "chain_e2e_rejected.golden", content)
}

// golden compares got with testdata/name; go test -update rewrites it.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

package fakeopenai

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// post sends a chat-completions body and returns the response.
func post(t *testing.T, s *Server, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// events reads a server-sent event stream: the data of each event, checking
// that every event is one "data: " line followed by a blank line.
func events(t *testing.T, r io.Reader) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("line %q: want a data line", line)
		}
		out = append(out, data)
		if !sc.Scan() || sc.Text() != "" {
			t.Fatalf("event %q not followed by a blank line", data)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

const streamBody = `{"model":"m1","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`

func TestStreamWireFormat(t *testing.T) {
	s := New(t)
	s.Reply(Response{
		Content:   "Hello, wörld",
		ToolCalls: []ToolCall{{ID: "call_a", Name: "search", Arguments: `{"q":"go"}`}, {Name: "read", Arguments: `{}`}},
		Usage:     &Usage{PromptTokens: 7, CompletionTokens: 5, TotalTokens: 12},
		ChunkSize: 3,
	})
	resp := post(t, s, streamBody)
	if got := resp.Header.Get("Content-Type"); got != "text/event-stream" {
		t.Fatalf("Content-Type = %q", got)
	}
	evs := events(t, resp.Body)
	if evs[len(evs)-1] != "[DONE]" {
		t.Fatalf("last event = %q, want [DONE]", evs[len(evs)-1])
	}

	type rawChunk struct {
		Object  string          `json:"object"`
		Model   string          `json:"model"`
		Usage   json.RawMessage `json:"usage"`
		Choices []struct {
			Delta struct {
				Content   *string                      `json:"content"`
				ToolCalls []map[string]json.RawMessage `json:"tool_calls"`
			} `json:"delta"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
	}
	var (
		content    strings.Builder
		toolDeltas []map[string]json.RawMessage
		finish     string
		usage      string
	)
	chunks := evs[:len(evs)-1]
	for i, ev := range chunks {
		var c rawChunk
		if err := json.Unmarshal([]byte(ev), &c); err != nil {
			t.Fatalf("chunk %d %q: %v", i, ev, err)
		}
		if c.Object != "chat.completion.chunk" || c.Model != "m1" {
			t.Errorf("chunk %d: object %q model %q", i, c.Object, c.Model)
		}
		if i < len(chunks)-1 {
			if string(c.Usage) != "null" {
				t.Errorf("chunk %d: usage = %s, want null before the last chunk", i, c.Usage)
			}
			if len(c.Choices) != 1 {
				t.Fatalf("chunk %d: %d choices", i, len(c.Choices))
			}
		} else {
			usage = string(c.Usage)
			if len(c.Choices) != 0 {
				t.Errorf("usage chunk has %d choices, want 0", len(c.Choices))
			}
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content != nil {
				content.WriteString(*ch.Delta.Content)
			}
			toolDeltas = append(toolDeltas, ch.Delta.ToolCalls...)
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
		}
	}
	if got := content.String(); got != "Hello, wörld" {
		t.Errorf("content = %q", got)
	}
	if finish != "tool_calls" {
		t.Errorf("finish_reason = %q, want tool_calls", finish)
	}
	if want := `{"prompt_tokens":7,"completion_tokens":5,"total_tokens":12}`; usage != want {
		t.Errorf("usage = %s, want %s", usage, want)
	}

	// Headers carry index, id, type and name; fragments only index and arguments.
	var keys []string
	args := map[string]string{}
	for _, d := range toolDeltas {
		var k []string
		for _, key := range []string{"index", "id", "type", "function"} {
			if _, ok := d[key]; ok {
				k = append(k, key)
			}
		}
		var fn struct{ Name, Arguments string }
		json.Unmarshal(d["function"], &fn)
		if fn.Name != "" {
			k = append(k, "name")
		}
		keys = append(keys, strings.Join(k, ","))
		args[string(d["index"])] += fn.Arguments
	}
	wantKeys := []string{
		"index,id,type,function,name", "index,function", "index,function", "index,function", "index,function",
		"index,id,type,function,name", "index,function",
	}
	if !reflect.DeepEqual(keys, wantKeys) {
		t.Errorf("tool-call delta keys = %q, want %q", keys, wantKeys)
	}
	if args["0"] != `{"q":"go"}` || args["1"] != `{}` {
		t.Errorf("arguments by index = %q", args)
	}
	if !strings.Contains(toolDeltasJSON(toolDeltas), `"id":"call_1"`) {
		t.Errorf("second call got no generated id: %s", toolDeltasJSON(toolDeltas))
	}
}

func toolDeltasJSON(ds []map[string]json.RawMessage) string {
	b, _ := json.Marshal(ds)
	return string(b)
}

func TestStreamWithoutIndex(t *testing.T) {
	s := New(t)
	s.Reply(Response{
		ToolCalls:           []ToolCall{{ID: "a", Name: "x", Arguments: `{"k":1}`}, {ID: "b", Name: "y", Arguments: `{"k":2}`}},
		ChunkSize:           2,
		OmitToolCallIndex:   true,
		InterleaveToolCalls: true,
	})
	resp := post(t, s, `{"model":"m","stream":true,"messages":[]}`)
	var order []string
	for _, ev := range events(t, resp.Body) {
		if ev == "[DONE]" {
			continue
		}
		if strings.Contains(ev, `"usage"`) {
			t.Errorf("usage present without include_usage: %s", ev)
		}
		var c struct {
			Choices []struct {
				Delta struct {
					ToolCalls []map[string]json.RawMessage `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		json.Unmarshal([]byte(ev), &c)
		for _, d := range c.Choices[0].Delta.ToolCalls {
			if _, ok := d["index"]; ok {
				t.Errorf("delta has an index: %v", d)
			}
			var id string
			json.Unmarshal(d["id"], &id)
			order = append(order, id)
		}
	}
	// A header and four fragments of two characters each, alternating.
	if want := []string{"a", "b", "a", "b", "a", "b", "a", "b", "a", "b"}; !reflect.DeepEqual(order, want) {
		t.Errorf("interleaved ids = %q, want %q", order, want)
	}
}

func TestNonStreaming(t *testing.T) {
	s := New(t)
	s.Reply(Response{ToolCalls: []ToolCall{{Name: "f", Arguments: `{}`}}})
	resp := post(t, s, `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	var got struct {
		Object  string `json:"object"`
		Choices []struct {
			Message struct {
				Content   *string `json:"content"`
				ToolCalls []struct {
					ID       string `json:"id"`
					Type     string `json:"type"`
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage Usage `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	c := got.Choices[0]
	if got.Object != "chat.completion" || c.Message.Content != nil || c.FinishReason != "tool_calls" ||
		len(c.Message.ToolCalls) != 1 || c.Message.ToolCalls[0].ID != "call_0" || c.Message.ToolCalls[0].Type != "function" {
		t.Errorf("completion = %+v", got)
	}
	if got.Usage.TotalTokens != got.Usage.PromptTokens+got.Usage.CompletionTokens || got.Usage.TotalTokens == 0 {
		t.Errorf("estimated usage = %+v", got.Usage)
	}
}

func TestEmptyScriptIs500(t *testing.T) {
	s := New(t)
	resp := post(t, s, streamBody)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(body), "script is empty and no handler is set") {
		t.Errorf("got %d %s", resp.StatusCode, body)
	}
}

func TestErrorReply(t *testing.T) {
	s := New(t)
	s.Reply(Response{Status: http.StatusTooManyRequests, RetryAfter: "2", ErrorMessage: "slow down"})
	resp := post(t, s, streamBody)
	var got struct {
		Error struct{ Message, Type, Code string }
	}
	json.NewDecoder(resp.Body).Decode(&got)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" ||
		got.Error.Message != "slow down" || got.Error.Type != "rate_limit_error" || got.Error.Code != "rate_limit_exceeded" {
		t.Errorf("got %d %v %+v", resp.StatusCode, resp.Header, got)
	}
}

func TestHandlerAndRecording(t *testing.T) {
	s := New(t)
	s.Reply(Response{Content: "scripted first"})
	s.SetHandler(func(req Request) Response {
		if req.LastMessage().Role == "tool" {
			return Response{Content: "answer from " + req.LastMessage().Content}
		}
		return Response{ToolCalls: []ToolCall{{Name: "lookup", Arguments: `{}`}}}
	})
	bodies := []string{
		`{"model":"m","messages":[{"role":"user","content":"q"}]}`,
		`{"model":"m","messages":[{"role":"user","content":"q"}],"tools":[{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}}],"tool_choice":"auto","temperature":0}`,
		`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"q"}]},` +
			`{"role":"assistant","content":null,"tool_calls":[{"id":"call_0","type":"function","function":{"name":"lookup","arguments":"{}"}}]},` +
			`{"role":"tool","tool_call_id":"call_0","content":"42"}]}`,
	}
	var answers []string
	for _, b := range bodies {
		resp := post(t, s, b)
		var got struct {
			Choices []struct {
				Message struct {
					Content   string
					ToolCalls []json.RawMessage `json:"tool_calls"`
				}
			}
		}
		json.NewDecoder(resp.Body).Decode(&got)
		m := got.Choices[0].Message
		answers = append(answers, m.Content+strings.Repeat("+call", len(m.ToolCalls)))
	}
	if want := []string{"scripted first", "+call", "answer from 42"}; !reflect.DeepEqual(answers, want) {
		t.Errorf("answers = %q, want %q", answers, want)
	}

	reqs := s.Requests()
	if len(reqs) != 3 || reqs[2].Seq != 3 {
		t.Fatalf("recorded %d requests", len(reqs))
	}
	r1 := reqs[1]
	if r1.ToolChoice != "auto" || r1.Temperature == nil || *r1.Temperature != 0 ||
		len(r1.Tools) != 1 || r1.Tools[0].Function.Name != "lookup" || string(r1.Tools[0].Function.Parameters) != `{"type":"object"}` {
		t.Errorf("request 2 = %+v", r1)
	}
	if reqs[0].Temperature != nil {
		t.Errorf("absent temperature recorded as %v", *reqs[0].Temperature)
	}
	wantMsgs := []Message{
		{Role: "user", Content: "q"},
		{Role: "assistant", ToolCalls: []ToolCall{{ID: "call_0", Type: "function", Name: "lookup", Arguments: "{}"}}},
		{Role: "tool", ToolCallID: "call_0", Content: "42"},
	}
	if !reflect.DeepEqual(reqs[2].Messages, wantMsgs) {
		t.Errorf("messages = %+v, want %+v", reqs[2].Messages, wantMsgs)
	}
	if string(reqs[0].Raw) != bodies[0] || reqs[0].Header.Get("Content-Type") != "application/json" {
		t.Errorf("raw = %s, header = %v", reqs[0].Raw, reqs[0].Header)
	}
	if s.Pending() != 0 {
		t.Errorf("Pending = %d", s.Pending())
	}
}

func TestBadJSONIs400(t *testing.T) {
	s := New(t)
	s.Reply(Response{Content: "unused"})
	resp := post(t, s, `{"model":`)
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("status = %d", resp.StatusCode)
	}
	if s.Pending() != 1 || len(s.Requests()) != 1 {
		t.Errorf("pending %d, recorded %d", s.Pending(), len(s.Requests()))
	}
}

func TestModels(t *testing.T) {
	s := New(t)
	s.SetModels("a", "b")
	resp, err := http.Get(s.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct {
		Data []struct{ ID string }
	}
	json.NewDecoder(resp.Body).Decode(&got)
	if len(got.Data) != 2 || got.Data[0].ID != "a" || got.Data[1].ID != "b" {
		t.Errorf("models = %+v", got)
	}
}

func TestSplitKeepsRunes(t *testing.T) {
	got := split("añb€c", 2)
	if want := []string{"añ", "b€", "c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("split = %q, want %q", got, want)
	}
}

package fakeopenai

import (
	"encoding/json"
	"fmt"
	"net/http"
	"unicode/utf8"
)

// created is the fixed "created" timestamp of every reply, so recorded
// transcripts are stable.
const created = 1700000000

type chunk struct {
	ID                string          `json:"id"`
	Object            string          `json:"object"`
	Created           int64           `json:"created"`
	Model             string          `json:"model"`
	SystemFingerprint string          `json:"system_fingerprint"`
	Choices           []chunkChoice   `json:"choices"`
	Usage             json.RawMessage `json:"usage,omitempty"`
}

type chunkChoice struct {
	Index        int       `json:"index"`
	Delta        delta     `json:"delta"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

type delta struct {
	Role      string          `json:"role,omitempty"`
	Content   *string         `json:"content,omitempty"`
	ToolCalls []toolCallDelta `json:"tool_calls,omitempty"`
}

type toolCallDelta struct {
	Index    *int          `json:"index,omitempty"`
	ID       string        `json:"id,omitempty"`
	Type     string        `json:"type,omitempty"`
	Function functionDelta `json:"function"`
}

type functionDelta struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// stream writes resp as server-sent events, honouring HangAfterChunks and
// DropAfterChunks.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, req Request, resp Response) {
	chunks := chunks(req, resp)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	for i, c := range chunks {
		b, err := json.Marshal(c)
		if err != nil {
			panic(fmt.Sprintf("fakeopenai: marshal chunk: %v", err))
		}
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
		switch n := i + 1; {
		case n == resp.HangAfterChunks:
			s.hang(r)
			return
		case n == resp.DropAfterChunks:
			// The server recovers this panic silently and closes the
			// connection mid-body; the client sees an unexpected EOF.
			panic(http.ErrAbortHandler)
		}
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

// chunks builds the stream of chunks for resp: the role, content pieces,
// tool-call pieces, the finish reason and, if asked for, usage.
func chunks(req Request, resp Response) []chunk {
	model := replyModel(req, resp)
	base := chunk{
		ID:                fmt.Sprintf("chatcmpl-fake-%d", req.Seq),
		Object:            "chat.completion.chunk",
		Created:           created,
		Model:             model,
		SystemFingerprint: "fp_fake",
	}
	if req.IncludeUsage {
		base.Usage = json.RawMessage("null")
	}
	choice := func(d delta, finish *string) chunk {
		c := base
		c.Choices = []chunkChoice{{Delta: d, FinishReason: finish}}
		return c
	}

	first := delta{Role: "assistant"}
	if resp.Content != "" || len(resp.ToolCalls) == 0 {
		first.Content = new(string)
	}
	out := []chunk{choice(first, nil)}
	size := resp.ChunkSize
	if size <= 0 {
		size = 4
	}
	for _, piece := range split(resp.Content, size) {
		out = append(out, choice(delta{Content: &piece}, nil))
	}
	for _, d := range toolCallDeltas(resp, size) {
		out = append(out, choice(delta{ToolCalls: []toolCallDelta{d}}, nil))
	}
	finish := finishReason(resp)
	out = append(out, choice(delta{}, &finish))
	if req.IncludeUsage {
		u, err := json.Marshal(replyUsage(req, resp))
		if err != nil {
			panic(fmt.Sprintf("fakeopenai: marshal usage: %v", err))
		}
		c := base
		c.Choices = []chunkChoice{}
		c.Usage = u
		out = append(out, c)
	}
	return out
}

// toolCallDeltas splits every call into a header delta (index, id, type,
// name) and argument fragments, in call order or interleaved.
func toolCallDeltas(resp Response, size int) []toolCallDelta {
	var perCall [][]toolCallDelta
	for i, tc := range resp.ToolCalls {
		id, index := callID(tc, i), &i
		if resp.OmitToolCallIndex {
			index = nil
		}
		ds := []toolCallDelta{{Index: index, ID: id, Type: "function", Function: functionDelta{Name: tc.Name}}}
		for _, frag := range split(tc.Arguments, size) {
			d := toolCallDelta{Index: index, Function: functionDelta{Arguments: frag}}
			if resp.OmitToolCallIndex {
				d.ID = id
			}
			ds = append(ds, d)
		}
		perCall = append(perCall, ds)
	}
	var out []toolCallDelta
	if !resp.InterleaveToolCalls {
		for _, ds := range perCall {
			out = append(out, ds...)
		}
		return out
	}
	for k := 0; ; k++ {
		more := false
		for _, ds := range perCall {
			if k < len(ds) {
				out = append(out, ds[k])
				more = true
			}
		}
		if !more {
			return out
		}
	}
}

// completion builds the non-streaming chat.completion object for resp.
func completion(req Request, resp Response) any {
	type function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type toolCall struct {
		ID       string   `json:"id"`
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	type message struct {
		Role      string     `json:"role"`
		Content   *string    `json:"content"`
		ToolCalls []toolCall `json:"tool_calls,omitempty"`
	}
	type choice struct {
		Index        int       `json:"index"`
		Message      message   `json:"message"`
		Logprobs     *struct{} `json:"logprobs"`
		FinishReason string    `json:"finish_reason"`
	}
	msg := message{Role: "assistant"}
	if resp.Content != "" || len(resp.ToolCalls) == 0 {
		msg.Content = &resp.Content
	}
	for i, tc := range resp.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, toolCall{ID: callID(tc, i), Type: "function", Function: function{Name: tc.Name, Arguments: tc.Arguments}})
	}
	return struct {
		ID                string   `json:"id"`
		Object            string   `json:"object"`
		Created           int64    `json:"created"`
		Model             string   `json:"model"`
		SystemFingerprint string   `json:"system_fingerprint"`
		Choices           []choice `json:"choices"`
		Usage             Usage    `json:"usage"`
	}{
		ID:                fmt.Sprintf("chatcmpl-fake-%d", req.Seq),
		Object:            "chat.completion",
		Created:           created,
		Model:             replyModel(req, resp),
		SystemFingerprint: "fp_fake",
		Choices:           []choice{{Message: msg, FinishReason: finishReason(resp)}},
		Usage:             replyUsage(req, resp),
	}
}

func callID(tc ToolCall, i int) string {
	if tc.ID != "" {
		return tc.ID
	}
	return fmt.Sprintf("call_%d", i)
}

func replyModel(req Request, resp Response) string {
	switch {
	case resp.Model != "":
		return resp.Model
	case req.Model != "":
		return req.Model
	default:
		return DefaultModel
	}
}

func finishReason(resp Response) string {
	switch {
	case resp.FinishReason != "":
		return resp.FinishReason
	case len(resp.ToolCalls) > 0:
		return "tool_calls"
	default:
		return "stop"
	}
}

// replyUsage returns resp.Usage or an estimate of one token per four
// characters (at least one token each way).
func replyUsage(req Request, resp Response) Usage {
	if resp.Usage != nil {
		return *resp.Usage
	}
	in := 0
	for _, m := range req.Messages {
		in += utf8.RuneCountInString(m.Content)
		for _, tc := range m.ToolCalls {
			in += utf8.RuneCountInString(tc.Arguments)
		}
	}
	out := utf8.RuneCountInString(resp.Content)
	for _, tc := range resp.ToolCalls {
		out += utf8.RuneCountInString(tc.Arguments)
	}
	u := Usage{PromptTokens: max(1, in/4), CompletionTokens: max(1, out/4)}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

// split cuts s into pieces of at most n runes.
func split(s string, n int) []string {
	var out []string
	for s != "" {
		i, count := 0, 0
		for i < len(s) && count < n {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
			count++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

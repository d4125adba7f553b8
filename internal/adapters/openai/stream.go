package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	oai "github.com/sashabaranov/go-openai"

	"github.com/threadbot/threadbot/internal/core/llm"
)

// rawStream is the part of go-openai's stream the client reads: the data
// of one server-sent event at a time, io.EOF after "data: [DONE]".
type rawStream interface {
	RecvRaw() ([]byte, error)
}

// readStream reads s to the end, passing deltas to emit, and returns the
// assembled response. A chunk that is not valid JSON is an ErrStream error;
// read errors are returned as they are, for the caller to classify.
func readStream(s rawStream, emit func(llm.Delta)) (llm.Response, error) {
	acc := newAccumulator(emit)
	for {
		raw, err := s.RecvRaw()
		if errors.Is(err, io.EOF) {
			return acc.response()
		}
		if err != nil {
			return llm.Response{}, err
		}
		var chunk oai.ChatCompletionStreamResponse
		if err := json.Unmarshal(raw, &chunk); err != nil {
			return llm.Response{}, fmt.Errorf("%w: malformed chunk %.80q: %v", ErrStream, raw, err)
		}
		acc.add(chunk)
	}
}

// accumulator assembles a response from stream chunks.
type accumulator struct {
	emit func(llm.Delta)

	content   strings.Builder
	calls     []*callBuilder
	byIndex   map[int]*callBuilder
	byID      map[string]*callBuilder
	last      *callBuilder // the call that received the latest fragment
	finish    string
	usage     llm.Usage
	model     string
	sawChoice bool
}

// callBuilder assembles one tool call.
type callBuilder struct {
	index int
	id    string
	name  string
	args  strings.Builder
}

func newAccumulator(emit func(llm.Delta)) *accumulator {
	return &accumulator{emit: emit, byIndex: map[int]*callBuilder{}, byID: map[string]*callBuilder{}}
}

// add takes in one chunk. Only the first choice (index 0) is read; the
// client never asks for more.
func (a *accumulator) add(chunk oai.ChatCompletionStreamResponse) {
	if a.model == "" {
		a.model = chunk.Model
	}
	if u := chunk.Usage; u != nil {
		a.usage = llm.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	}
	for _, choice := range chunk.Choices {
		if choice.Index != 0 {
			continue
		}
		a.sawChoice = true
		// A refusal is the model's answer in words; the person asking
		// should see it like any other text.
		if text := choice.Delta.Content + choice.Delta.Refusal; text != "" {
			a.content.WriteString(text)
			a.emit(llm.Delta{Content: text})
		}
		for _, tc := range choice.Delta.ToolCalls {
			a.addToolCall(tc)
		}
		if choice.FinishReason != "" && choice.FinishReason != oai.FinishReasonNull {
			a.finish = string(choice.FinishReason)
		}
	}
}

// addToolCall merges one tool-call fragment: the name is assigned (and
// announced the first time it is known), the arguments are appended.
func (a *accumulator) addToolCall(tc oai.ToolCall) {
	call := a.lookup(tc)
	a.last = call
	if tc.ID != "" && call.id == "" {
		call.id = tc.ID
		a.byID[tc.ID] = call
	}
	if name := tc.Function.Name; name != "" {
		announce := call.name == ""
		call.name = name
		if announce {
			a.emit(llm.Delta{ToolCallIndex: call.index, ToolCallName: name})
		}
	}
	call.args.WriteString(tc.Function.Arguments)
}

// lookup finds the call a fragment belongs to, by index, else by id, else
// the latest call, creating it when it is new.
func (a *accumulator) lookup(tc oai.ToolCall) *callBuilder {
	if tc.Index != nil {
		if call, ok := a.byIndex[*tc.Index]; ok {
			return call
		}
		return a.newCall(*tc.Index)
	}
	if tc.ID != "" {
		if call, ok := a.byID[tc.ID]; ok {
			return call
		}
		return a.newCall(a.nextIndex())
	}
	if a.last != nil {
		return a.last
	}
	return a.newCall(a.nextIndex())
}

func (a *accumulator) newCall(index int) *callBuilder {
	call := &callBuilder{index: index}
	a.calls = append(a.calls, call)
	a.byIndex[index] = call
	return call
}

// nextIndex is the index given to a call the server sent without one.
func (a *accumulator) nextIndex() int {
	next := 0
	for _, c := range a.calls {
		next = max(next, c.index+1)
	}
	return next
}

// response returns the assembled response: tool calls in index order, each
// with an id. It returns ErrEmptyResponse when no chunk carried a choice.
func (a *accumulator) response() (llm.Response, error) {
	if !a.sawChoice {
		return llm.Response{}, ErrEmptyResponse
	}
	resp := llm.Response{
		Content:      a.content.String(),
		FinishReason: a.finish,
		Usage:        a.usage,
		Model:        a.model,
	}
	calls := slices.Clone(a.calls)
	slices.SortStableFunc(calls, func(x, y *callBuilder) int { return x.index - y.index })
	for _, c := range calls {
		id := c.id
		if id == "" {
			id = fmt.Sprintf("call_%d", c.index)
		}
		resp.ToolCalls = append(resp.ToolCalls, llm.ToolCall{ID: id, Name: c.name, Arguments: c.args.String()})
	}
	return resp, nil
}

package openai

import (
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/threadbot/threadbot/internal/core/llm"
)

// chunks is a rawStream over fixed event data.
type chunks []string

func (c *chunks) RecvRaw() ([]byte, error) {
	if len(*c) == 0 {
		return nil, io.EOF
	}
	next := (*c)[0]
	*c = (*c)[1:]
	return []byte(next), nil
}

func TestReadStream(t *testing.T) {
	tests := []struct {
		name       string
		chunks     []string
		want       llm.Response
		wantDeltas []llm.Delta
		wantErr    error
	}{
		{
			name: "fragments without index or id join the latest call",
			chunks: []string{
				`{"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":":1}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			},
			want: llm.Response{Model: "m", FinishReason: "tool_calls",
				ToolCalls: []llm.ToolCall{{ID: "c1", Name: "f", Arguments: `{"a":1}`}}},
			wantDeltas: []llm.Delta{{ToolCallIndex: 0, ToolCallName: "f"}},
		},
		{
			name: "indices out of order, repeated name announced once, missing id generated",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"name":"second","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"first_id","function":{"name":"first","arguments":"{\"x\":"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"first","arguments":"2}"}}]}}]}`,
			},
			want: llm.Response{ToolCalls: []llm.ToolCall{
				{ID: "first_id", Name: "first", Arguments: `{"x":2}`},
				{ID: "call_1", Name: "second", Arguments: `{}`},
			}},
			wantDeltas: []llm.Delta{{ToolCallIndex: 1, ToolCallName: "second"}, {ToolCallIndex: 0, ToolCallName: "first"}},
		},
		{
			name: "usage chunk, null finish reason, refusal, other choices ignored",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}`,
				`{"choices":[{"index":0,"delta":{"refusal":"I can't help with that."},"finish_reason":null}],"usage":null}`,
				`{"choices":[{"index":1,"delta":{"content":"other"}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}`,
				`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}`,
			},
			want: llm.Response{Content: "I can't help with that.", FinishReason: "stop",
				Usage: llm.Usage{PromptTokens: 3, CompletionTokens: 4, TotalTokens: 7}},
			wantDeltas: []llm.Delta{{Content: "I can't help with that."}},
		},
		{
			name:    "usage only is empty",
			chunks:  []string{`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":0,"total_tokens":3}}`},
			wantErr: ErrEmptyResponse,
		},
		{
			name:    "not JSON",
			chunks:  []string{`{"choices":[`},
			wantErr: ErrStream,
		},
		{
			name:    "wrong JSON type",
			chunks:  []string{`{"choices":"nope"}`},
			wantErr: ErrStream,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var deltas []llm.Delta
			s := chunks(tt.chunks)
			got, err := readStream(&s, func(d llm.Delta) { deltas = append(deltas, d) })
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("response = %+v\nwant %+v", got, tt.want)
			}
			if !reflect.DeepEqual(deltas, tt.wantDeltas) {
				t.Errorf("deltas = %+v, want %+v", deltas, tt.wantDeltas)
			}
		})
	}
}

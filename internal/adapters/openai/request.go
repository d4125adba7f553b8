package openai

import (
	"bytes"
	"encoding/json"
	"fmt"

	oai "github.com/sashabaranov/go-openai"

	"github.com/threadbot/threadbot/internal/core/llm"
)

// emptyParameters is the schema sent for a tool without parameters; OpenAI
// refuses "parameters": null.
var emptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// chatRequest translates req into go-openai's request. zeroTemperature
// reports an explicit temperature of 0, which go-openai would drop and
// recorder puts back.
func (c *Client) chatRequest(req llm.Request) (creq oai.ChatCompletionRequest, zeroTemperature bool, err error) {
	creq.Model = req.Model
	if creq.Model == "" {
		creq.Model = c.opts.Model
	}
	if creq.Model == "" {
		return creq, false, fmt.Errorf("%w: no model in the request or the client options", ErrInvalidRequest)
	}
	creq.Stream = true
	creq.StreamOptions = &oai.StreamOptions{IncludeUsage: true}

	creq.Messages = make([]oai.ChatCompletionMessage, 0, len(req.Messages))
	for _, m := range req.Messages {
		creq.Messages = append(creq.Messages, chatMessage(m))
	}

	for _, t := range req.Tools {
		params := t.Parameters
		if len(bytes.TrimSpace(params)) == 0 {
			params = emptyParameters
		} else if !json.Valid(params) {
			return creq, false, fmt.Errorf("%w: tool %q: parameters are not valid JSON", ErrInvalidRequest, t.Name)
		}
		creq.Tools = append(creq.Tools, oai.Tool{
			Type: oai.ToolTypeFunction,
			Function: &oai.FunctionDefinition{
				Name:        t.Name,
				Description: t.Description,
				Parameters:  params,
			},
		})
	}
	if req.ToolChoice != "" {
		creq.ToolChoice = req.ToolChoice
	}

	if req.Temperature != nil {
		creq.Temperature = *req.Temperature
		zeroTemperature = *req.Temperature == 0
	}
	if c.opts.LegacyMaxTokens {
		creq.MaxTokens = req.MaxTokens
	} else {
		creq.MaxCompletionTokens = req.MaxTokens
	}
	return creq, zeroTemperature, nil
}

// chatMessage translates one message.
func chatMessage(m llm.Message) oai.ChatCompletionMessage {
	cm := oai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content}
	if m.Role == llm.RoleTool {
		// OpenAI identifies the answered call by tool_call_id; "name" is
		// not part of a tool message there, so it is not sent.
		cm.ToolCallID = m.ToolCallID
	} else {
		cm.Name = m.Name
	}
	for _, tc := range m.ToolCalls {
		args := tc.Arguments
		if args == "" {
			// "arguments" is required; a call the model made without
			// any is replayed as an empty object.
			args = "{}"
		}
		cm.ToolCalls = append(cm.ToolCalls, oai.ToolCall{
			ID:       tc.ID,
			Type:     oai.ToolTypeFunction,
			Function: oai.FunctionCall{Name: tc.Name, Arguments: args},
		})
	}
	return cm
}

package chain

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/core/llm"
)

//go:embed prompts/final.md
var finalPrompt string

// Turn makes the first request of a turn with the executor's tools and, if
// the model asks for tools, runs the chain. It returns an error only when a
// model request failed; the Result then holds what was done.
func Turn(ctx context.Context, m Model, x *executor.Executor, opts Options) (*Result, error) {
	st := &Checkpoint{
		Version:    checkpointVersion,
		Messages:   append([]llm.Message(nil), opts.Context...),
		ContextLen: len(opts.Context),
		Started:    opts.now(),
	}
	r := &runner{m: m, x: x, opts: opts, st: st}
	resp, err := r.complete(ctx, x.Definitions(), "")
	if err != nil {
		return r.finish(ctx, err), err
	}
	return r.accept(ctx, resp)
}

// Run runs the chain from the first model response that has tool calls
// (seed 004's executeToolChain). opts.Context is the conversation the
// response answers.
func Run(ctx context.Context, m Model, x *executor.Executor, first llm.Response, opts Options) (*Result, error) {
	st := &Checkpoint{
		Version:    checkpointVersion,
		Messages:   append([]llm.Message(nil), opts.Context...),
		ContextLen: len(opts.Context),
		Started:    opts.now(),
	}
	r := &runner{m: m, x: x, opts: opts, st: st}
	return r.accept(ctx, first)
}

// Resume continues a chain from a checkpoint; opts.Context is ignored.
func Resume(ctx context.Context, m Model, x *executor.Executor, cp *Checkpoint, opts Options) (*Result, error) {
	r := &runner{m: m, x: x, opts: opts, st: cp.clone()}
	return r.loop(ctx)
}

type runner struct {
	m    Model
	x    *executor.Executor
	opts Options
	st   *Checkpoint
	// stopReason is set when the chain must ask for a final answer.
	stopReason string
}

// accept records a model response and continues the loop.
func (r *runner) accept(ctx context.Context, resp llm.Response) (*Result, error) {
	r.st.Messages = append(r.st.Messages, resp.Message())
	if len(resp.ToolCalls) > 0 {
		r.st.Round++
		r.st.RoundUsage = append(r.st.RoundUsage, resp.Usage)
		r.st.Pending = resp.ToolCalls
		return r.loop(ctx)
	}
	if strings.TrimSpace(resp.Content) == "" && len(r.st.History) > 0 {
		r.stopReason = "your last reply was empty"
		return r.final(ctx)
	}
	return r.finish(ctx, nil), nil
}

func (r *runner) loop(ctx context.Context) (*Result, error) {
	for {
		for len(r.st.Pending) > 0 {
			if ctx.Err() != nil {
				r.closePending("the turn was stopped before this call ran")
				return r.finish(ctx, nil), nil
			}
			r.runCall(ctx, r.st.Pending[0])
			r.st.Pending = r.st.Pending[1:]
		}
		if ctx.Err() != nil {
			return r.finish(ctx, nil), nil
		}
		resp, err := r.complete(ctx, r.x.Definitions(), "")
		if err != nil {
			return r.finish(ctx, err), err
		}
		r.st.Messages = append(r.st.Messages, resp.Message())
		if len(resp.ToolCalls) == 0 {
			if strings.TrimSpace(resp.Content) == "" {
				r.stopReason = "your last reply was empty"
				return r.final(ctx)
			}
			return r.finish(ctx, nil), nil
		}
		if r.st.Round >= r.opts.maxRounds() {
			r.st.Pending = resp.ToolCalls
			r.closePending(fmt.Sprintf("not executed: the limit of %d tool rounds was reached", r.opts.maxRounds()))
			r.stopReason = fmt.Sprintf("it reached the limit of %d tool rounds", r.opts.maxRounds())
			return r.final(ctx)
		}
		r.st.Round++
		r.st.RoundUsage = append(r.st.RoundUsage, resp.Usage)
		r.st.Pending = resp.ToolCalls
	}
}

// runCall executes one call and appends its tool message and history.
func (r *runner) runCall(ctx context.Context, call llm.ToolCall) {
	if cb := r.opts.Callbacks.OnCheckpoint; cb != nil {
		cb(r.st.clone())
	}
	rec := CallRecord{CallID: call.ID, Tool: call.Name, RawArgs: call.Arguments, Round: r.st.Round, Start: r.opts.now()}
	if n := len(r.st.RoundUsage); n > 0 {
		rec.Usage = r.st.RoundUsage[n-1]
	}
	args, perr := parseArgs(call.Arguments)
	rec.Args = args
	if cb := r.opts.Callbacks.OnToolCallStart; cb != nil {
		cb(call, args)
	}
	if perr != nil {
		rec.Result = executor.Result{
			CallID: call.ID, Tool: call.Name, Status: executor.StatusError,
			Error: perr.Error(), Text: "Error: " + perr.Error(),
		}
	} else {
		o := executor.CallOptions{
			CallID: call.ID, MessageID: r.opts.MessageID, Requester: r.opts.Requester,
			SkipResultApproval: r.opts.SkipResultApproval,
		}
		if cb := r.opts.Callbacks.OnProgress; cb != nil {
			o.Progress = func(title string, data map[string]any) { cb(call.ID, title, data) }
		}
		rec.Result = r.x.Execute(ctx, call.Name, args, o)
	}
	rec.End = r.opts.now()
	r.st.History = append(r.st.History, rec)
	r.st.Messages = append(r.st.Messages, llm.Message{
		Role: llm.RoleTool, ToolCallID: call.ID, Name: call.Name, Content: toolMessage(rec.Result),
	})
	if cb := r.opts.Callbacks.OnToolCallComplete; cb != nil {
		cb(rec)
	}
}

// toolMessage is the content of the tool message for a result: rejections
// as {status: rejected, message}, everything else the final text.
func toolMessage(res executor.Result) string {
	if res.Status.Rejected() {
		b, _ := json.Marshal(struct {
			Status  string `json:"status"`
			Message string `json:"message"`
		}{"rejected", res.Text})
		return string(b)
	}
	return res.Text
}

// closePending answers every call not executed with an "incomplete" tool
// message so the message sequence stays valid.
func (r *runner) closePending(why string) {
	for _, c := range r.st.Pending {
		b, _ := json.Marshal(struct {
			Status  string `json:"status"`
			Message string `json:"message"`
		}{"incomplete", why})
		r.st.Messages = append(r.st.Messages, llm.Message{
			Role: llm.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: string(b),
		})
	}
	r.st.Pending = nil
}

// final asks for a final answer without tools.
func (r *runner) final(ctx context.Context) (*Result, error) {
	msg := strings.ReplaceAll(strings.TrimSpace(finalPrompt), "{{REASON}}", r.stopReason)
	r.st.Messages = append(r.st.Messages, llm.Message{Role: llm.RoleUser, Content: msg})
	resp, err := r.complete(ctx, r.x.Definitions(), llm.ToolChoiceNone)
	if err != nil {
		return r.finish(ctx, err), err
	}
	resp.ToolCalls = nil // tools were refused; ignore a model that calls them anyway
	r.st.Messages = append(r.st.Messages, resp.Message())
	return r.finish(ctx, nil), nil
}

// complete sends the messages so far to the model.
func (r *runner) complete(ctx context.Context, tools []llm.ToolDefinition, choice string) (llm.Response, error) {
	req := r.opts.Request
	req.Messages = r.st.Messages
	if cb := r.opts.Callbacks.OnBeforeSend; cb != nil {
		if msgs := cb(append([]llm.Message(nil), r.st.Messages...)); msgs != nil {
			req.Messages = msgs
		}
	}
	req.Tools = tools
	req.ToolChoice = choice
	if len(tools) > 0 && choice == "" {
		req.ToolChoice = llm.ToolChoiceAuto
	}
	var onDelta func(llm.Delta)
	if cb := r.opts.Callbacks.OnText; cb != nil {
		onDelta = func(d llm.Delta) {
			if d.Content != "" {
				cb(d.Content)
			}
		}
	}
	resp, err := r.m.Complete(ctx, req, onDelta)
	r.st.Usage = r.st.Usage.Add(resp.Usage)
	if err != nil {
		return resp, fmt.Errorf("model request: %w", err)
	}
	return resp, nil
}

// finish builds the Result from the state.
func (r *runner) finish(ctx context.Context, err error) *Result {
	st := r.st
	res := &Result{
		Usage:      st.Usage,
		RoundUsage: st.RoundUsage,
		History:    st.History,
		Status:     StatusCompleted,
		Messages: Messages{
			Context:   st.Messages[:st.ContextLen:st.ContextLen],
			ToolChain: st.Messages[st.ContextLen:],
			Complete:  st.Messages,
		},
	}
	switch {
	case err != nil && errors.Is(err, context.DeadlineExceeded):
		res.Status, res.Error = StatusTimeout, err.Error()
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.Status, res.Error = StatusTimeout, context.Cause(ctx).Error()
	case ctx.Err() != nil:
		res.Status = StatusAborted
	case err != nil:
		res.Status, res.Error = StatusError, err.Error()
	}
	if n := len(res.Messages.ToolChain); n > 0 {
		last := res.Messages.ToolChain[n-1]
		if last.Role == llm.RoleAssistant && len(last.ToolCalls) == 0 {
			res.Final = last.Content
		}
	}
	res.Stats = Stats{Rounds: st.Round, Calls: len(st.History), Started: st.Started, Ended: r.opts.now()}
	res.Stats.Duration = res.Stats.Ended.Sub(res.Stats.Started)
	res.ToolChainContent = Hint(res.History)
	res.ResponseContent = Flow(res.Messages.ToolChain, res.History)
	return res
}

// parseArgs decodes the model's argument text; "" means no arguments.
func parseArgs(raw string) (map[string]any, error) {
	if strings.TrimSpace(raw) == "" {
		return map[string]any{}, nil
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		return nil, fmt.Errorf("the arguments are not a valid JSON object (%v); send the arguments as one JSON object", err)
	}
	if args == nil {
		args = map[string]any{}
	}
	return args, nil
}

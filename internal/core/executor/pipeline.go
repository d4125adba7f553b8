package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/threadbot/threadbot/internal/core/vars"
)

// CallOptions carries what Execute needs besides the tool name and
// arguments.
type CallOptions struct {
	// CallID is the model's tool-call id; it names the cached variables.
	CallID    string
	MessageID string
	Requester string
	// Progress receives live progress of the tool.
	Progress func(title string, data map[string]any)
	// SkipResultApproval skips step 10 (the seed's checkToolResults=false).
	SkipResultApproval bool
}

// Execute runs one call through the pipeline of DESIGN.md §3, in order:
// unknown tool; $VAR_REF resolution; schema validation; the tool's
// precheck; execution approval; run; format; truncate; cache; truncation
// hint; result approval.
// Problems are results for the model, never errors: Execute always returns a
// Result whose Text is what the model receives.
func (x *Executor) Execute(ctx context.Context, name string, args map[string]any, o CallOptions) Result {
	start := time.Now()
	r := x.execute(ctx, name, args, o)
	r.Duration = time.Since(start)
	return r
}

func (x *Executor) execute(ctx context.Context, name string, args map[string]any, o CallOptions) Result {
	r := Result{CallID: o.CallID, Tool: name, Args: args}
	// 1. Unknown (or disabled) tool.
	t, perm, ok := x.lookup(name)
	if !ok {
		r.Status = StatusNotFound
		r.Error = fmt.Sprintf("tool %q is not available; use only the tools you were given", name)
		r.Text = "Error: " + r.Error
		return r
	}
	if args == nil {
		args = map[string]any{}
	}
	// 2. Resolve $VAR_REF in every string value.
	resolved, err := x.vars.Resolve(map[string]any(args))
	if err != nil {
		return x.fail(r, fmt.Sprintf("resolve $VAR_REF: %v", err))
	}
	args, _ = resolved.(map[string]any)
	r.Args = args
	// The hidden limit argument belongs to the pipeline unless the tool
	// declares its own "limit" property.
	limit, hasLimit := 0, false
	toolArgs := args
	if _, err := t.compiled(); err == nil && !t.ownLimit {
		if v, ok := args["limit"]; ok {
			limit, hasLimit = toInt(v)
			toolArgs = make(map[string]any, len(args))
			for k, v := range args {
				if k != "limit" {
					toolArgs[k] = v
				}
			}
		}
	}
	// 3. Validate.
	if err := t.validate(toolArgs); err != nil {
		return x.fail(r, err.Error())
	}
	// 3b. Precheck: refusals that need no person, before anyone is asked.
	if t.Precheck != nil {
		if err := t.Precheck(toolArgs); err != nil {
			return x.fail(r, err.Error())
		}
	}
	summary := x.compressArgs(t, toolArgs)
	// 4. Execution approval.
	if perm.Execution != Auto {
		d, asked := x.approveExecution(ctx, t, perm, toolArgs, summary, o)
		if asked {
			r.Decisions = append(r.Decisions, d)
		}
		if !d.Approved {
			r.Status = StatusExecutionRejected
			r.RejectReason = orDefault(d.Reason, "rejected by the user")
			r.Text = "Execution rejected: " + r.RejectReason
			return r
		}
	}
	// 5. Run.
	call := Call{
		ID: o.CallID, SessionID: x.opts.SessionID, MessageID: o.MessageID,
		Sandbox: x.opts.Sandbox, Requester: o.Requester, progress: o.Progress,
	}
	call.ask = func(ctx context.Context, title, detail string) (Decision, error) {
		return x.ask(ctx, ApprovalRequest{
			Kind: KindPermission, SessionID: x.opts.SessionID, MessageID: o.MessageID,
			CallID: o.CallID, Tool: t.Name, Args: toolArgs, ArgsSummary: summary,
			Requester: o.Requester, Title: title, Result: detail,
		}), nil
	}
	out, runErr := x.safeRun(ctx, t, call, toolArgs)
	r.Title, r.Attachments, r.Data = out.Title, out.Attachments, out.Data
	if runErr != nil {
		r.Status = StatusError
		r.Error = runErr.Error()
		r.Formatted = "Error: " + r.Error
		r.Text = r.Formatted
	} else {
		r.Status = StatusSuccess
		// 6. Format.
		r.Formatted = format(t, out, toolArgs)
		// 7. Truncate.
		r.Text, r.Truncated, r.Omitted = x.truncate(t, r.Formatted, toolArgs, limit, hasLimit)
		// 8. Cache (not for the var tools), truncated or not.
		if !isVarTool(t.Name) {
			r.ResultVar, r.ArgsVar = x.cache(t.Name, o.CallID, r.Formatted, args)
		}
		// 9. Truncation hint.
		if r.Truncated {
			r.Text += truncationHint(r.ResultVar, r.Formatted, r.Text, r.Omitted)
		}
	}
	// 10. Result approval.
	if !o.SkipResultApproval && (perm.Result == Always || perm.Result == OnError && r.Status == StatusError) {
		d := x.ask(ctx, ApprovalRequest{
			Kind: KindResult, SessionID: x.opts.SessionID, MessageID: o.MessageID,
			CallID: o.CallID, Tool: t.Name, Args: toolArgs, ArgsSummary: summary,
			Requester: o.Requester, Result: r.Text, Failed: r.Status == StatusError,
			Title: t.Name + " result",
		})
		r.Decisions = append(r.Decisions, d)
		if !d.Approved {
			r.Status = StatusResultRejected
			r.RejectReason = orDefault(d.Reason, "result rejected by the user")
			r.Text = "Result rejected: " + r.RejectReason
		}
	}
	return r
}

func (x *Executor) fail(r Result, msg string) Result {
	r.Status = StatusError
	r.Error = msg
	r.Text = "Error: " + msg
	return r
}

// approveExecution applies the execution policy. asked reports whether a
// decision was made for this call (remembered decisions count as asked=false).
func (x *Executor) approveExecution(ctx context.Context, t *Tool, perm Permission, args map[string]any, summary string, o CallOptions) (Decision, bool) {
	key := DecisionKey(t.Name, args)
	if d, ok := x.mem.lookup(t.Name, key); ok && (perm.Execution == AskOnce || d.Always) {
		return d, false
	}
	d := x.ask(ctx, ApprovalRequest{
		Kind: KindExecution, SessionID: x.opts.SessionID, MessageID: o.MessageID,
		CallID: o.CallID, Tool: t.Name, Args: args, ArgsSummary: summary,
		Requester: o.Requester, Title: "Run " + t.Name,
	})
	if perm.Execution == AskOnce || (d.Always && d.Approved) {
		x.mem.remember(t.Name, key, d)
	}
	return d, true
}

// ask calls the approver; an error or a missing approver is a rejection.
func (x *Executor) ask(ctx context.Context, req ApprovalRequest) Decision {
	a := x.approver()
	if a == nil {
		return Decision{Reason: "no one can approve this here"}
	}
	d, err := a.Approve(ctx, req)
	if err != nil {
		reason := err.Error()
		if ctx.Err() != nil {
			reason = "the turn was stopped: " + context.Cause(ctx).Error()
		}
		return Decision{Reason: reason}
	}
	return d
}

func (x *Executor) safeRun(ctx context.Context, t *Tool, call Call, args map[string]any) (out Output, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("tool %s panicked: %v", t.Name, p)
			x.lg.Error("tool panicked", "tool", t.Name, "panic", p, "stack", string(debug.Stack()))
		}
	}()
	if err := ctx.Err(); err != nil {
		return Output{}, fmt.Errorf("not run: %w", context.Cause(ctx))
	}
	return t.Run(ctx, call, args)
}

func format(t *Tool, out Output, args map[string]any) string {
	if t.Format != nil {
		return t.Format(out, args)
	}
	switch d := out.Data.(type) {
	case string:
		return d
	case nil:
		return ""
	}
	b, err := json.Marshal(out.Data)
	if err != nil {
		return fmt.Sprintf("%v", out.Data)
	}
	return string(b)
}

// truncate applies step 7 and reports truthfully whether anything was cut.
func (x *Executor) truncate(t *Tool, text string, args map[string]any, limit int, hasLimit bool) (string, bool, int) {
	if t.SkipTruncate {
		return text, false, 0
	}
	if !hasLimit {
		limit = t.Limit
		if limit == 0 {
			limit = x.opts.Limit
		}
	}
	if limit <= 0 {
		return text, false, 0
	}
	if t.Truncate != nil {
		out, cut := t.Truncate(text, limit, args)
		cut = cut || out != text
		omitted := 0
		if cut {
			omitted = max(0, utf8.RuneCountInString(text)-utf8.RuneCountInString(out))
		}
		return out, cut, omitted
	}
	out, _, omitted := Truncate(text, limit)
	return out, omitted > 0, omitted
}

// cache stores the result and arguments as {tool}_{callID}_result/_args.
func (x *Executor) cache(tool, callID, formatted string, args map[string]any) (string, string) {
	base := tool + "_" + sanitizeID(callID)
	resName, argName := base+"_result", base+"_args"
	b, _ := json.Marshal(args)
	if err := x.vars.Add(resName, formatted, vars.TypeToolCallResult, "Result of "+tool, nil); err != nil {
		x.lg.Warn("cache tool result", "tool", tool, "var", resName, "err", err)
		resName = ""
	}
	if err := x.vars.Add(argName, string(b), vars.TypeToolCallArgs, "Arguments of "+tool, nil); err != nil {
		x.lg.Warn("cache tool args", "tool", tool, "var", argName, "err", err)
		argName = ""
	}
	return resName, argName
}

// truncationHint tells the model where the rest is and how to read it.
func truncationHint(varName, full, shown string, omitted int) string {
	total := utf8.RuneCountInString(full)
	if varName == "" {
		return fmt.Sprintf("\n\n[SYSTEM] Output truncated: %d of %d characters omitted; the full result could not be cached.", omitted, total)
	}
	start := headLen(full, shown)
	return fmt.Sprintf("\n\n[SYSTEM] Output truncated: %d of %d characters omitted. The full result is in variable `%s`. "+
		"Read the omitted part with ReadVar({\"name\": %q, \"start\": %d, \"length\": %d}), or pass it to a tool as $VAR_REF{{%s}}.",
		omitted, total, varName, varName, start, min(omitted, 2000), varName)
}

// headLen returns how many leading characters full and shown share, which is
// where the omitted part starts.
func headLen(full, shown string) int {
	n := 0
	for len(full) > 0 && len(shown) > 0 {
		r1, s1 := utf8.DecodeRuneInString(full)
		r2, s2 := utf8.DecodeRuneInString(shown)
		if r1 != r2 {
			break
		}
		full, shown = full[s1:], shown[s2:]
		n++
	}
	return n
}

func (x *Executor) compressArgs(t *Tool, args map[string]any) string {
	if t.CompressArgs != nil {
		return t.CompressArgs(args)
	}
	return CompressArgs(args)
}

// CompressArgs renders arguments for logs and approval messages: JSON with
// string values cut to 50 characters, except "id" and "path".
func CompressArgs(args map[string]any) string {
	short := make(map[string]any, len(args))
	for k, v := range args {
		if s, ok := v.(string); ok && k != "id" && k != "path" && utf8.RuneCountInString(s) > 50 {
			v = string([]rune(s)[:50]) + "…"
		}
		short[k] = v
	}
	b, err := json.Marshal(short)
	if err != nil {
		return "{}"
	}
	return string(b)
}

func sanitizeID(id string) string {
	if id == "" {
		return "call"
	}
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, id)
}

func toInt(v any) (int, bool) {
	switch n := v.(type) {
	case float64:
		return int(n), true
	case int:
		return n, true
	case int64:
		return int(n), true
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil
	case string:
		var i int
		_, err := fmt.Sscan(n, &i)
		return i, err == nil
	}
	return 0, false
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

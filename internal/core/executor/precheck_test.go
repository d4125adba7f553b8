package executor

import (
	"context"
	"errors"
	"testing"
)

func TestPrecheckRefusesBeforeApproval(t *testing.T) {
	ran := false
	tool := echoTool("guarded", Permission{Execution: AskAlways})
	run := tool.Run
	tool.Run = func(ctx context.Context, c Call, args map[string]any) (Output, error) {
		ran = true
		return run(ctx, c, args)
	}
	var seen map[string]any
	tool.Precheck = func(args map[string]any) error {
		seen = args
		if args["text"] == "forbidden" {
			return errors.New("refused: forbidden text")
		}
		return nil
	}
	rec := &recorder{}
	x := newExec(t, rec, &Group{Name: "g", Tools: []*Tool{tool}})

	r := x.Execute(context.Background(), "guarded", map[string]any{"text": "forbidden", "limit": 5.0}, CallOptions{CallID: "c1"})
	if r.Status != StatusError || r.Text != "Error: refused: forbidden text" {
		t.Errorf("refused call: got status %s text %q, want ERROR with the precheck message", r.Status, r.Text)
	}
	if rec.count() != 0 || ran {
		t.Errorf("refused call: approvals asked = %d, ran = %v; want 0 and false", rec.count(), ran)
	}
	if _, ok := seen["limit"]; ok {
		t.Errorf("precheck saw the hidden limit argument: %v", seen)
	}

	r = x.Execute(context.Background(), "guarded", map[string]any{"text": "fine"}, CallOptions{CallID: "c2"})
	if r.Status != StatusSuccess || rec.count() != 1 || !ran {
		t.Errorf("allowed call: got status %s, approvals %d, ran %v; want SUCCESS, 1, true", r.Status, rec.count(), ran)
	}

	// Validation comes first: the precheck never sees invalid arguments.
	seen = nil
	r = x.Execute(context.Background(), "guarded", map[string]any{"text": 3.0}, CallOptions{CallID: "c3"})
	if r.Status != StatusError || seen != nil {
		t.Errorf("invalid call: got status %s, precheck args %v; want ERROR and no precheck", r.Status, seen)
	}
}

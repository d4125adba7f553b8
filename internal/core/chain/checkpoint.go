package chain

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/threadbot/threadbot/internal/core/llm"
)

// checkpointVersion is bumped when the Checkpoint layout changes.
const checkpointVersion = 1

// Checkpoint is the loop's state between two calls. It is plain data: a
// later process can Unmarshal it and Resume the chain, re-running the
// pipeline of Pending[0] from the start (its approval is asked again, and a
// runtime that already holds the person's decision answers at once).
type Checkpoint struct {
	Version int `json:"version"`
	// Messages are all messages so far: the context, then the chain.
	Messages []llm.Message `json:"messages"`
	// ContextLen is how many of Messages are context.
	ContextLen int `json:"contextLen"`
	// Pending are the calls of the current response not yet run;
	// Pending[0] is the call awaiting execution (or a decision).
	Pending []llm.ToolCall `json:"pending,omitempty"`
	// Round is the number of tool rounds begun.
	Round      int          `json:"round"`
	RoundUsage []llm.Usage  `json:"roundUsage,omitempty"`
	History    []CallRecord `json:"history,omitempty"`
	Usage      llm.Usage    `json:"usage"`
	Started    time.Time    `json:"started"`
}

// Marshal encodes the checkpoint as JSON.
func (c *Checkpoint) Marshal() ([]byte, error) { return json.Marshal(c) }

// UnmarshalCheckpoint decodes a checkpoint. It returns an error for
// malformed data or an unknown version.
func UnmarshalCheckpoint(b []byte) (*Checkpoint, error) {
	var c Checkpoint
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("decode checkpoint: %w", err)
	}
	if c.Version != checkpointVersion {
		return nil, fmt.Errorf("decode checkpoint: unsupported version %d", c.Version)
	}
	if c.ContextLen < 0 || c.ContextLen > len(c.Messages) {
		return nil, fmt.Errorf("decode checkpoint: context length %d out of range", c.ContextLen)
	}
	return &c, nil
}

// clone returns a deep enough copy for callbacks: slices are copied so the
// loop's later appends do not show through.
func (c *Checkpoint) clone() *Checkpoint {
	cp := *c
	cp.Messages = append([]llm.Message(nil), c.Messages...)
	cp.Pending = append([]llm.ToolCall(nil), c.Pending...)
	cp.RoundUsage = append([]llm.Usage(nil), c.RoundUsage...)
	cp.History = append([]CallRecord(nil), c.History...)
	return &cp
}

// Awaiting returns the call the checkpoint waits on, if any.
func (c *Checkpoint) Awaiting() (llm.ToolCall, bool) {
	if len(c.Pending) == 0 {
		return llm.ToolCall{}, false
	}
	return c.Pending[0], true
}

package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/threadbot/threadbot/internal/core/executor"
)

// client is one connected server. Its session is safe for concurrent
// calls, so every executor shares it.
type client struct {
	srv     Server
	lg      *slog.Logger
	redact  *redactor
	session *sdk.ClientSession
	cmd     *exec.Cmd // nil unless stdio
	closed  atomic.Bool
}

// call runs one tool call with the server's timeout. A result flagged
// isError is returned as an error whose text is the tool's own message.
func (c *client) call(ctx context.Context, tool, orig string, args map[string]any) (executor.Output, error) {
	name := c.srv.Name
	if c.closed.Load() {
		return executor.Output{}, fmt.Errorf("%w: the MCP server %s was shut down, so %s cannot run; do not retry", ErrClosed, name, tool)
	}
	d := c.srv.timeout()
	ctx, cancel := context.WithTimeoutCause(ctx, d,
		fmt.Errorf("%w: the MCP server %s did not answer within %s; try a smaller request, or tell the user the server is slow", ErrTimeout, name, d))
	defer cancel()
	start := time.Now()
	res, err := c.session.CallTool(ctx, &sdk.CallToolParams{Name: orig, Arguments: args})
	lg := c.lg.With("tool", tool, "dur", time.Since(start))
	if err != nil {
		err = c.callError(ctx, tool, err)
		lg.Info("mcp call failed", "err", err)
		return executor.Output{}, err
	}
	text, atts := convert(tool, res)
	out := executor.Output{Data: text, Title: fmt.Sprintf("%s (MCP server %s)", orig, name), Attachments: atts}
	if res.IsError {
		lg.Debug("mcp tool reported an error")
		if text == "" {
			text = "the tool reported an error without a message"
		}
		return out, errors.New(text)
	}
	lg.Debug("mcp call done")
	return out, nil
}

// callError turns a protocol-level failure into a message the model can
// act on.
func (c *client) callError(ctx context.Context, tool string, err error) error {
	name := c.srv.Name
	switch {
	case errors.Is(context.Cause(ctx), ErrTimeout):
		return context.Cause(ctx)
	case ctx.Err() != nil:
		return fmt.Errorf("call stopped: %w", context.Cause(ctx))
	case c.closed.Load():
		return fmt.Errorf("%w: the MCP server %s was shut down, so %s cannot run; do not retry", ErrClosed, name, tool)
	case errors.Is(err, sdk.ErrConnectionClosed):
		return c.redact.err(fmt.Errorf("the MCP server %s is no longer running (%w); its tools are unavailable until an admin restarts the bot, so do not retry", name, err))
	}
	return c.redact.err(fmt.Errorf("the MCP server %s refused the call: %w", name, err))
}

// close ends the session; a stdio server that has not exited after grace
// is killed with its process group.
func (c *client) close(grace time.Duration) error {
	if !c.closed.CompareAndSwap(false, true) {
		return nil
	}
	done := make(chan error, 1)
	go func() { done <- c.session.Close() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(grace):
		killGroup(c.cmd)
		select {
		case err = <-done:
		case <-time.After(grace):
			err = errors.New("the server did not stop")
		}
	}
	// Helpers the server started may outlive it; they go too.
	killGroup(c.cmd)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		err = nil
	}
	if err != nil {
		err = c.redact.err(fmt.Errorf("stop mcp server %q: %w", c.srv.Name, err))
		c.lg.Warn("mcp server stop", "err", err)
		return err
	}
	c.lg.Debug("mcp server stopped")
	return nil
}

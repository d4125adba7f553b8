package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/threadbot/threadbot/internal/core/executor"
)

// restartBackoff is how long after a failed restart the next call fails
// fast instead of trying again.
const restartBackoff = 30 * time.Second

// client is one configured server. Its connection is safe for concurrent
// calls, so every executor shares it; a server that died is started again
// by the next call.
type client struct {
	srv    Server
	lg     *slog.Logger
	redact *redactor
	closed atomic.Bool
	// life ends when the client is closed; it cancels a restart under way.
	life   context.Context
	cancel context.CancelFunc

	mu          sync.Mutex
	conn        *conn
	lastStart   time.Time
	lastFailure error // of the last restart, nil if it worked
}

func newClient(lg *slog.Logger, s Server) *client {
	life, cancel := context.WithCancel(context.Background())
	return &client{srv: s, lg: lg, redact: newRedactor(s.secrets()), life: life, cancel: cancel}
}

// current returns the live connection, restarting a server that died.
func (c *client) current(ctx context.Context, tool string) (*conn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed.Load() {
		return nil, c.closedError(tool)
	}
	if !c.conn.dead() {
		return c.conn, nil
	}
	name := c.srv.Name
	if c.lastFailure != nil && time.Since(c.lastStart) < restartBackoff {
		return nil, fmt.Errorf("the MCP server %s stopped and could not be restarted (%w); tell the user its tools are unavailable for now", name, c.lastFailure)
	}
	_ = c.conn.stop(time.Second)
	ctx, cancel := context.WithTimeoutCause(ctx, StartTimeout, fmt.Errorf("no answer within %s", StartTimeout))
	defer cancel()
	defer context.AfterFunc(c.life, cancel)()
	start := time.Now()
	cn, err := dial(ctx, c.lg, c.srv, c.redact)
	c.lastStart, c.lastFailure = start, err
	if err != nil {
		c.lg.Warn("mcp server restart failed", "err", err)
		return nil, fmt.Errorf("the MCP server %s stopped and could not be restarted (%w); tell the user its tools are unavailable for now", name, err)
	}
	c.lg.Info("mcp server restarted", "dur", time.Since(start))
	c.conn = cn
	return cn, nil
}

// call runs one tool call with the server's timeout. A result flagged
// isError is returned as an error whose text is the tool's own message.
func (c *client) call(ctx context.Context, tool, orig string, args map[string]any) (executor.Output, error) {
	cn, err := c.current(ctx, tool)
	if err != nil {
		return executor.Output{}, err
	}
	name := c.srv.Name
	d := c.srv.timeout()
	ctx, cancel := context.WithTimeoutCause(ctx, d,
		fmt.Errorf("%w: the MCP server %s did not answer within %s; try a smaller request, or tell the user the server is slow", ErrTimeout, name, d))
	defer cancel()
	start := time.Now()
	res, err := cn.session.CallTool(ctx, &sdk.CallToolParams{Name: orig, Arguments: args})
	lg := c.lg.With("tool", tool, "dur", time.Since(start))
	if err != nil {
		err = c.callError(ctx, cn, tool, err)
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
func (c *client) callError(ctx context.Context, cn *conn, tool string, err error) error {
	name := c.srv.Name
	switch {
	case errors.Is(context.Cause(ctx), ErrTimeout):
		return context.Cause(ctx)
	case ctx.Err() != nil:
		return fmt.Errorf("call stopped: %w", context.Cause(ctx))
	case c.closed.Load():
		return c.closedError(tool)
	case errors.Is(err, sdk.ErrConnectionClosed), errors.Is(err, sdk.ErrSessionMissing),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), cn.dead():
		cn.markDead()
		return c.redact.err(fmt.Errorf("the MCP server %s stopped during the call (%w); it starts again on the next call, "+
			"but whether this call took effect is unknown, so check before repeating it", name, err))
	}
	return c.redact.err(fmt.Errorf("the MCP server %s refused the call: %w", name, err))
}

func (c *client) closedError(tool string) error {
	return fmt.Errorf("%w: the MCP server %s was shut down, so %s cannot run; do not retry", ErrClosed, c.srv.Name, tool)
}

// close stops the server for good: later calls return ErrClosed.
func (c *client) close(grace time.Duration) error {
	if !c.closed.CompareAndSwap(false, true) {
		return nil
	}
	c.cancel()
	c.mu.Lock()
	cn := c.conn
	c.mu.Unlock()
	if err := cn.stop(grace); err != nil {
		err = c.redact.err(fmt.Errorf("stop mcp server %q: %w", c.srv.Name, err))
		c.lg.Warn("mcp server stop", "err", err)
		return err
	}
	c.lg.Debug("mcp server stopped")
	return nil
}

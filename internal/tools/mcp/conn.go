package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// conn is one running connection to a server: a started process or an
// HTTP session. A server that dies gets a new conn.
type conn struct {
	session *sdk.ClientSession
	cmd     *exec.Cmd // nil unless stdio

	once sync.Once
	done chan struct{} // closed when the session ended
}

// markDead records that the session ended.
func (cn *conn) markDead() { cn.once.Do(func() { close(cn.done) }) }

// dead reports whether the session ended.
func (cn *conn) dead() bool {
	select {
	case <-cn.done:
		return true
	default:
		return false
	}
}

// dial starts the server and performs the initialize handshake. On error
// nothing is left running; the error carries a stdio server's stderr.
func dial(ctx context.Context, lg *slog.Logger, s Server, red *redactor) (*conn, error) {
	cn := &conn{done: make(chan struct{})}
	var stderr *stderrLog
	var t sdk.Transport
	switch {
	case s.transport != nil:
		t = s.transport
	case len(s.Command) > 0:
		stderr = &stderrLog{lg: lg, redact: red}
		cn.cmd = command(s, stderr)
		t = &sdk.CommandTransport{Command: cn.cmd, TerminateDuration: stopGrace}
	default:
		t = httpTransport(s)
	}
	cl := sdk.NewClient(&sdk.Implementation{Name: "threadbot", Version: version()},
		// No roots, sampling or elicitation: the bot offers servers nothing.
		&sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
	session, err := cl.Connect(ctx, t, nil)
	if err != nil {
		killGroup(cn.cmd)
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", context.Cause(ctx), err)
		}
		if stderr != nil {
			if tail := stderr.String(); tail != "" {
				err = fmt.Errorf("%w; stderr: %s", err, tail)
			}
		}
		return nil, red.err(err)
	}
	cn.session = session
	go func() {
		_ = session.Wait()
		cn.markDead()
	}()
	return cn, nil
}

// stop ends the session; a stdio server that has not exited after grace is
// killed with its process group. An exit status is not an error.
func (cn *conn) stop(grace time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- cn.session.Close() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(grace):
		killGroup(cn.cmd)
		select {
		case err = <-done:
		case <-time.After(grace):
			err = errors.New("the server did not stop")
		}
	}
	// Helpers the server started may outlive it; they go too.
	killGroup(cn.cmd)
	cn.markDead()
	var exit *exec.ExitError
	if errors.As(err, &exit) || errors.Is(err, sdk.ErrConnectionClosed) {
		err = nil
	}
	return err
}

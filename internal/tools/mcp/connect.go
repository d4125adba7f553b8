package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/threadbot/threadbot/internal/core/executor"
)

// stopGrace is how long Close lets a server exit on its own before its
// process group is killed.
const stopGrace = 3 * time.Second

// Connect starts every configured server (concurrently), performs the
// initialize handshake, lists its tools and returns one group per server
// that came up, in the order of servers, together with the Clients that
// stop them. The groups' tools are shared between sessions.
//
// A server that is misconfigured (ErrConfig), fails to start, to initialize
// or to list its tools is skipped: its error, naming the server, is in errs
// and in the log, and the others continue. Errors and logs never contain the
// server's header or environment values.
func Connect(ctx context.Context, lg *slog.Logger, servers []Server) (groups []*executor.Group, clients *Clients, errs []error) {
	if lg == nil {
		lg = slog.New(slog.DiscardHandler)
	}
	clients = &Clients{grace: stopGrace}
	type outcome struct {
		c     *client
		tools []*sdk.Tool
		err   error
		dur   time.Duration
	}
	results := make([]outcome, len(servers))
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for i, s := range servers {
		if err := s.validate(); err != nil {
			results[i].err = err
			continue
		}
		if seen[s.Name] {
			results[i].err = fmt.Errorf("%w: another server is already named %q", ErrConfig, s.Name)
			continue
		}
		seen[s.Name] = true
		wg.Go(func() {
			start := time.Now()
			c, tools, err := connect(ctx, lg.With("mcp_server", s.Name), s)
			results[i] = outcome{c: c, tools: tools, err: err, dur: time.Since(start)}
		})
	}
	wg.Wait()

	used := map[string]bool{} // tool names across all groups
	for i, r := range results {
		name := servers[i].Name
		if r.err != nil {
			err := fmt.Errorf("mcp server %q: %w", name, r.err)
			errs = append(errs, err)
			lg.Warn("mcp server skipped", "mcp_server", name, "err", err)
			continue
		}
		clients.list = append(clients.list, r.c)
		g := r.c.group(r.tools, used)
		groups = append(groups, g)
		lg.Info("mcp server ready", "mcp_server", name, "transport", servers[i].kind(),
			"tools", len(g.Tools), "dur", r.dur)
	}
	return groups, clients, errs
}

// connect starts one server, initializes it and lists its tools. On error
// nothing is left running.
func connect(ctx context.Context, lg *slog.Logger, s Server) (*client, []*sdk.Tool, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, StartTimeout,
		fmt.Errorf("no answer within %s", StartTimeout))
	defer cancel()
	c := newClient(lg, s)
	cn, err := dial(ctx, lg, s, c.redact)
	if err != nil {
		c.cancel()
		return nil, nil, fmt.Errorf("start: %w", err)
	}
	c.conn = cn
	tools, err := listTools(ctx, cn.session)
	if err != nil {
		_ = c.close(stopGrace)
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", context.Cause(ctx), err)
		}
		return nil, nil, c.redact.err(fmt.Errorf("list tools: %w", err))
	}
	return c, tools, nil
}

// maxPages bounds tools/list pagination against a server that never stops.
const maxPages = 100

// listTools lists every tool, following the pagination cursor.
func listTools(ctx context.Context, cs *sdk.ClientSession) ([]*sdk.Tool, error) {
	params := &sdk.ListToolsParams{}
	seen := map[string]bool{}
	var out []*sdk.Tool
	for range maxPages {
		res, err := cs.ListTools(ctx, params)
		if err != nil {
			return nil, err
		}
		out = append(out, res.Tools...)
		if res.NextCursor == "" {
			return out, nil
		}
		if seen[res.NextCursor] {
			return nil, fmt.Errorf("the server repeated the page cursor %q", res.NextCursor)
		}
		seen[res.NextCursor] = true
		params.Cursor = res.NextCursor
	}
	return nil, fmt.Errorf("more than %d pages of tools", maxPages)
}

// Clients holds the connected servers. Close stops them.
type Clients struct {
	grace time.Duration
	list  []*client
}

// Close stops every server concurrently: it ends each session, kills a
// stdio server's process group if it does not exit within a few seconds,
// and waits. Tools of a stopped server return ErrClosed. Close is safe on a
// nil Clients and when called twice; it returns the servers' stop errors
// joined (an exit status is not an error).
func (cs *Clients) Close() error {
	if cs == nil {
		return nil
	}
	errs := make([]error, len(cs.list))
	var wg sync.WaitGroup
	for i, c := range cs.list {
		wg.Go(func() { errs[i] = c.close(cs.grace) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// version is threadbot's module version, for the initialize handshake.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

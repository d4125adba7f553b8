package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"

	"github.com/threadbot/threadbot/config"
	"github.com/threadbot/threadbot/internal/adapters/console"
	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/tools/basic"
	"github.com/threadbot/threadbot/internal/tools/shell"
)

// toolGroups holds the built-in and configured tool groups. Groups returns
// the current set; Reload re-reads the custom script tools.
type toolGroups struct {
	mu      sync.Mutex
	static  []*executor.Group
	scripts []*executor.Group
	closers []func()
}

// Groups returns every group, built-in first.
func (t *toolGroups) Groups() []*executor.Group {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]*executor.Group(nil), t.static...)
	return append(out, t.scripts...)
}

// Close stops MCP servers.
func (t *toolGroups) Close() {
	for _, c := range t.closers {
		c()
	}
}

// buildTools builds the tool groups the configuration asks for. A group
// that cannot start (an MCP server, a bad script descriptor) is logged and
// skipped; the bot still starts.
func buildTools(ctx context.Context, lg *slog.Logger, cfg config.Config, con *console.Adapter) (*toolGroups, error) {
	tg := &toolGroups{}
	tg.static = append(tg.static, basic.Group(basic.Options{}))
	if cfg.Tools.Shell.Enabled {
		so := shell.Options{
			Timeout:    cfg.Tools.Shell.Timeout,
			MaxTimeout: cfg.Tools.Shell.MaxTimeout,
			Bubblewrap: cfg.Tools.Shell.Bubblewrap,
			Network:    cfg.Tools.Shell.Network,
			Deny:       cfg.Tools.Shell.Deny,
		}
		if err := shell.Check(so); err != nil {
			lg.Error("shell tool disabled", "err", err)
		} else {
			tg.static = append(tg.static, shell.Group(so))
		}
	}
	_ = ctx
	_ = con
	return tg, nil
}

// importTool is replaced when the script tools land.
func importTool(string, io.Writer) error {
	return errors.New("custom script tools are not in this build yet")
}

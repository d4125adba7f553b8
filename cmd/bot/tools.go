package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"

	"github.com/threadbot/threadbot/config"
	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/tools/basic"
	"github.com/threadbot/threadbot/internal/tools/chat"
	"github.com/threadbot/threadbot/internal/tools/fs"
	"github.com/threadbot/threadbot/internal/tools/mcp"
	"github.com/threadbot/threadbot/internal/tools/script"
	"github.com/threadbot/threadbot/internal/tools/shell"
	"github.com/threadbot/threadbot/internal/tools/web"
)

// toolGroups holds the built-in and configured tool groups. Groups returns
// the current set; Reload re-reads the custom script tools.
type toolGroups struct {
	mu      sync.Mutex
	static  []*executor.Group
	scripts []*executor.Group
	closers []func()
	reload  func() error
	// chat routes the chat tools to the adapter of each session's platform.
	chat *chat.Mux
}

// Groups returns every group, built-in first.
func (t *toolGroups) Groups() []*executor.Group {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]*executor.Group(nil), t.static...)
	return append(out, t.scripts...)
}

// Reload re-reads the custom script tools.
func (t *toolGroups) Reload() error { return t.reload() }

// Close stops MCP servers.
func (t *toolGroups) Close() {
	for _, c := range t.closers {
		c()
	}
}

// buildTools builds the tool groups the configuration asks for. A group
// that cannot start (an MCP server, a bad script descriptor) is logged and
// skipped; the bot still starts.
func buildTools(ctx context.Context, lg *slog.Logger, cfg config.Config) (*toolGroups, error) {
	tg := &toolGroups{chat: &chat.Mux{}}
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
	tg.static = append(tg.static, fs.Group(fs.Options{}))
	wo := web.Options{
		AllowHosts: cfg.Tools.Web.AllowHosts,
		Timeout:    cfg.Tools.Web.Timeout,
		MaxBytes:   cfg.Tools.Web.MaxBytes,
		Search:     web.SearchOptions{Provider: cfg.Tools.Web.Search.Provider, URL: cfg.Tools.Web.Search.URL, APIKey: cfg.Tools.Web.Search.APIKey},
		Logger:     lg,
	}
	if err := wo.Validate(); err != nil {
		lg.Error("web tools disabled", "err", err)
	} else {
		tg.static = append(tg.static, web.Group(wo))
	}
	// The chat tools read threads through the adapters; platforms without
	// a reader (the console) answer that reading is not supported.
	tg.static = append(tg.static, chat.Group(tg.chat))
	if len(cfg.Tools.MCP) > 0 {
		var servers []mcp.Server
		for _, s := range cfg.Tools.MCP {
			servers = append(servers, mcp.Server{Name: s.Name, Command: s.Command, Env: s.Env, URL: s.URL, Headers: s.Headers})
		}
		groups, clients, errs := mcp.Connect(ctx, lg, servers)
		for _, err := range errs {
			lg.Error("mcp server skipped", "err", err)
		}
		tg.static = append(tg.static, groups...)
		tg.closers = append(tg.closers, func() { _ = clients.Close() })
	}
	tg.reload = func() error {
		dir := cfg.Tools.Scripts.Dir
		if dir == "" {
			return nil
		}
		groups, errs := script.Load(lg, dir, script.Options{Timeout: cfg.Tools.Scripts.Timeout})
		for _, err := range errs {
			lg.Error("custom tool skipped", "err", err)
		}
		tg.mu.Lock()
		tg.scripts = groups
		tg.mu.Unlock()
		return nil
	}
	_ = tg.reload()
	return tg, nil
}

// importTool is replaced when the script tools land.
func importTool(string, io.Writer) error {
	return errors.New("custom script tools are not in this build yet")
}

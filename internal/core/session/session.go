package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/core/vars"
)

// session is one thread. Fields below mu-guarded comments are protected by
// Manager.mu; the rest belong to the session's worker goroutine.
type session struct {
	key Key
	id  string

	// guarded by Manager.mu
	queue      []job
	running    bool
	cancel     context.CancelCauseFunc
	requester  string
	event      string // the event id of the message the running turn answers
	lastActive time.Time

	// owned by the worker
	loaded  bool
	x       *executor.Executor
	history []StoredMessage
}

// load brings the session into memory from storage (creating it there when
// new) and builds its executor.
func (m *Manager) load(ctx context.Context, s *session) error {
	if s.loaded {
		return nil
	}
	saved, err := m.store.LoadSession(ctx, s.key, m.opts.HistoryLimit)
	if err != nil {
		return fmt.Errorf("load session %s: %w", s.id, err)
	}
	vs := vars.New(m.opts.Vars)
	x, err := m.newExecutor(s.key, vs)
	if err != nil {
		return err
	}
	if len(saved.Vars) > 0 {
		// Restore replaces everything; the rules this build registered win
		// over stored copies so that new rule text takes effect.
		fresh := vs.Snapshot()
		vs.Restore(saved.Vars)
		for _, v := range fresh {
			if old, ok := vs.Peek(v.Name); v.Type == vars.TypeRule && (!ok || old.Value != v.Value) {
				if err := vs.Set(v); err != nil {
					m.lg.Warn("refresh rule", "rule", v.Name, "err", err)
				}
			}
		}
	}
	x.RestoreDecisions(saved.Decisions)
	s.x = x
	s.history = saved.Messages
	s.loaded = true
	return nil
}

// newExecutor builds an executor for a thread with every group registered
// and the policy overrides applied.
func (m *Manager) newExecutor(k Key, vs *vars.System) (*executor.Executor, error) {
	sandbox := filepath.Join(m.opts.WorkspaceRoot, k.ID())
	if k.Thread != "" {
		// A channel key (listing tools for a slash command) runs nothing
		// and needs no directory.
		if err := os.MkdirAll(sandbox, 0o700); err != nil {
			return nil, fmt.Errorf("create sandbox: %w", err)
		}
	}
	if abs, err := filepath.Abs(sandbox); err == nil {
		sandbox = abs
	}
	x := executor.New(m.lg, executor.Options{SessionID: k.ID(), Sandbox: sandbox, Vars: vs})
	for _, g := range m.opts.Groups() {
		if err := x.Register(g); err != nil {
			m.lg.Error("register tool group", "group", g.Name, "err", err)
		}
	}
	for tool, p := range m.opts.Policies {
		_ = x.SetPermission(tool, p) // tools not registered here are ignored
	}
	return x, nil
}

// applySettings sets which groups and tools are enabled for the thread:
// the channel's default groups, then stored settings (global, workspace,
// channel; later rows win).
func (m *Manager) applySettings(ctx context.Context, k Key, x *executor.Executor) error {
	enabled := m.enabledGroups(k, x)
	for _, g := range x.Groups() {
		_ = x.SetGroupEnabled(g.Name, enabled[g.Name])
		for _, t := range g.Tools {
			_ = x.SetToolEnabled(t.Name, true)
		}
	}
	rows, err := m.store.ToolSettings(ctx, k.Platform, k.Workspace, k.Channel)
	if err != nil {
		return fmt.Errorf("load tool settings: %w", err)
	}
	for _, r := range rows {
		switch r.Kind {
		case "group":
			_ = x.SetGroupEnabled(r.Name, r.Enabled)
		case "tool":
			_ = x.SetToolEnabled(r.Name, r.Enabled)
		}
	}
	return nil
}

func (m *Manager) enabledGroups(k Key, x *executor.Executor) map[string]bool {
	cs := m.opts.Channel(k)
	on := map[string]bool{}
	if cs.EnabledGroups == nil {
		for _, g := range x.Groups() {
			on[g.Name] = true
		}
		return on
	}
	for _, g := range cs.EnabledGroups {
		on[g] = true
	}
	return on
}

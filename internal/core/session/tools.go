package session

import (
	"context"
	"fmt"
	"slices"

	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/core/vars"
)

// Scopes of a tool setting.
const (
	ScopeChannel   = "channel"
	ScopeWorkspace = "workspace"
	ScopeGlobal    = "global"
)

// Tools lists the tool groups with the state in force for a thread's
// channel: groups in registration order, tools sorted by name.
func (m *Manager) Tools(ctx context.Context, k Key) ([]executor.GroupInfo, error) {
	x, err := m.newExecutor(k, vars.New(vars.Options{}))
	if err != nil {
		return nil, err
	}
	if err := m.applySettings(ctx, k, x); err != nil {
		return nil, err
	}
	return x.Groups(), nil
}

// SetTool enables or disables a group or a tool (name is looked up as a
// group first) for a channel, a workspace or everywhere. Only admins may
// (ErrNotAllowed); an unknown name is ErrNotFound. It takes effect at each
// session's next turn. It returns what it changed ("group" or "tool").
func (m *Manager) SetTool(ctx context.Context, k Key, scope, name string, enabled bool, user string, isAdmin bool) (string, error) {
	if !isAdmin && !slices.Contains(m.opts.Admins, user) {
		return "", ErrNotAllowed
	}
	groups, err := m.Tools(ctx, k)
	if err != nil {
		return "", err
	}
	kind := ""
	for _, g := range groups {
		if g.Name == name {
			kind = "group"
			break
		}
		for _, t := range g.Tools {
			if t.Name == name {
				kind = "tool"
			}
		}
	}
	if kind == "" {
		return "", fmt.Errorf("%q is neither a tool group nor a tool: %w", name, ErrNotFound)
	}
	s := ToolSetting{Platform: k.Platform, Kind: kind, Name: name, Enabled: enabled, By: user}
	switch scope {
	case ScopeChannel, "":
		s.Workspace, s.Channel = k.Workspace, k.Channel
	case ScopeWorkspace:
		s.Workspace = k.Workspace
	case ScopeGlobal:
	default:
		return "", fmt.Errorf("scope %q: want channel, workspace or global", scope)
	}
	if err := m.store.SetToolSetting(ctx, s); err != nil {
		return "", fmt.Errorf("set tool %s: %w", name, err)
	}
	return kind, nil
}

// ReloadTools re-reads the reloadable tool groups (custom scripts) for
// admins (ErrNotAllowed otherwise). Sessions not running a turn are
// rebuilt at their next message with the new groups; a session in the
// middle of a turn keeps its tools until it is idle and evicted.
func (m *Manager) ReloadTools(user string, isAdmin bool) error {
	if !isAdmin && !slices.Contains(m.opts.Admins, user) {
		return ErrNotAllowed
	}
	if m.opts.Reload != nil {
		if err := m.opts.Reload(); err != nil {
			return fmt.Errorf("reload tools: %w", err)
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, s := range m.sessions {
		if !s.running && len(s.queue) == 0 {
			delete(m.sessions, id)
		}
	}
	return nil
}

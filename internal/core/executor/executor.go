package executor

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/threadbot/threadbot/internal/core/llm"
	"github.com/threadbot/threadbot/internal/core/vars"
)

// DefaultLimit is the default output limit in characters (the seed's
// DEFAULT_LIMIT_CHAR).
const DefaultLimit = 8000

// VarsGroup is the name of the group holding WriteVar and RemoveVars.
const VarsGroup = "vars"

// Options configures an Executor. The zero value is usable: a new
// VariableSystem, DefaultLimit, no approver (every non-auto call is
// rejected with a clear reason).
type Options struct {
	SessionID string
	// Sandbox is the session's working directory, passed to tools.
	Sandbox string
	// Vars is the session's variable store; nil means a new one.
	Vars *vars.System
	// Approver asks people; nil rejects every call that needs approval.
	Approver Approver
	// Limit is the default output limit; 0 means DefaultLimit.
	Limit int
}

// Executor runs tools for one session. It is safe for concurrent use, though
// a session runs one call at a time.
type Executor struct {
	lg   *slog.Logger
	opts Options
	vars *vars.System

	mu        sync.RWMutex
	tools     map[string]*Tool
	groupOf   map[string]string // tool -> group
	groups    map[string]*Group
	order     []string // group names, registration order
	groupOn   map[string]bool
	toolOn    map[string]bool
	overrides map[string]Permission

	mem memory
}

// New returns an Executor with the var tools registered (ReadVar and
// ListVars always offered while any group is enabled; WriteVar and
// RemoveVars in the disabled group "vars") and the Agent skill rules stored
// as RULE variables.
func New(lg *slog.Logger, opts Options) *Executor {
	if lg == nil {
		lg = slog.New(slog.DiscardHandler)
	}
	if opts.Vars == nil {
		opts.Vars = vars.New(vars.Options{})
	}
	if opts.Limit == 0 {
		opts.Limit = DefaultLimit
	}
	x := &Executor{
		lg:        lg,
		opts:      opts,
		vars:      opts.Vars,
		tools:     map[string]*Tool{},
		groupOf:   map[string]string{},
		groups:    map[string]*Group{},
		groupOn:   map[string]bool{},
		toolOn:    map[string]bool{},
		overrides: map[string]Permission{},
	}
	for _, t := range x.alwaysVarTools() {
		x.tools[t.Name] = t
		x.toolOn[t.Name] = true
	}
	if err := x.Register(x.varsGroup()); err != nil {
		panic(err) // the built-in group is valid by construction
	}
	x.storeRules("Agent", vars.AgentRules())
	return x
}

// Vars returns the session's variable store.
func (x *Executor) Vars() *vars.System { return x.vars }

// SessionID returns the session the executor belongs to.
func (x *Executor) SessionID() string { return x.opts.SessionID }

// SetApprover replaces the approver.
func (x *Executor) SetApprover(a Approver) {
	x.mu.Lock()
	x.opts.Approver = a
	x.mu.Unlock()
}

func (x *Executor) approver() Approver {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.opts.Approver
}

// Register adds a group: its tools are enabled, the group itself is
// disabled, and its skill rules become keep-forever RULE variables. It
// returns ErrDuplicateGroup, ErrDuplicateTool or ErrBadSchema (nothing is
// registered then).
func (x *Executor) Register(g *Group) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, ok := x.groups[g.Name]; ok {
		return fmt.Errorf("register %s: %w", g.Name, ErrDuplicateGroup)
	}
	for _, t := range g.Tools {
		if _, ok := x.tools[t.Name]; ok {
			return fmt.Errorf("register %s: tool %s: %w", g.Name, t.Name, ErrDuplicateTool)
		}
		if _, err := t.compiled(); err != nil {
			return fmt.Errorf("register %s: tool %s: %w", g.Name, t.Name, err)
		}
	}
	x.groups[g.Name] = g
	x.order = append(x.order, g.Name)
	x.groupOn[g.Name] = false
	for _, t := range g.Tools {
		x.tools[t.Name] = t
		x.groupOf[t.Name] = g.Name
		x.toolOn[t.Name] = true
	}
	x.storeRules(g.Name, g.SkillRules)
	return nil
}

func (x *Executor) storeRules(group string, rules []vars.SkillRule) {
	for _, r := range rules {
		name := vars.RuleName(group, r.Name)
		v := vars.Variable{
			Name:  name,
			Value: r.Prompt,
			Type:  vars.TypeRule,
			Desc:  fmt.Sprintf("Skill rule for %s: %s", group, r.Desc),
			Keep:  true,
		}
		if err := x.vars.Set(v); err != nil {
			x.lg.Warn("store skill rule", "rule", name, "err", err)
		}
	}
}

// SetGroupEnabled enables or disables a group. It returns ErrUnknown for an
// unknown group.
func (x *Executor) SetGroupEnabled(name string, on bool) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, ok := x.groups[name]; !ok {
		return fmt.Errorf("group %q: %w", name, ErrUnknown)
	}
	x.groupOn[name] = on
	return nil
}

// SetToolEnabled enables or disables one tool. It returns ErrUnknown for an
// unknown tool.
func (x *Executor) SetToolEnabled(name string, on bool) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, ok := x.groupOf[name]; !ok {
		return fmt.Errorf("tool %q: %w", name, ErrUnknown)
	}
	x.toolOn[name] = on
	return nil
}

// SetPermission overrides a tool's policy (admin overrides per channel). It
// returns ErrUnknown for an unknown tool.
func (x *Executor) SetPermission(tool string, p Permission) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, ok := x.tools[tool]; !ok {
		return fmt.Errorf("tool %q: %w", tool, ErrUnknown)
	}
	x.overrides[tool] = p
	return nil
}

// GroupEnabled reports whether a group is enabled.
func (x *Executor) GroupEnabled(name string) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.groupOn[name]
}

// ToolEnabled reports whether a tool would be offered: it and its group are
// enabled (ReadVar and ListVars: whenever any group is enabled).
func (x *Executor) ToolEnabled(name string) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.toolEnabledLocked(name)
}

func (x *Executor) toolEnabledLocked(name string) bool {
	g, grouped := x.groupOf[name]
	if !grouped {
		_, ok := x.tools[name]
		return ok && x.anyGroupLocked()
	}
	return x.groupOn[g] && x.toolOn[name]
}

func (x *Executor) anyGroupLocked() bool {
	for _, on := range x.groupOn {
		if on {
			return true
		}
	}
	return false
}

// GroupInfo describes a registered group for listings.
type GroupInfo struct {
	Name    string
	Enabled bool
	Tools   []ToolInfo
}

// ToolInfo describes a registered tool for listings.
type ToolInfo struct {
	Name        string
	Description string
	Enabled     bool // the tool's own flag
	Permission  Permission
}

// Groups lists the registered groups in registration order, tools sorted by
// name.
func (x *Executor) Groups() []GroupInfo {
	x.mu.RLock()
	defer x.mu.RUnlock()
	out := make([]GroupInfo, 0, len(x.order))
	for _, name := range x.order {
		g := x.groups[name]
		gi := GroupInfo{Name: name, Enabled: x.groupOn[name]}
		for _, t := range g.Tools {
			gi.Tools = append(gi.Tools, ToolInfo{
				Name: t.Name, Description: t.Description,
				Enabled: x.toolOn[t.Name], Permission: x.permissionLocked(t),
			})
		}
		slices.SortFunc(gi.Tools, func(a, b ToolInfo) int { return strings.Compare(a.Name, b.Name) })
		out = append(out, gi)
	}
	return out
}

// Definitions returns the definitions offered to the model, sorted by name:
// enabled tools of enabled groups, plus ReadVar and ListVars whenever any
// group is enabled.
func (x *Executor) Definitions() []llm.ToolDefinition {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var out []llm.ToolDefinition
	for name, t := range x.tools {
		if x.toolEnabledLocked(name) {
			out = append(out, t.Definition())
		}
	}
	slices.SortFunc(out, func(a, b llm.ToolDefinition) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func (x *Executor) permissionLocked(t *Tool) Permission {
	if p, ok := x.overrides[t.Name]; ok {
		return p.normalized()
	}
	return t.Permission.normalized()
}

func (x *Executor) lookup(name string) (*Tool, Permission, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	t, ok := x.tools[name]
	if !ok || !x.toolEnabledLocked(name) {
		return nil, Permission{}, false
	}
	return t, x.permissionLocked(t), true
}

// RememberedDecisions returns the decisions remembered since the last call,
// for storage.
func (x *Executor) RememberedDecisions() []Remembered { return x.mem.take() }

// RestoreDecisions loads remembered decisions from storage.
func (x *Executor) RestoreDecisions(rs []Remembered) { x.mem.restore(rs) }

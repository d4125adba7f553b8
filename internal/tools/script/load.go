package script

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/threadbot/threadbot/internal/core/executor"
)

// DefaultTimeout is a call's time limit when neither the descriptor nor
// Options set one.
const DefaultTimeout = 30 * time.Second

// Options configures Load. The zero value is usable: 30-second calls, no
// extra environment, the default interpreters.
type Options struct {
	// Timeout is a call's time limit when the descriptor has no
	// timeoutMs; 0 means DefaultTimeout.
	Timeout time.Duration
	// Env lists extra KEY=VALUE variables for every script, such as an
	// API key a tool needs or PYTHONPATH. Nothing else of the bot's
	// environment reaches a script.
	Env []string
	// Interpreters maps a script extension (".rb") to the program and its
	// fixed arguments (["ruby"]); it adds to and overrides
	// DefaultInterpreters. Programs are looked up on PATH once per Load.
	Interpreters map[string][]string
}

// DefaultInterpreters run scripts by extension. pwsh is optional: a .ps1
// descriptor is refused with a clear error when it is not installed.
var DefaultInterpreters = map[string][]string{
	".py":  {"python3"},
	".sh":  {"bash"},
	".ps1": {"pwsh", "-NoProfile", "-NonInteractive", "-File"},
}

// LoadError is a descriptor Load skipped and why.
type LoadError struct {
	File string // the descriptor's path
	Err  error
}

func (e *LoadError) Error() string { return e.File + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *LoadError) Unwrap() error { return e.Err }

// Load reads every *.tool.json descriptor in dir (not its subdirectories)
// and returns one group per valid descriptor, sorted by name, with every
// tool enabled and the group itself to be enabled by the caller. A
// generated descriptor whose Python script is newer is regenerated first.
// Each bad descriptor yields a *LoadError naming the file and the problem,
// is logged and skipped; the others load. A missing or unreadable dir is
// one error and no groups.
//
// Load is pure: it keeps nothing, so calling it again (/tools reload)
// returns new groups from the files as they are now.
func Load(lg *slog.Logger, dir string, opts Options) ([]*executor.Group, []error) {
	if lg == nil {
		lg = slog.New(slog.DiscardHandler)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		err = fmt.Errorf("read tools directory: %w", err)
		lg.Warn("load script tools", "dir", dir, "err", err)
		return nil, []error{err}
	}
	l := &loader{
		lg:     lg,
		opts:   opts,
		interp: map[string][]string{},
		groups: map[string]string{},
		tools:  map[string]string{},
		check:  executor.New(nil, executor.Options{}),
	}
	if l.opts.Timeout <= 0 {
		l.opts.Timeout = DefaultTimeout
	}
	var groups []*executor.Group
	var errs []error
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), Suffix) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		g, err := l.load(path)
		if err != nil {
			lerr := &LoadError{File: path, Err: err}
			lg.Warn("skip tool descriptor", "file", path, "err", err)
			errs = append(errs, lerr)
			continue
		}
		lg.Info("loaded tool descriptor", "file", path, "group", g.Name, "tools", len(g.Tools))
		groups = append(groups, g)
	}
	slices.SortFunc(groups, func(a, b *executor.Group) int { return cmp.Compare(a.Name, b.Name) })
	return groups, errs
}

// loader holds the state of one Load call.
type loader struct {
	lg     *slog.Logger
	opts   Options
	interp map[string][]string // extension -> resolved argv, nil when missing
	groups map[string]string   // group name -> file that defined it
	tools  map[string]string   // tool name -> file that defined it
	check  *executor.Executor  // compiles schemas and holds the var tools' names
}

func (l *loader) load(path string) (*executor.Group, error) {
	d, err := readDescriptor(path)
	if err != nil {
		return nil, err
	}
	script, err := scriptPath(path, d, l.extensions())
	if err != nil {
		return nil, err
	}
	if d.Generated && filepath.Ext(script) == ".py" && pythonNewer(path, script, d) {
		if d, err = l.regenerate(path, script); err != nil {
			return nil, err
		}
	}
	if d.Name == "" {
		d.Name = stem(path)
	}
	if err := d.validate(); err != nil {
		return nil, err
	}
	ext := filepath.Ext(script)
	interp, err := l.interpreter(ext)
	if err != nil {
		return nil, err
	}
	if d.Runner == RunnerModule && ext != ".py" {
		return nil, fmt.Errorf("runner %q works only for .py scripts, not %s", RunnerModule, filepath.Base(script))
	}
	if other, ok := l.groups[d.Name]; ok {
		return nil, fmt.Errorf("group name %q is already used by %s", d.Name, other)
	}
	for _, t := range d.Tools {
		if other, ok := l.tools[t.Function.Name]; ok {
			return nil, fmt.Errorf("tool %q is already defined by %s; rename it (and set \"entry\" to the function)", t.Function.Name, other)
		}
	}
	timeout := l.opts.Timeout
	if d.TimeoutMs > 0 {
		timeout = time.Duration(d.TimeoutMs) * time.Millisecond
	}
	g := &executor.Group{Name: d.Name, Rules: d.RulePrompt, SkillRules: d.SkillRules}
	for _, t := range d.Tools {
		perm, _ := t.Permission.permission() // validated
		c := newCommand(t.Function.Name, interp, d.Runner, script, cmp.Or(t.Entry, t.Function.Name), timeout, l.opts.Env)
		g.Tools = append(g.Tools, &executor.Tool{
			Name:        t.Function.Name,
			Description: t.Function.Description,
			Parameters:  t.Function.Parameters,
			Permission:  perm,
			Returns:     t.DeclaredReturnType,
			Run:         c.run,
		})
	}
	// Registering in a scratch executor compiles every schema and refuses
	// names the executor itself uses (the var tools and group).
	if err := l.check.Register(g); err != nil {
		if errors.Is(err, executor.ErrBadSchema) {
			return nil, fmt.Errorf("function.parameters is not a valid JSON Schema: %w", err)
		}
		return nil, fmt.Errorf("%w (the name is reserved)", err)
	}
	l.groups[d.Name] = path
	for _, t := range d.Tools {
		l.tools[t.Function.Name] = path
	}
	return g, nil
}

// regenerate writes a new descriptor for a changed Python script and reads
// it back.
func (l *loader) regenerate(path, script string) (*Descriptor, error) {
	interp, err := l.interpreter(".py")
	if err != nil {
		return nil, err
	}
	if _, err := importPython(context.Background(), interp[0], script, l.opts.Env); err != nil {
		return nil, fmt.Errorf("regenerate from the changed %s: %w", filepath.Base(script), err)
	}
	l.lg.Info("regenerated tool descriptor", "file", path, "script", script)
	d, err := readDescriptor(path)
	if err != nil {
		return nil, fmt.Errorf("read the regenerated descriptor: %w", err)
	}
	return d, nil
}

// extensions returns the script extensions Load knows, defaults first.
func (l *loader) extensions() []string {
	exts := []string{".py", ".sh", ".ps1"}
	for _, e := range slices.Sorted(maps.Keys(l.opts.Interpreters)) {
		if !slices.Contains(exts, e) {
			exts = append(exts, e)
		}
	}
	return exts
}

// interpreter returns the argv that runs scripts with extension ext, its
// program resolved on PATH once per Load.
func (l *loader) interpreter(ext string) ([]string, error) {
	argv, ok := l.opts.Interpreters[ext]
	if !ok {
		argv, ok = DefaultInterpreters[ext]
	}
	if !ok || len(argv) == 0 {
		return nil, fmt.Errorf("no interpreter for %q scripts; use .py, .sh or .ps1, or configure one", ext)
	}
	if resolved, ok := l.interp[ext]; ok {
		if resolved == nil {
			return nil, missing(argv[0])
		}
		return resolved, nil
	}
	p, err := exec.LookPath(argv[0])
	if err != nil {
		l.interp[ext] = nil
		return nil, missing(argv[0])
	}
	if p, err = filepath.Abs(p); err != nil {
		return nil, err
	}
	resolved := append([]string{p}, argv[1:]...)
	l.interp[ext] = resolved
	return resolved, nil
}

func missing(program string) error {
	if program == "pwsh" {
		return errors.New("PowerShell scripts need pwsh, which is not installed; install PowerShell or remove this descriptor")
	}
	return fmt.Errorf("the interpreter %s is not installed (not on PATH)", program)
}

// scriptPath returns the absolute path of the descriptor's script: its
// "script" field relative to the descriptor (which must stay inside the
// descriptor's directory), else the descriptor's name with the first known
// extension that exists.
func scriptPath(descPath string, d *Descriptor, exts []string) (string, error) {
	dir, err := filepath.Abs(filepath.Dir(descPath))
	if err != nil {
		return "", err
	}
	if d.Script != "" {
		if filepath.IsAbs(d.Script) || !filepath.IsLocal(d.Script) {
			return "", fmt.Errorf("script %q must be a path inside the tools directory, relative to the descriptor", d.Script)
		}
		p := filepath.Join(dir, d.Script)
		fi, err := os.Stat(p)
		if err != nil {
			return "", fmt.Errorf("script %q: %w", d.Script, err)
		}
		if !fi.Mode().IsRegular() {
			return "", fmt.Errorf("script %q is not a regular file", d.Script)
		}
		return p, nil
	}
	base := filepath.Join(dir, stem(descPath))
	for _, ext := range exts {
		if fi, err := os.Stat(base + ext); err == nil && fi.Mode().IsRegular() {
			return base + ext, nil
		}
	}
	return "", fmt.Errorf("no script: set \"script\", or put %s.py, %s.sh or %s.ps1 beside the descriptor",
		stem(descPath), stem(descPath), stem(descPath))
}

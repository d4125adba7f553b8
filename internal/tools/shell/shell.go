// Package shell owns the "shell" tool group: the bash tool, which runs a
// command line in the session's sandbox directory with a time limit, an
// output cap, a minimal environment, configurable deny patterns, and, when
// bubblewrap is installed, an isolated filesystem and network.
//
// Without bubblewrap, commands run as the bot's user on the host in the
// session directory. That is NOT a sandbox: a command can read and write
// whatever the bot's user can (other threads' directories, the bot's
// configuration and database, the bot's own environment through
// /proc/<pid>/environ) and use the network. Approval (the tool is
// ask-always) is then the only protection. The minimal environment only
// keeps secrets out of the command's own variables.
//
// Among threadbot packages it imports only core/executor.
package shell

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/threadbot/threadbot/internal/procgroup"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"text/template"
	"time"
	"unicode/utf8"

	"github.com/threadbot/threadbot/internal/core/executor"
)

//go:embed rules.md.tmpl
var rulesText string

var rulesTmpl = template.Must(template.New("rules").Parse(rulesText))

// runner holds the configuration the bash tool runs with. It has no
// per-session state.
type runner struct {
	opts   Options
	bwrap  string // bwrap binary, "" when commands run unisolated
	cfgErr error  // a configuration problem every call reports
	bash   string
}

// Group returns the "shell" group with its one tool, bash (ask-always). A
// configuration problem that Check would report makes every call fail with
// that message, before anyone is asked to approve it.
func Group(opts Options) *executor.Group {
	r := newRunner(opts)
	return &executor.Group{
		Name:  GroupName,
		Tools: []*executor.Tool{r.tool()},
		Rules: r.rules(),
	}
}

func newRunner(opts Options) *runner {
	o := withDefaults(opts)
	r := &runner{opts: o, bash: "bash"}
	r.bwrap, r.cfgErr = resolveBwrap(o.Bubblewrap, exec.LookPath)
	if p, err := exec.LookPath("bash"); err == nil {
		r.bash = p
	}
	if r.cfgErr == nil {
		if err := Check(opts); err != nil {
			r.cfgErr = err
		}
	}
	return r
}

func (r *runner) rules() string {
	var b bytes.Buffer
	err := rulesTmpl.Execute(&b, map[string]any{
		"Sandboxed":  r.bwrap != "",
		"Network":    r.opts.Network,
		"Timeout":    r.opts.Timeout,
		"MaxTimeout": r.opts.MaxTimeout,
		"Limit":      r.opts.Limit,
		"Deny":       r.opts.Deny,
	})
	if err != nil {
		panic(err) // the template is fixed and its data always fits
	}
	return b.String()
}

func (r *runner) tool() *executor.Tool {
	maxMS := r.opts.MaxTimeout.Milliseconds()
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"command": map[string]any{
				"type":        "string",
				"minLength":   1,
				"description": "The command line, run with `bash -c` in the working directory.",
			},
			"timeout_ms": map[string]any{
				"type":    "integer",
				"minimum": 100,
				"maximum": maxMS,
				"description": fmt.Sprintf("Time limit in milliseconds (default %d, at most %d); the command and its children are killed when it passes.",
					r.opts.Timeout.Milliseconds(), maxMS),
			},
			"description": map[string]any{
				"type":        "string",
				"description": "What the command does in 5-10 words, shown to the people who approve it.",
			},
		},
		"required":             []string{"command"},
		"additionalProperties": false,
	}
	params, _ := json.Marshal(schema)
	return &executor.Tool{
		Name: "bash",
		Description: "Run a bash command line in this thread's working directory and return its output " +
			"(stdout and stderr interleaved) followed by `exit code: N`. Every call is a fresh shell with no input; " +
			"see the shell rules for isolation, time limits and output limits.",
		Parameters: params,
		Permission: executor.Permission{Execution: executor.AskAlways, Result: executor.Never},
		Precheck:   r.precheck,
		Run:        r.run,
		Limit:      r.opts.Limit,
		Returns:    &executor.ReturnType{Type: "string", Note: "the output, then a line `exit code: N`"},
		CompressArgs: func(args map[string]any) string {
			cmd, _ := args["command"].(string)
			return cmd
		},
	}
}

// precheck refuses a call before any approval: a configuration problem or
// a command that matches a deny pattern.
func (r *runner) precheck(args map[string]any) error {
	if r.cfgErr != nil {
		return r.cfgErr
	}
	command, _ := args["command"].(string)
	if p, ok := Denied(r.opts.Deny, command); ok {
		return fmt.Errorf("%w: it matches the deny pattern %q set by the bot's admin. "+
			"This command is not allowed here; do not try to get around it: use another approach or tell the user", ErrDenied, p)
	}
	return nil
}

func (r *runner) run(ctx context.Context, call executor.Call, args map[string]any) (executor.Output, error) {
	// Defence in depth: the executor calls precheck before approval, but a
	// caller that skips it must still not run a denied command.
	if err := r.precheck(args); err != nil {
		return executor.Output{}, err
	}
	command, _ := args["command"].(string)
	dir, err := sandboxDir(call.Sandbox)
	if err != nil {
		return executor.Output{}, err
	}
	timeout := r.opts.Timeout
	if ms, ok := number(args["timeout_ms"]); ok && ms > 0 {
		timeout = min(time.Duration(ms*float64(time.Millisecond)), r.opts.MaxTimeout)
	}
	title := describe(args)
	call.Progress(title, map[string]any{"command": command})

	runCtx, cancel := context.WithTimeoutCause(ctx, timeout, ErrTimeout)
	defer cancel()
	cmd := sandboxedCommand(r.bwrap, dir, r.opts.ReadOnly, r.opts.Network, []string{r.bash, "-c", command})
	cmd.Env = r.env(dir)
	out := newCapture(captureLimit, func(tail string) {
		call.Progress(title, map[string]any{"command": command, "output": tail})
	})
	runErr := procgroup.Run(runCtx, cmd, nil, out, out)
	text := out.String()

	var exitErr *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exitErr) {
		return executor.Output{Title: title}, fmt.Errorf("start bash: %v", runErr)
	}
	st := cmd.ProcessState
	// A command that ended by itself just as the time ran out keeps its
	// result; only a killed one is a timeout or an abort.
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() && runCtx.Err() != nil {
		if ctx.Err() != nil {
			return executor.Output{Title: title}, fmt.Errorf("command aborted (%v): the command and all its child processes were killed.%s",
				context.Cause(ctx), partial(text))
		}
		return executor.Output{Title: title}, fmt.Errorf("%w after %s: the command and all its child processes were killed. "+
			"Pass a larger timeout_ms (at most %s), do less in one call, or make the command end by itself.%s",
			ErrTimeout, timeout, r.opts.MaxTimeout, partial(text))
	}
	if r.bwrap != "" && st.ExitCode() == 1 && strings.HasPrefix(text, "bwrap: ") {
		return executor.Output{Title: title}, fmt.Errorf("bubblewrap could not start the sandbox: %s. "+
			"This is a problem of the bot's host, not of the command: tell the user an admin must fix it", strings.TrimSpace(text))
	}
	return executor.Output{Data: result(text, st), Title: title}, nil
}

// number returns a JSON number argument (float64 after decoding; Go
// integers when a caller builds the arguments itself).
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// result is the output followed by the exit status on its own line.
func result(text string, st *os.ProcessState) string {
	if text == "" {
		text = "(no output)\n"
	} else if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("%s\nexit code: %d (killed by signal %s)", strings.TrimSuffix(text, "\n"), 128+int(ws.Signal()), ws.Signal())
	}
	return fmt.Sprintf("%sexit code: %d", text, st.ExitCode())
}

// partial returns the end of the output for an error message, which the
// executor neither truncates nor caches.
func partial(text string) string {
	if text == "" {
		return " There was no output."
	}
	const keep = 4000
	if utf8.RuneCountInString(text) > keep {
		text = "…" + lastChars(text, keep)
	}
	return "\nOutput before it was killed:\n" + text
}

// describe returns the log title of a call: its description, else the
// first line of the command.
func describe(args map[string]any) string {
	if d, _ := args["description"].(string); strings.TrimSpace(d) != "" {
		return strings.TrimSpace(d)
	}
	c, _ := args["command"].(string)
	c, _, _ = strings.Cut(strings.TrimSpace(c), "\n")
	if utf8.RuneCountInString(c) > 60 {
		c = string([]rune(c)[:60]) + "…"
	}
	return c
}

// sandboxDir returns the session directory as an absolute path without
// symbolic links, creating it (0700) when it is missing.
func sandboxDir(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("this session has no working directory; the bot is misconfigured (workspace root), tell an admin")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create working directory: %v", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("working directory: %v", err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}

// env is the whole environment of a command: PATH, HOME (the working
// directory), LANG, TERM=dumb and the configured extras. The bot's own
// variables, tokens and keys among them, never reach a command.
func (r *runner) env(dir string) []string {
	lang := os.Getenv("LANG")
	if lang == "" {
		lang = "C.UTF-8"
	}
	env := []string{
		"PATH=" + r.opts.Path,
		"HOME=" + dir,
		"LANG=" + lang,
		"TERM=dumb",
		"NO_COLOR=1",
		"PAGER=cat",
		"GIT_PAGER=cat",
	}
	return append(env, r.opts.Env...)
}

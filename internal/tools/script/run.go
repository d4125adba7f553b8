package script

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/threadbot/threadbot/internal/core/executor"
)

// ErrTimeout marks a script killed at its time limit.
var ErrTimeout = errors.New("script timed out")

//go:embed runner.py
var runnerPy string

// stderrShown is how much of stderr (its end) a result or error shows.
const stderrShown = 2000

// command is how to run one tool: everything but the arguments.
type command struct {
	tool    string
	argv    []string // interpreter, its fixed arguments and the script or runner, then the entry
	timeout time.Duration
	env     []string
}

// newCommand builds the command line of a tool: `interp... script entry`,
// or `python3 -c RUNNER script entry` for RunnerModule.
func newCommand(tool string, interp []string, runner, script, entry string, timeout time.Duration, env []string) *command {
	argv := append([]string(nil), interp...)
	if runner == RunnerModule {
		argv = append(argv, "-c", runnerPy)
	}
	argv = append(argv, script, entry)
	return &command{tool: tool, argv: argv, timeout: timeout, env: env}
}

// run executes the script with the JSON arguments on stdin in the session
// directory and turns its output into the tool's result.
func (c *command) run(ctx context.Context, call executor.Call, args map[string]any) (executor.Output, error) {
	dir, err := sandboxDir(call.Sandbox)
	if err != nil {
		return executor.Output{}, err
	}
	input, err := json.Marshal(args)
	if err != nil {
		return executor.Output{}, fmt.Errorf("encode arguments: %v", err)
	}
	call.Progress("Running "+c.tool, nil)
	runCtx, cancel := context.WithTimeoutCause(ctx, c.timeout, ErrTimeout)
	defer cancel()
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(minimalEnv(dir), c.env...)
	stdout := &limitBuffer{max: outputLimit}
	stderr := &limitBuffer{max: outputLimit}
	runErr := runGroup(runCtx, cmd, input, stdout, stderr)
	title := c.tool
	var exitErr *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exitErr) {
		return executor.Output{Title: title}, fmt.Errorf("start %s: %v", filepath.Base(c.argv[0]), runErr)
	}
	errText := text(stderr)
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() && runCtx.Err() != nil {
		if ctx.Err() != nil {
			return executor.Output{Title: title}, fmt.Errorf("aborted (%v): the script and its child processes were killed%s",
				context.Cause(ctx), section("stderr", errText))
		}
		return executor.Output{Title: title}, fmt.Errorf("%w after %s: the script and its child processes were killed. "+
			"Ask for less work in one call, or tell the user the tool is too slow%s", ErrTimeout, c.timeout, section("stderr", errText))
	}
	out := text(stdout)
	ans, isProtocol := parseAnswer(out)
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		msg := fmt.Sprintf("the script exited with code %d", code)
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			msg = fmt.Sprintf("the script was killed by signal %s", ws.Signal())
		}
		if isProtocol && !ans.Success {
			msg += ": " + ans.message()
		}
		if errText == "" && !isProtocol {
			errText = out
		}
		return executor.Output{Title: title}, fmt.Errorf("%s%s", msg, section("stderr", errText))
	}
	if isProtocol && !ans.Success {
		return executor.Output{Title: title}, fmt.Errorf("%s%s", ans.message(), section("stderr", errText))
	}
	var data any
	switch {
	case isProtocol && ans.FormattedText != "":
		data = ans.FormattedText
	case isProtocol:
		data = ans.Result
	default:
		data = strings.TrimSuffix(strings.TrimSuffix(out, "\n"), "\r")
	}
	if errText != "" {
		data = renderData(data) + section("stderr", errText)
	}
	if s, ok := data.(string); data == nil || ok && strings.TrimSpace(s) == "" {
		data = "(no output)"
	}
	return executor.Output{Data: data, Title: title}, nil
}

// answer is the JSON a script prints: {"success", "result", "formattedText"?}.
type answer struct {
	Success       bool   `json:"success"`
	Result        any    `json:"result"`
	FormattedText string `json:"formattedText"`
}

// parseAnswer reads stdout as the JSON protocol when it is an object with a
// boolean "success"; anything else is plain text.
func parseAnswer(out string) (answer, bool) {
	s := strings.TrimSpace(out)
	if !strings.HasPrefix(s, "{") {
		return answer{}, false
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &probe); err != nil {
		return answer{}, false
	}
	raw, ok := probe["success"]
	if !ok || (string(raw) != "true" && string(raw) != "false") {
		return answer{}, false
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var a answer
	if err := dec.Decode(&a); err != nil {
		return answer{}, false
	}
	return a, true
}

// message is the error text of a failed answer.
func (a answer) message() string {
	if a.FormattedText != "" {
		return a.FormattedText
	}
	if m := renderData(a.Result); m != "" && m != "null" {
		return m
	}
	return "the script reported failure without a message"
}

// renderData turns a result into text: strings as they are, else JSON.
func renderData(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// text returns a buffer's content as valid UTF-8, noting dropped bytes.
func text(b *limitBuffer) string {
	s := strings.ToValidUTF8(string(b.buf), "\uFFFD")
	if b.dropped > 0 {
		s += fmt.Sprintf("\n[%d more bytes dropped]", b.dropped)
	}
	return s
}

// section renders the end of s under a heading, or nothing when s is
// empty.
func section(name, s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if utf8.RuneCountInString(s) > stderrShown {
		r := []rune(s)
		s = "…" + string(r[len(r)-stderrShown:])
	}
	return "\n\n[" + name + "]\n" + s
}

// minimalEnv is the environment of a script: PATH, HOME (the session
// directory), LANG and Python's I/O settings. The bot's variables, tokens
// and keys among them, never reach a script; Options.Env adds more.
func minimalEnv(home string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	lang := os.Getenv("LANG")
	if lang == "" {
		lang = "C.UTF-8"
	}
	return []string{
		"PATH=" + path,
		"HOME=" + home,
		"LANG=" + lang,
		"PYTHONIOENCODING=utf-8",
		"PYTHONDONTWRITEBYTECODE=1",
	}
}

// sandboxDir returns the session directory, creating it (0700) when it is
// missing.
func sandboxDir(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("this session has no working directory; the bot is misconfigured (workspace root), tell an admin")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create working directory: %v", err)
	}
	return filepath.Abs(dir)
}

package script

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/core/executor"
)

func TestExampleDescriptor(t *testing.T) {
	needPython(t)
	groups := load(t, "testdata", Options{})
	if len(groups) != 1 || groups[0].Name != "weather" || len(groups[0].Tools) != 2 {
		t.Fatalf("groups = %v, want the weather group with 2 tools", groups)
	}
	g := groups[0]
	if len(g.SkillRules) != 1 || g.SkillRules[0].Name != "units" || !strings.Contains(g.Rules, "forecasts") {
		t.Errorf("rules = %q, skill rules = %v", g.Rules, g.SkillRules)
	}
	x, _, rec := newExec(t, g)
	r := call(t, x, "get_forecast", map[string]any{"city": "Lisbon", "days": 2})
	if r.Status != executor.StatusSuccess || r.Text != "Lisbon day 1: sunny, 21 °C\nLisbon day 2: sunny, 21 °C" {
		t.Errorf("get_forecast: %s %q", r.Status, r.Text)
	}
	if rec.count() != 0 {
		t.Errorf("get_forecast (auto) asked %d times, want 0", rec.count())
	}
	r = call(t, x, "weather_alert", map[string]any{"city": "Porto", "message": "storm"})
	if r.Status != executor.StatusError || r.Error != "alerts for Porto are not set up" {
		t.Errorf("weather_alert: %s %q, want ERROR from success:false", r.Status, r.Error)
	}
	// ask-always to run, on-error to see the failed result.
	if rec.count() != 2 {
		t.Errorf("weather_alert asked %d times, want 2", rec.count())
	}
	var desc string
	for _, d := range x.Definitions() {
		if d.Name == "get_forecast" {
			desc = d.Description
		}
	}
	if !strings.HasSuffix(desc, "Returns: string (one line per day)") {
		t.Errorf("get_forecast description = %q, want the declared return type", desc)
	}
}

// scripts is a tools directory with a Python tool (hand dispatch) and a bash
// tool, covering the output forms of the protocol.
var scripts = map[string]string{
	"py.tool.json": `{
  "name": "py",
  "tools": [
    {"function": {"name": "py_echo", "description": "Echo the arguments.", "parameters": {"type": "object"}}},
    {"function": {"name": "py_formatted", "description": "Formatted text.", "parameters": {"type": "object"}}},
    {"function": {"name": "py_plain", "description": "Plain text.", "parameters": {"type": "object"}}},
    {"function": {"name": "py_fail", "description": "Reports failure.", "parameters": {"type": "object"}}},
    {"function": {"name": "py_warn", "description": "Succeeds with a warning.", "parameters": {"type": "object"}}}
  ]
}`,
	"py.py": `import json, os, sys
args = json.load(sys.stdin)
fn = sys.argv[1]
if fn == "py_echo":
    print(json.dumps({"success": True, "result": {"fn": fn, "args": args, "cwd": os.getcwd()}}))
elif fn == "py_formatted":
    print(json.dumps({"success": True, "result": [1, 2], "formattedText": "one, two"}))
elif fn == "py_plain":
    print("just text, ünïcödé")
elif fn == "py_fail":
    print(json.dumps({"success": False, "result": "city %s not found" % args["city"]}))
elif fn == "py_warn":
    sys.stderr.write("deprecated option\n")
    print(json.dumps({"success": True, "result": "done"}))
`,
	"sh.tool.json": `{
  "name": "sh",
  "timeoutMs": 3000,
  "tools": [
    {"function": {"name": "sh_echo", "description": "Echo.", "parameters": {"type": "object"}}, "permission": {"executionPolicy": "auto"}},
    {"function": {"name": "sh_exit", "description": "Fails.", "parameters": {"type": "object"}}},
    {"function": {"name": "sh_env", "description": "Environment.", "parameters": {"type": "object"}}},
    {"function": {"name": "sh_slow", "description": "Too slow.", "parameters": {"type": "object"}}}
  ]
}`,
	"sh.sh": `#!/bin/bash
input=$(cat)
case "$1" in
sh_echo) echo "fn=$1 args=$input argc=$# cwd=$(pwd)" ;;
sh_exit) echo "partial"; echo "boom: disk full" >&2; exit 3 ;;
sh_env) env ;;
sh_slow) sleep 1000 & echo $! > child.tmp && mv child.tmp child.pid; sleep 1000 ;;
esac
`,
}

func TestPythonAndBashTools(t *testing.T) {
	needPython(t)
	t.Setenv("SLACK_BOT_TOKEN", "xoxb-not-for-scripts")
	t.Setenv("OPENAI_API_KEY", "sk-not-for-scripts")
	dir := t.TempDir()
	write(t, dir, scripts)
	groups := load(t, dir, Options{Env: []string{"WEATHER_KEY=k1"}})
	if len(groups) != 2 || groups[0].Name != "py" || groups[1].Name != "sh" {
		t.Fatalf("groups = %v, want py and sh", groups)
	}
	x, sandbox, rec := newExec(t, groups...)

	r := call(t, x, "py_echo", map[string]any{"city": "Oslo", "n": 2, "tags": []any{"a"}})
	if _, err := os.Stat(sandbox); err != nil {
		t.Fatalf("sandbox not created: %v", err)
	}
	want := fmt.Sprintf(`{"args":{"city":"Oslo","n":2,"tags":["a"]},"cwd":%q,"fn":"py_echo"}`, sandbox)
	if r.Status != executor.StatusSuccess || r.Text != want {
		t.Errorf("py_echo: %s %q\nwant %q", r.Status, r.Text, want)
	}
	tests := []struct {
		tool   string
		args   map[string]any
		status executor.Status
		text   string // exact, or a prefix when it ends in "…"
	}{
		{"py_formatted", nil, executor.StatusSuccess, "one, two"},
		{"py_plain", nil, executor.StatusSuccess, "just text, ünïcödé"},
		{"py_fail", map[string]any{"city": "Atlantis"}, executor.StatusError, "Error: city Atlantis not found"},
		{"py_warn", nil, executor.StatusSuccess, "done\n\n[stderr]\ndeprecated option"},
		{"sh_echo", map[string]any{"q": "it's \"quoted\"; $(rm -rf /)"}, executor.StatusSuccess,
			`fn=sh_echo args={"q":"it's \"quoted\"; $(rm -rf /)"} argc=1 cwd=` + sandbox},
		{"sh_exit", nil, executor.StatusError, "Error: the script exited with code 3\n\n[stderr]\nboom: disk full"},
	}
	for _, tc := range tests {
		r := call(t, x, tc.tool, tc.args)
		if r.Status != tc.status || r.Text != tc.text {
			t.Errorf("%s: %s %q\nwant %s %q", tc.tool, r.Status, r.Text, tc.status, tc.text)
		}
	}

	r = call(t, x, "sh_env", nil)
	if strings.Contains(r.Text, "not-for-scripts") || strings.Contains(r.Text, "SLACK_") {
		t.Errorf("a secret reached the script:\n%s", r.Text)
	}
	for _, want := range []string{"HOME=" + sandbox + "\n", "WEATHER_KEY=k1\n", "PATH="} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("script environment lacks %q:\n%s", want, r.Text)
		}
	}

	start := time.Now()
	r = call(t, x, "sh_slow", nil)
	if r.Status != executor.StatusError || !strings.Contains(r.Error, "script timed out after 3s") {
		t.Errorf("sh_slow: %s %q, want a timeout", r.Status, r.Error)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("sh_slow took %s", d)
	}
	b, err := os.ReadFile(filepath.Join(sandbox, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	waitGone(t, pid)

	// Every tool without a permission asked; sh_echo (auto) did not.
	if got, want := rec.count(), 1+len(tests)-1+2; got != want {
		t.Errorf("approvals asked = %d, want %d", got, want)
	}
}

// waitGone polls until pid no longer runs (gone or a zombie), for at most
// ten seconds.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			s := string(b)
			if j := strings.LastIndexByte(s, ')'); j >= 0 && j+2 < len(s) && s[j+2] == 'Z' {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("process %d still runs after the timeout", pid)
	_ = syscall.Kill(pid, syscall.SIGKILL)
}

func TestParseAnswer(t *testing.T) {
	tests := []struct {
		out      string
		protocol bool
		success  bool
	}{
		{`{"success": true, "result": 1}`, true, true},
		{"  {\"success\": false, \"result\": \"x\"}\n", true, false},
		{`{"success": "yes", "result": 1}`, false, false},
		{`{"result": 1}`, false, false},
		{`{"success": true`, false, false},
		{`[1, 2]`, false, false},
		{`plain`, false, false},
	}
	for _, tc := range tests {
		a, ok := parseAnswer(tc.out)
		if ok != tc.protocol || a.Success != tc.success {
			t.Errorf("parseAnswer(%q) = %+v, %v; want success %v, protocol %v", tc.out, a, ok, tc.success, tc.protocol)
		}
	}
}

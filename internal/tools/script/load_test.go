package script

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/core/executor"
)

const goodSh = "#!/bin/bash\necho ok\n"

func tool(name string) string {
	return `{"type": "function", "function": {"name": "` + name + `", "description": "Does ` + name + `.", "parameters": {"type": "object"}}}`
}

func TestBadDescriptorsAreSkipped(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"good.tool.json":     `{"tools": [` + tool("good_one") + `]}`,
		"good.sh":            goodSh,
		"syntax.tool.json":   "{\n  \"tools\": [\n    " + tool("s") + ",\n  ]\n}",
		"syntax.sh":          goodSh,
		"typo.tool.json":     `{"rulePromt": "x", "tools": [` + tool("typo") + `]}`,
		"typo.sh":            goodSh,
		"noscript.tool.json": `{"tools": [` + tool("noscript") + `]}`,
		"policy.tool.json": `{"script": "good.sh", "tools": [{"function": {"name": "p", "description": "P.", "parameters": {"type": "object"}},
			"permission": {"executionPolicy": "sometimes"}}]}`,
		"schema.tool.json": `{"script": "good.sh", "tools": [{"function": {"name": "sch", "description": "S.",
			"parameters": {"type": "object", "properties": {"x": {"type": "nope"}}}}}]}`,
		"zdup.tool.json":      `{"script": "good.sh", "tools": [` + tool("good_one") + `]}`,
		"zdupgroup.tool.json": `{"name": "good", "script": "good.sh", "tools": [` + tool("other") + `]}`,
		"reserved.tool.json":  `{"script": "good.sh", "tools": [` + tool("ReadVar") + `]}`,
		"empty.tool.json":     `{"script": "good.sh", "tools": []}`,
		"nodesc.tool.json":    `{"script": "good.sh", "tools": [{"function": {"name": "nd", "description": " "}}]}`,
		"badname.tool.json":   `{"name": "my group!", "script": "good.sh", "tools": [` + tool("bn") + `]}`,
		"escape.tool.json":    `{"script": "../outside.sh", "tools": [` + tool("esc") + `]}`,
		"ruby.tool.json":      `{"script": "x.rb", "tools": [` + tool("rb") + `]}`,
		"x.rb":                "puts 1\n",
		"mod.tool.json":       `{"script": "good.sh", "runner": "module", "tools": [` + tool("mod") + `]}`,
		"notobject.tool.json": `{"script": "good.sh", "tools": [{"function": {"name": "no", "description": "N.",
			"parameters": {"type": "array"}}}]}`,
	}
	want := map[string]string{
		"syntax.tool.json":    "invalid JSON at line 4, column 3",
		"typo.tool.json":      `unknown field "rulePromt"`,
		"noscript.tool.json":  "no script: set \"script\", or put noscript.py, noscript.sh or noscript.ps1 beside the descriptor",
		"policy.tool.json":    `tools[0] (p): permission: executionPolicy "sometimes" is not one of auto, ask-once, ask-always`,
		"schema.tool.json":    "function.parameters is not a valid JSON Schema",
		"zdup.tool.json":      `tool "good_one" is already defined by ` + filepath.Join(dir, "good.tool.json"),
		"zdupgroup.tool.json": `group name "good" is already used by ` + filepath.Join(dir, "good.tool.json"),
		"reserved.tool.json":  "the name is reserved",
		"empty.tool.json":     "no tools",
		"nodesc.tool.json":    "tools[0] (nd): function.description is empty",
		"badname.tool.json":   `name "my group!" must be`,
		"escape.tool.json":    `script "../outside.sh" must be a path inside the tools directory`,
		"ruby.tool.json":      `no interpreter for ".rb" scripts`,
		"mod.tool.json":       `runner "module" works only for .py scripts`,
		"notobject.tool.json": `function.parameters must have "type": "object"`,
	}
	if _, err := exec.LookPath("pwsh"); err != nil {
		files["ps.tool.json"] = `{"tools": [` + tool("ps") + `]}`
		files["ps.ps1"] = "Write-Output 1\n"
		want["ps.tool.json"] = "PowerShell scripts need pwsh, which is not installed"
	}
	write(t, dir, files)

	lg, logs := newLogger(t)
	groups, errs := Load(lg, dir, Options{})
	if len(groups) != 1 || groups[0].Name != "good" {
		t.Errorf("groups = %v, want only good", groups)
	}
	got := map[string]string{}
	for _, err := range errs {
		var le *LoadError
		if !errors.As(err, &le) {
			t.Errorf("error %v is not a *LoadError", err)
			continue
		}
		if !strings.HasPrefix(err.Error(), le.File+": ") {
			t.Errorf("error %q does not start with the file name", err)
		}
		got[filepath.Base(le.File)] = le.Err.Error()
	}
	for file, msg := range want {
		if !strings.Contains(got[file], msg) {
			t.Errorf("%s: error %q, want it to contain %q", file, got[file], msg)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d errors, want %d: %v", len(got), len(want), got)
	}
	if logged := logs.attrs("skip tool descriptor", "file"); len(logged) != len(want) {
		t.Errorf("logged %d skipped files, want %d: %v", len(logged), len(want), logged)
	}
}

func TestLoadMissingDir(t *testing.T) {
	groups, errs := Load(nil, filepath.Join(t.TempDir(), "nope"), Options{})
	if len(groups) != 0 || len(errs) != 1 || !errors.Is(errs[0], os.ErrNotExist) {
		t.Errorf("Load(missing) = %v, %v; want one not-exist error", groups, errs)
	}
}

func TestReloadIsPure(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"a.tool.json": `{"tools": [` + tool("a_one") + `]}`, "a.sh": goodSh})
	first := load(t, dir, Options{})
	write(t, dir, map[string]string{
		"a.tool.json": `{"rulePrompt": "changed", "tools": [` + tool("a_one") + `, ` + tool("a_two") + `]}`,
		"b.tool.json": `{"tools": [` + tool("b_one") + `]}`,
		"b.sh":        goodSh,
	})
	second := load(t, dir, Options{})
	if len(first) != 1 || len(first[0].Tools) != 1 || first[0].Rules != "" {
		t.Errorf("first load changed after the reload: %+v", first[0])
	}
	if len(second) != 2 || second[0].Rules != "changed" || len(second[0].Tools) != 2 || second[1].Name != "b" {
		t.Errorf("reload = %+v, want a (2 tools, new rules) and b", second)
	}
	if first[0].Tools[0] == second[0].Tools[0] {
		t.Errorf("reload returned the same tool value")
	}
	// Both generations can serve sessions side by side.
	x1, _, _ := newExec(t, first...)
	x2, _, _ := newExec(t, second...)
	for _, x := range []*executor.Executor{x1, x2} {
		if r := call(t, x, "a_one", nil); r.Text != "ok" {
			t.Errorf("a_one = %s %q", r.Status, r.Text)
		}
	}
}

func TestTimestamp(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
	}{
		{`"2026-01-02T15:04:05Z"`, time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)},
		{`1767366245000`, time.UnixMilli(1767366245000)},
		{`null`, time.Time{}},
		{`""`, time.Time{}},
	}
	for _, tc := range tests {
		var ts Timestamp
		if err := ts.UnmarshalJSON([]byte(tc.in)); err != nil || !ts.Equal(tc.want) {
			t.Errorf("Timestamp(%s) = %v, %v; want %v", tc.in, ts.Time, err, tc.want)
		}
	}
	for _, bad := range []string{`"yesterday"`, `true`} {
		var ts Timestamp
		if err := ts.UnmarshalJSON([]byte(bad)); err == nil {
			t.Errorf("Timestamp(%s) accepted", bad)
		}
	}
}

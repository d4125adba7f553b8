package fs_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/tools/fs"
)

func TestGroup(t *testing.T) {
	e := newEnv(t, fs.Options{}, false)
	var tools []executor.ToolInfo
	for _, g := range e.x.Groups() {
		if g.Name == "fs" {
			tools = g.Tools
		}
	}
	want := map[string]executor.ExecutionPolicy{
		"edit": executor.AskAlways, "glob": executor.Auto, "grep": executor.Auto,
		"list": executor.Auto, "read": executor.Auto, "write": executor.AskAlways,
	}
	if len(tools) != len(want) {
		t.Fatalf("tools = %+v", tools)
	}
	for _, ti := range tools {
		if ti.Permission.Execution != want[ti.Name] || ti.Permission.Result != executor.Never {
			t.Errorf("%s: permission %+v, want %s/never", ti.Name, ti.Permission, want[ti.Name])
		}
	}
	for _, d := range e.x.Definitions() {
		if _, ok := want[d.Name]; !ok {
			continue
		}
		var s struct {
			Type                 string         `json:"type"`
			AdditionalProperties *bool          `json:"additionalProperties"`
			Properties           map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(d.Parameters, &s); err != nil {
			t.Fatal(err)
		}
		if s.Type != "object" || s.AdditionalProperties == nil || *s.AdditionalProperties || len(s.Properties) == 0 || d.Description == "" {
			t.Errorf("%s: schema %s", d.Name, d.Parameters)
		}
	}
}

func TestRules(t *testing.T) {
	e := newEnv(t, fs.Options{}, false)
	rules := e.x.ToolRules()
	for _, w := range []string{"Files live in this conversation's sandbox", "- `read`:", "- `write`:", "Rule/fs/Edit"} {
		if !strings.Contains(rules, w) {
			t.Errorf("rules lack %q:\n%s", w, rules)
		}
	}
	if err := e.x.SetToolEnabled("write", false); err != nil {
		t.Fatal(err)
	}
	if rules := e.x.ToolRules(); strings.Contains(rules, "- `write`:") || !strings.Contains(rules, "- `edit`:") {
		t.Errorf("rules with write disabled:\n%s", rules)
	}
	v, ok := e.x.Vars().Get("Rule/fs/Edit")
	if !ok || !strings.Contains(v.Value, "Read first") {
		t.Errorf("Rule/fs/Edit = %+v, %v", v, ok)
	}
}

func TestNoSandbox(t *testing.T) {
	x := executor.New(nil, executor.Options{SessionID: "s"})
	x.Register(fs.Group(fs.Options{}))
	x.SetGroupEnabled("fs", true)
	r := x.Execute(t.Context(), "read", map[string]any{"path": "a"}, executor.CallOptions{CallID: "c"})
	mustFail(t, r, "this session has no sandbox directory")
}

package script

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/core/executor"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixedTime is the modification time given to imported modules, so the
// generated lastModified is stable.
var fixedTime = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// importCopy copies testdata/import/NAME.py to a new directory with a fixed
// modification time and imports it.
func importCopy(t *testing.T, name string) (dir, descPath string) {
	t.Helper()
	needPython(t)
	src, err := os.ReadFile(filepath.Join("testdata", "import", name+".py"))
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	py := filepath.Join(dir, name+".py")
	write(t, dir, map[string]string{name + ".py": string(src)})
	if err := os.Chtimes(py, fixedTime, fixedTime); err != nil {
		t.Fatal(err)
	}
	descPath, err = ImportPython(py)
	if err != nil {
		t.Fatalf("ImportPython: %v", err)
	}
	if want := filepath.Join(dir, name+Suffix); descPath != want {
		t.Errorf("descriptor path = %s, want %s", descPath, want)
	}
	return dir, descPath
}

func TestImportPythonGolden(t *testing.T) {
	_, descPath := importCopy(t, "inventory")
	got, err := os.ReadFile(descPath)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "import", "inventory.tool.json.golden")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("generated descriptor differs from %s (go test -update rewrites it):\n%s", golden, got)
	}
}

func TestImportPythonSchema(t *testing.T) {
	_, descPath := importCopy(t, "inventory")
	d, err := readDescriptor(descPath)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Generated || d.Runner != RunnerModule || d.Script != "inventory.py" || d.Name != "inventory" ||
		d.RulePrompt != "Inventory helpers for the warehouse." || !d.LastModified.Equal(fixedTime) {
		t.Errorf("descriptor header = %+v", d)
	}
	var names []string
	tools := map[string]ToolSpec{}
	for _, tl := range d.Tools {
		names = append(names, tl.Function.Name)
		tools[tl.Function.Name] = tl
	}
	if got := strings.Join(names, ","); got != "add_item,scale,greet,shout" {
		t.Fatalf("tools = %s, want add_item,scale,greet,shout (source order; no private, imported or positional-only functions)", got)
	}
	add := tools["add_item"]
	if add.Function.Description != "Add an item to the inventory." {
		t.Errorf("description = %q", add.Function.Description)
	}
	var params map[string]any
	if err := json.Unmarshal(add.Function.Parameters, &params); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name":     map[string]any{"type": "string", "description": "The item's name."},
			"quantity": map[string]any{"type": "integer", "default": 1.0, "description": "How many to add. Must be positive."},
			"tags":     map[string]any{"type": []any{"array", "null"}, "items": map[string]any{"type": "string"}, "description": "Labels for searching."},
			"unit":     map[string]any{"type": "string", "enum": []any{"kg", "pcs"}, "default": "pcs", "description": "The unit of quantity."},
		},
		"required":             []any{"name"},
		"additionalProperties": false,
	}
	if g, w := mustJSON(t, params), mustJSON(t, want); g != w {
		t.Errorf("add_item parameters:\n got %s\nwant %s", g, w)
	}
	if rt := add.DeclaredReturnType; rt == nil || rt.Type != "object" || rt.Note != "The stored item." {
		t.Errorf("add_item return type = %+v", rt)
	}
	if p := add.Permission; p == nil || p.ExecutionPolicy != "ask-always" || p.ResultApprovalPolicy != "never" {
		t.Errorf("add_item permission = %+v, want explicit ask-always/never", p)
	}
	var greet map[string]any
	json.Unmarshal(tools["greet"].Function.Parameters, &greet)
	props := greet["properties"].(map[string]any)
	if props["who"].(map[string]any)["description"] != "Whom to greet." || props["times"].(map[string]any)["type"] != "integer" ||
		greet["additionalProperties"] != true {
		t.Errorf("greet parameters = %s (Annotated description, type from the default, **extra allows more)", mustJSON(t, greet))
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestImportedToolsRun(t *testing.T) {
	dir, _ := importCopy(t, "inventory")
	groups := load(t, dir, Options{})
	if len(groups) != 1 {
		t.Fatalf("groups = %v", groups)
	}
	x, _, _ := newExec(t, groups...)
	tests := []struct {
		tool   string
		args   map[string]any
		status executor.Status
		text   string
	}{
		{"add_item", map[string]any{"name": "bolt", "quantity": 3}, executor.StatusSuccess,
			`{"name":"bolt","quantity":3,"tags":[],"unit":"pcs"}`},
		{"scale", map[string]any{"values": []any{1, 2.5}}, executor.StatusSuccess, `[2.0,5.0]`},
		{"greet", map[string]any{"who": "Ann", "times": 2}, executor.StatusSuccess,
			"Good day, Ann, Good day, Ann\n\n[stderr]\ngreeting Ann"},
		{"shout", map[string]any{"text": "hey"}, executor.StatusSuccess, "HEY\n"},
		// Checked by the executor against the generated schema: never run.
		{"add_item", map[string]any{"name": "bolt", "quantity": "three"}, executor.StatusError, ""},
		{"add_item", map[string]any{"name": "bolt", "colour": "red"}, executor.StatusError, ""},
	}
	for _, tc := range tests {
		r := call(t, x, tc.tool, tc.args)
		if r.Status != tc.status || tc.text != "" && r.Text != tc.text {
			t.Errorf("%s(%v) = %s %q\nwant %s %q", tc.tool, tc.args, r.Status, r.Text, tc.status, tc.text)
		}
	}
	r := call(t, x, "add_item", map[string]any{"name": "bolt", "quantity": 0})
	if r.Status != executor.StatusError || !strings.HasPrefix(r.Error, "ValueError: quantity must be positive\n\n[stderr]\nTraceback") {
		t.Errorf("exception: %s %q, want the error and its traceback", r.Status, r.Error)
	}
}

func TestLoadRegeneratesChangedModule(t *testing.T) {
	dir, descPath := importCopy(t, "inventory")
	// An admin changes a permission and the rule prompt in the generated
	// descriptor; regeneration keeps both.
	d, err := readDescriptor(descPath)
	if err != nil {
		t.Fatal(err)
	}
	d.RulePrompt = "Admin's rules."
	d.Tools[0].Permission = &PermissionSpec{ExecutionPolicy: "auto"}
	if err := writeDescriptor(descPath, d); err != nil {
		t.Fatal(err)
	}
	if g := load(t, dir, Options{}); len(g) != 1 || len(g[0].Tools) != 4 {
		t.Fatalf("unchanged module: %v", g)
	}

	py := filepath.Join(dir, "inventory.py")
	src, _ := os.ReadFile(py)
	src = append(src, []byte("\n\ndef count(kind: str) -> int:\n    \"\"\"Count items of a kind.\"\"\"\n    return 7\n")...)
	if err := os.WriteFile(py, src, 0o644); err != nil {
		t.Fatal(err)
	}
	later := fixedTime.Add(time.Hour)
	os.Chtimes(py, later, later)

	groups := load(t, dir, Options{})
	if len(groups) != 1 || len(groups[0].Tools) != 5 {
		t.Fatalf("after the change: %v, want 5 tools", groups)
	}
	g := groups[0]
	if g.Rules != "Admin's rules." || g.Tools[0].Permission.Execution != executor.Auto || g.Tools[1].Permission.Execution != executor.AskAlways {
		t.Errorf("regeneration lost the admin's settings: rules %q, permissions %v %v", g.Rules, g.Tools[0].Permission, g.Tools[1].Permission)
	}
	d, _ = readDescriptor(descPath)
	if !d.LastModified.Equal(later) {
		t.Errorf("lastModified = %v, want the module's new time %v", d.LastModified, later)
	}
	x, _, _ := newExec(t, groups...)
	if r := call(t, x, "count", map[string]any{"kind": "bolt"}); r.Text != "7" {
		t.Errorf("count = %s %q", r.Status, r.Text)
	}
}

func TestHandWrittenDescriptorIsKept(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	hand := `{"runner": "module", "tools": [{"function": {"name": "f", "description": "Hand-written."}}]}`
	write(t, dir, map[string]string{"m.tool.json": hand, "m.py": "def f():\n    return 'hand'\n\ndef g():\n    pass\n"})
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(dir, "m.py"), later, later)

	_, err := ImportPython(filepath.Join(dir, "m.py"))
	if !errors.Is(err, ErrNotGenerated) {
		t.Errorf("ImportPython over a hand-written descriptor: %v, want ErrNotGenerated", err)
	}
	groups := load(t, dir, Options{})
	if len(groups) != 1 || len(groups[0].Tools) != 1 {
		t.Fatalf("groups = %v, want the hand-written one with 1 tool", groups)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "m.tool.json")); string(b) != hand {
		t.Errorf("hand-written descriptor was rewritten:\n%s", b)
	}
	x, _, _ := newExec(t, groups...)
	if r := call(t, x, "f", nil); r.Text != "hand" {
		t.Errorf("f = %s %q", r.Status, r.Text)
	}
}

func TestImportPythonErrors(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"broken.py":  "def f(:\n",
		"empty.py":   "X = 1\n\ndef _hidden():\n    pass\n\ndef pos(a, /):\n    pass\n",
		"notpy.txt":  "",
		"raising.py": "raise RuntimeError('no config file')\n",
	})
	tests := []struct{ file, want string }{
		{"broken.py", "SyntaxError"},
		{"empty.py", "no public function (one not starting with \"_\"); pos skipped: parameter 'a' is positional-only"},
		{"notpy.txt", "not a .py file"},
		{"raising.py", "RuntimeError: no config file"},
		{"missing.py", "no such file"},
	}
	for _, tc := range tests {
		_, err := ImportPython(filepath.Join(dir, tc.file))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ImportPython(%s) = %v, want an error containing %q", tc.file, err, tc.want)
		}
	}
	// A module whose regeneration fails is reported by Load and skipped.
	write(t, dir, map[string]string{
		"broken.tool.json": `{"generated": true, "lastModified": 1, "runner": "module", "tools": [{"function": {"name": "f", "description": "F."}}]}`,
	})
	lg, _ := newLogger(t)
	groups, errs := Load(lg, dir, Options{})
	if len(groups) != 0 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "regenerate from the changed broken.py") {
		t.Errorf("Load = %v, %v; want the regeneration error", groups, errs)
	}
}

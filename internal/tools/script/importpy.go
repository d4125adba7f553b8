package script

import (
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/threadbot/threadbot/internal/core/executor"
)

//go:embed introspect.py
var introspectPy string

// importTimeout bounds the introspection of a module (its top-level code
// runs).
const importTimeout = 30 * time.Second

// ErrNotGenerated is returned by ImportPython when a hand-written
// descriptor is in the way.
var ErrNotGenerated = errors.New("descriptor was written by hand")

// ImportPython writes the descriptor of a Python module next to it
// (FILE.tool.json for FILE.py) and returns its path. Every public function
// of the module (defined in it, or listed in __all__, and not starting with
// "_") becomes a tool: its docstring's first paragraph is the description,
// an "Args:"/"Parameters" section (Google, NumPy or Sphinx style) describes
// the parameters, type hints become the JSON Schema and parameters with a
// default are optional. The descriptor uses the embedded module runner, so
// the module needs no dispatch code, and is marked generated, so Load
// regenerates it when the module changes. Regenerating keeps the group
// name, rule prompt, skill rules, time limit and each tool's permission of
// the previous descriptor.
//
// Importing runs the module's top-level code with python3 (found on PATH).
// It returns an error when python3 is missing, the module fails to import,
// it has no usable public function, or FILE.tool.json exists and was not
// generated (ErrNotGenerated).
func ImportPython(pyFile string) (descriptorPath string, err error) {
	python, err := exec.LookPath("python3")
	if err != nil {
		return "", fmt.Errorf("import %s: python3 is not installed: %w", pyFile, err)
	}
	return importPython(context.Background(), python, pyFile, nil)
}

// introspection is what introspect.py prints.
type introspection struct {
	Module    string    `json:"module"`
	Doc       string    `json:"doc"`
	Functions []pyFunc  `json:"functions"`
	Skipped   []skipped `json:"skipped"`
}

type pyFunc struct {
	Name         string          `json:"name"`
	Doc          string          `json:"doc"`
	Signature    string          `json:"signature"`
	Params       []pyParam       `json:"params"`
	ExtraArgs    bool            `json:"extraArgs"`
	Returns      string          `json:"returns"`
	ReturnSchema json.RawMessage `json:"returnSchema"`
	Notes        []string        `json:"notes"`
}

type pyParam struct {
	Name     string         `json:"name"`
	Schema   map[string]any `json:"schema"`
	Required bool           `json:"required"`
	Type     string         `json:"type"`
	Default  any            `json:"default"`
}

type skipped struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// importPython generates and writes the descriptor of pyFile with the
// given interpreter (absolute path and fixed arguments after it).
func importPython(ctx context.Context, python, pyFile string, env []string) (string, error) {
	abs, err := filepath.Abs(pyFile)
	if err != nil {
		return "", fmt.Errorf("import %s: %w", pyFile, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("import %s: %w", pyFile, err)
	}
	if filepath.Ext(abs) != ".py" || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("import %s: not a .py file", pyFile)
	}
	descPath := strings.TrimSuffix(abs, ".py") + Suffix
	var prev *Descriptor
	if _, err := os.Stat(descPath); err == nil {
		prev, err = readDescriptor(descPath)
		if err == nil && !prev.Generated {
			return "", fmt.Errorf("import %s: %s exists: %w; edit it, or delete it to generate a new one", pyFile, descPath, ErrNotGenerated)
		}
		if err != nil {
			prev = nil // a broken generated descriptor is simply replaced
		}
	}
	info, err := introspect(ctx, python, abs, env)
	if err != nil {
		return "", fmt.Errorf("import %s: %w", pyFile, err)
	}
	d, err := buildDescriptor(info, filepath.Base(abs), fi.ModTime(), prev)
	if err != nil {
		return "", fmt.Errorf("import %s: %w", pyFile, err)
	}
	if err := writeDescriptor(descPath, d); err != nil {
		return "", fmt.Errorf("import %s: write descriptor: %w", pyFile, err)
	}
	return descPath, nil
}

// introspect runs the embedded introspection script on the module.
func introspect(ctx context.Context, python, abs string, env []string) (*introspection, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, importTimeout, ErrTimeout)
	defer cancel()
	home, err := os.MkdirTemp("", "threadbot-import-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(home)
	cmd := exec.Command(python, "-c", introspectPy, abs)
	cmd.Dir = filepath.Dir(abs)
	cmd.Env = append(minimalEnv(home), env...)
	stdout := &limitBuffer{max: 16 << 20}
	stderr := &limitBuffer{max: outputLimit}
	runErr := runGroup(ctx, cmd, nil, stdout, stderr)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("python3 did not finish importing the module within %s", importTimeout)
	}
	if runErr != nil {
		return nil, fmt.Errorf("python3 could not import the module (%v)%s", runErr, section("stderr", text(stderr)))
	}
	var info introspection
	if err := json.Unmarshal(stdout.buf, &info); err != nil {
		return nil, fmt.Errorf("read the introspection output: %v%s", err, section("stderr", text(stderr)))
	}
	return &info, nil
}

// buildDescriptor turns an introspection into a descriptor, keeping what an
// admin may have set in the previous generated descriptor.
func buildDescriptor(info *introspection, script string, modTime time.Time, prev *Descriptor) (*Descriptor, error) {
	if len(info.Functions) == 0 {
		msg := "the module has no public function (one not starting with \"_\")"
		for _, s := range info.Skipped {
			msg += fmt.Sprintf("; %s skipped: %s", s.Name, s.Reason)
		}
		return nil, errors.New(msg)
	}
	d := &Descriptor{
		Name:         groupName(info.Module),
		RulePrompt:   parseDocstring(info.Doc).Summary,
		LastModified: Timestamp{modTime},
		Generated:    true,
		Script:       script,
		Runner:       RunnerModule,
	}
	keep := map[string]*PermissionSpec{}
	if prev != nil {
		d.Name, d.RulePrompt, d.SkillRules, d.TimeoutMs = prev.Name, prev.RulePrompt, prev.SkillRules, prev.TimeoutMs
		for _, t := range prev.Tools {
			keep[cmp.Or(t.Entry, t.Function.Name)] = t.Permission
		}
	}
	for _, f := range info.Functions {
		spec, err := toolSpec(f, info.Module)
		if err != nil {
			return nil, err
		}
		if p, ok := keep[f.Name]; ok && p != nil {
			spec.Permission = p
		}
		d.Tools = append(d.Tools, spec)
	}
	return d, nil
}

func toolSpec(f pyFunc, module string) (ToolSpec, error) {
	doc := parseDocstring(f.Doc)
	desc := doc.Summary
	if desc == "" {
		desc = fmt.Sprintf("Call %s from %s.py.", f.Signature, module)
	}
	// Properties keep the signature's order, which reads better for the
	// model than sorted keys.
	var props bytes.Buffer
	props.WriteByte('{')
	var required []string
	for i, p := range f.Params {
		s := p.Schema
		if s == nil {
			s = map[string]any{}
		}
		if d := doc.Params[p.Name]; d != "" {
			s["description"] = d
		}
		if p.Default != nil {
			s["default"] = p.Default
		}
		name, _ := json.Marshal(p.Name)
		schema, err := json.Marshal(s)
		if err != nil {
			return ToolSpec{}, fmt.Errorf("function %s: parameter %s: %v", f.Name, p.Name, err)
		}
		if i > 0 {
			props.WriteByte(',')
		}
		props.Write(name)
		props.WriteByte(':')
		props.Write(schema)
		if p.Required {
			required = append(required, p.Name)
		}
	}
	props.WriteString("}")
	params := struct {
		Type                 string          `json:"type"`
		Properties           json.RawMessage `json:"properties"`
		Required             []string        `json:"required,omitempty"`
		AdditionalProperties bool            `json:"additionalProperties"`
	}{"object", props.Bytes(), required, f.ExtraArgs}
	raw, err := json.Marshal(params)
	if err != nil {
		return ToolSpec{}, fmt.Errorf("function %s: %v", f.Name, err)
	}
	spec := ToolSpec{
		Type:     "function",
		Function: FunctionSpec{Name: f.Name, Description: desc, Parameters: raw},
		Permission: &PermissionSpec{
			ExecutionPolicy:      string(executor.AskAlways),
			ResultApprovalPolicy: string(executor.Never),
		},
	}
	if f.Returns != "" || doc.Returns != "" {
		spec.DeclaredReturnType = &executor.ReturnType{Type: cmp.Or(jsonTypeName(f.ReturnSchema), f.Returns, "any"), Note: doc.Returns}
	}
	return spec, nil
}

// jsonTypeName returns the JSON type of a return schema ("" when unknown).
func jsonTypeName(raw json.RawMessage) string {
	var s struct {
		Type any `json:"type"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	switch t := s.Type.(type) {
	case string:
		return t
	case []any:
		var parts []string
		for _, p := range t {
			parts = append(parts, fmt.Sprint(p))
		}
		return strings.Join(parts, " or ")
	}
	return ""
}

var nonName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// groupName makes a module name a valid group name.
func groupName(module string) string {
	n := nonName.ReplaceAllString(module, "_")
	if n == "" {
		n = "python"
	}
	if len(n) > 64 {
		n = n[:64]
	}
	return n
}

// pythonNewer reports whether a generated descriptor is older than its
// script: the script's modification time is after lastModified (or after
// the descriptor file's own time when lastModified is missing).
func pythonNewer(descPath, script string, d *Descriptor) bool {
	sfi, err := os.Stat(script)
	if err != nil {
		return false
	}
	stamp := d.LastModified.Time
	if stamp.IsZero() {
		dfi, err := os.Stat(descPath)
		if err != nil {
			return false
		}
		stamp = dfi.ModTime()
	}
	return sfi.ModTime().After(stamp)
}

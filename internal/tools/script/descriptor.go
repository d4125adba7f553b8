package script

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/core/vars"
)

// Suffix is how descriptor file names end.
const Suffix = ".tool.json"

// Runners for Descriptor.Runner.
const (
	// RunnerScript runs `interpreter script FUNCTION`: the script reads
	// the JSON arguments from stdin and dispatches on its first argument.
	RunnerScript = "script"
	// RunnerModule (.py only) runs the script through threadbot's
	// embedded runner, which imports it as a module and calls
	// FUNCTION(**arguments): no dispatch code is needed.
	RunnerModule = "module"
)

// Descriptor is the content of a .tool.json file: one tool group backed by
// one script. See the package documentation for the format.
type Descriptor struct {
	// Name is the group name; "" means the file name without .tool.json.
	Name string `json:"name"`
	// RulePrompt is the group's rule text in the system prompt.
	RulePrompt string `json:"rulePrompt,omitempty"`
	// SkillRules become RULE variables Rule/{name}/{rule}.
	SkillRules []vars.SkillRule `json:"skillRules,omitempty"`
	// LastModified is when the descriptor was last changed; for a
	// generated descriptor, the script's modification time it describes.
	LastModified Timestamp `json:"lastModified,omitzero"`
	// Generated marks a descriptor written by ImportPython; Load
	// regenerates it when its script is newer.
	Generated bool `json:"generated,omitempty"`
	// Script is the script's path relative to the descriptor; "" means
	// the descriptor's name with .py, .sh or .ps1, the first that exists.
	Script string `json:"script,omitempty"`
	// Runner is RunnerScript (the default) or RunnerModule.
	Runner string `json:"runner,omitempty"`
	// TimeoutMs is a call's time limit; 0 means Options.Timeout.
	TimeoutMs int `json:"timeoutMs,omitempty"`
	// Tools are the group's tools, in OpenAI's function format.
	Tools []ToolSpec `json:"tools"`
}

// ToolSpec is one tool of a descriptor.
type ToolSpec struct {
	// Type is "function" ("" is taken as "function").
	Type     string       `json:"type,omitempty"`
	Function FunctionSpec `json:"function"`
	// Entry is the function name passed to the script; "" means
	// Function.Name. It lets a tool be renamed (to avoid a clash) without
	// renaming the function.
	Entry string `json:"entry,omitempty"`
	// Permission is the tool's approval policy; nil means ask-always
	// before running and no result approval.
	Permission *PermissionSpec `json:"permission,omitempty"`
	// DeclaredReturnType is appended to the description for the model.
	DeclaredReturnType *executor.ReturnType `json:"declaredReturnType,omitempty"`
}

// FunctionSpec is an OpenAI function definition.
type FunctionSpec struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is the JSON Schema of the arguments object; empty means
	// no arguments.
	Parameters json.RawMessage `json:"parameters,omitempty"`
}

// PermissionSpec is a tool's approval policy as the seed spells it.
type PermissionSpec struct {
	// ExecutionPolicy is "auto", "ask-once" or "ask-always" ("" means
	// ask-always).
	ExecutionPolicy string `json:"executionPolicy,omitempty"`
	// ResultApprovalPolicy is "never", "on-error" or "always" ("" means
	// never).
	ResultApprovalPolicy string `json:"resultApprovalPolicy,omitempty"`
}

// Timestamp is a time written either as an RFC 3339 string or as Unix
// milliseconds. It is written back as RFC 3339 with nanoseconds.
type Timestamp struct{ time.Time }

// UnmarshalJSON accepts "2026-01-02T15:04:05Z" or 1767366245000.
func (t *Timestamp) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		*t = Timestamp{}
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if s == "" {
			*t = Timestamp{}
			return nil
		}
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return fmt.Errorf("lastModified %q is not an RFC 3339 time", s)
		}
		t.Time = v
		return nil
	}
	ms, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("lastModified %s is neither an RFC 3339 string nor Unix milliseconds", b)
	}
	t.Time = time.UnixMilli(int64(ms))
	return nil
}

// MarshalJSON writes RFC 3339 with nanoseconds.
func (t Timestamp) MarshalJSON() ([]byte, error) {
	return json.Marshal(t.UTC().Format(time.RFC3339Nano))
}

var (
	groupNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)
	toolNameRE  = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
)

// readDescriptor parses a descriptor file strictly: unknown fields and
// trailing data are errors, so a misspelt key does not pass silently.
func readDescriptor(path string) (*Descriptor, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseDescriptor(b)
}

func parseDescriptor(b []byte) (*Descriptor, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var d Descriptor
	if err := dec.Decode(&d); err != nil {
		return nil, describeJSONError(b, err)
	}
	if dec.More() {
		return nil, errors.New("invalid JSON: data after the descriptor object")
	}
	return &d, nil
}

// describeJSONError adds the line and column to a syntax or type error.
func describeJSONError(b []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
		if te.Field != "" {
			err = fmt.Errorf("field %s: expected %s, found a JSON %s", te.Field, te.Type, te.Value)
		}
	}
	if off < 0 || off > int64(len(b)) {
		return fmt.Errorf("invalid JSON: %v", err)
	}
	// The offset is just past the offending character.
	pos := max(off-1, 0)
	line := 1 + bytes.Count(b[:pos], []byte("\n"))
	col := pos - int64(bytes.LastIndexByte(b[:pos], '\n'))
	return fmt.Errorf("invalid JSON at line %d, column %d: %v", line, col, err)
}

// writeDescriptor writes d as indented JSON, atomically.
func writeDescriptor(path string, d *Descriptor) error {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// stem returns a descriptor file's name without Suffix.
func stem(path string) string {
	return strings.TrimSuffix(filepath.Base(path), Suffix)
}

// permission converts a PermissionSpec; nil means ask-always, never.
func (p *PermissionSpec) permission() (executor.Permission, error) {
	perm := executor.Permission{Execution: executor.AskAlways, Result: executor.Never}
	if p == nil {
		return perm, nil
	}
	switch e := executor.ExecutionPolicy(p.ExecutionPolicy); e {
	case "":
	case executor.Auto, executor.AskOnce, executor.AskAlways:
		perm.Execution = e
	default:
		return perm, fmt.Errorf("executionPolicy %q is not one of auto, ask-once, ask-always", p.ExecutionPolicy)
	}
	switch r := executor.ResultPolicy(p.ResultApprovalPolicy); r {
	case "":
	case executor.Never, executor.OnError, executor.Always:
		perm.Result = r
	default:
		return perm, fmt.Errorf("resultApprovalPolicy %q is not one of never, on-error, always", p.ResultApprovalPolicy)
	}
	return perm, nil
}

// validate checks what can be checked without the script: names, types,
// policies and parameter objects. Schemas are compiled by Load.
func (d *Descriptor) validate() error {
	if !groupNameRE.MatchString(d.Name) {
		return fmt.Errorf("name %q must be 1-64 letters, digits, '_', '-' or '.'", d.Name)
	}
	if len(d.Tools) == 0 {
		return errors.New("no tools: \"tools\" must list at least one function")
	}
	switch d.Runner {
	case "", RunnerScript, RunnerModule:
	default:
		return fmt.Errorf("runner %q is not one of %q, %q", d.Runner, RunnerScript, RunnerModule)
	}
	if d.TimeoutMs < 0 {
		return fmt.Errorf("timeoutMs %d is negative", d.TimeoutMs)
	}
	for _, r := range d.SkillRules {
		if r.Name == "" || r.Prompt == "" {
			return fmt.Errorf("skill rule %q needs a name and a prompt", r.Name)
		}
	}
	seen := map[string]bool{}
	for i, t := range d.Tools {
		name := t.Function.Name
		where := fmt.Sprintf("tools[%d]", i)
		if name != "" {
			where += " (" + name + ")"
		}
		if t.Type != "" && t.Type != "function" {
			return fmt.Errorf("%s: type %q is not \"function\"", where, t.Type)
		}
		if !toolNameRE.MatchString(name) {
			return fmt.Errorf("%s: function.name %q must be 1-64 letters, digits, '_' or '-'", where, name)
		}
		if seen[name] {
			return fmt.Errorf("%s: function %q is listed twice", where, name)
		}
		seen[name] = true
		if strings.TrimSpace(t.Function.Description) == "" {
			return fmt.Errorf("%s: function.description is empty; the model needs it to know when to call the tool", where)
		}
		if t.Entry != "" && !toolNameRE.MatchString(t.Entry) {
			return fmt.Errorf("%s: entry %q must be 1-64 letters, digits, '_' or '-'", where, t.Entry)
		}
		if len(t.Function.Parameters) > 0 {
			var params map[string]any
			if err := json.Unmarshal(t.Function.Parameters, &params); err != nil {
				return fmt.Errorf("%s: function.parameters must be a JSON Schema object: %v", where, err)
			}
			if typ, ok := params["type"]; ok && typ != "object" {
				return fmt.Errorf("%s: function.parameters must have \"type\": \"object\", not %v", where, typ)
			}
		}
		if _, err := t.Permission.permission(); err != nil {
			return fmt.Errorf("%s: permission: %w", where, err)
		}
	}
	return nil
}

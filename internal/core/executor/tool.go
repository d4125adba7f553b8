package executor

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/threadbot/threadbot/internal/core/llm"
	"github.com/threadbot/threadbot/internal/core/vars"
)

// ExecutionPolicy says whether a person must approve a call before it runs.
type ExecutionPolicy string

// Execution policies.
const (
	// Auto runs without asking.
	Auto ExecutionPolicy = "auto"
	// AskOnce asks once per session for the same tool and expanded
	// arguments; the decision (approval or rejection) is remembered.
	AskOnce ExecutionPolicy = "ask-once"
	// AskAlways asks before every call.
	AskAlways ExecutionPolicy = "ask-always"
)

// ResultPolicy says whether a person must approve a result before the model
// sees it.
type ResultPolicy string

// Result-approval policies.
const (
	Never   ResultPolicy = "never"
	OnError ResultPolicy = "on-error" // ask only when the tool failed
	Always  ResultPolicy = "always"
)

// Permission is a tool's approval policy. The zero value means Auto/Never.
type Permission struct {
	Execution ExecutionPolicy `json:"execution,omitempty" yaml:"execution,omitempty"`
	Result    ResultPolicy    `json:"result,omitempty" yaml:"result,omitempty"`
}

func (p Permission) normalized() Permission {
	if p.Execution == "" {
		p.Execution = Auto
	}
	if p.Result == "" {
		p.Result = Never
	}
	return p
}

// ReturnType tells the model what a tool returns.
type ReturnType struct {
	Type string `json:"type"`
	Note string `json:"note,omitempty"`
}

// Attachment is a file or image a tool produced; adapters upload it into the
// thread beside the log entry.
type Attachment struct {
	Kind     string `json:"kind"` // "file" or "image"
	Name     string `json:"name"`
	Path     string `json:"path,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
	Data     []byte `json:"-"`
}

// Output is what a tool's Run returns.
type Output struct {
	// Data is the raw result. A string is the text itself; anything else is
	// formatted by the tool's Format, else as JSON.
	Data any
	// Title is a short human summary for the tool log ("Read main.go").
	Title string
	// Attachments are files for the thread.
	Attachments []Attachment
}

// Call is the execution context of one tool call.
type Call struct {
	ID        string // the model's tool-call id
	SessionID string
	MessageID string
	// Sandbox is the session's working directory; file tools stay inside it.
	Sandbox string
	// Requester is the user who started the turn.
	Requester string

	progress func(title string, data map[string]any)
	ask      func(ctx context.Context, title, detail string) (Decision, error)
}

// Progress reports live progress; adapters turn it into edits of the log
// message. It is safe to call when nobody listens.
func (c Call) Progress(title string, data map[string]any) {
	if c.progress != nil {
		c.progress(title, data)
	}
}

// Ask asks a person for a permission the tool needs while it runs (for
// example reading a file outside the sandbox). Without an approver it
// returns a rejection.
func (c Call) Ask(ctx context.Context, title, detail string) (Decision, error) {
	if c.ask == nil {
		return Decision{Reason: "no one can approve this here"}, nil
	}
	return c.ask(ctx, title, detail)
}

// Tool is one function the model can call. Name, Parameters and Run are
// required; everything else is optional. A Tool must not be copied after
// first use; share it by pointer.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments object.
	Parameters json.RawMessage
	Permission Permission
	// Run executes the call. An error becomes an ERROR result whose text is
	// the error message.
	Run func(ctx context.Context, call Call, args map[string]any) (Output, error)
	// Precheck, when set, runs after schema validation and before any
	// approval is asked. An error refuses the call (an ERROR result whose
	// text is the error message) without asking anyone, so a policy such
	// as the shell's deny patterns never reaches a person. It must not
	// have side effects.
	Precheck func(args map[string]any) error

	// Format turns the output into text for the model; nil means a string
	// as is, anything else as JSON.
	Format func(out Output, args map[string]any) string
	// Truncate replaces the default head-and-tail truncation. It reports
	// whether it cut anything.
	Truncate func(text string, limit int, args map[string]any) (string, bool)
	// SkipTruncate sends the formatted text whole.
	SkipTruncate bool
	// Limit is the output limit in characters; 0 means DefaultLimit.
	Limit int
	// CompressArgs and CompressResult shorten the tool log's view.
	CompressArgs   func(args map[string]any) string
	CompressResult func(text string) string
	// Returns is the declared return type, appended to the description.
	Returns *ReturnType

	once      sync.Once
	schema    *jsonschema.Schema
	schemaErr error
	ownLimit  bool // the schema declares its own "limit" property
}

// Definition returns what the model is offered for this tool.
func (t *Tool) Definition() llm.ToolDefinition {
	desc := t.Description
	if t.Returns != nil {
		desc += "\nReturns: " + t.Returns.Type
		if t.Returns.Note != "" {
			desc += " (" + t.Returns.Note + ")"
		}
	}
	params := t.Parameters
	if len(params) == 0 {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return llm.ToolDefinition{Name: t.Name, Description: desc, Parameters: params}
}

// RuleFunc builds a group's rule prompt from its enabled tool names (sorted).
type RuleFunc func(enabledTools []string) string

// Group is a named set of tools with the rules that explain them.
type Group struct {
	Name  string
	Tools []*Tool
	// Rules is the group's fixed rule prompt; RuleFunc, when set, wins.
	Rules    string
	RuleFunc RuleFunc
	// SkillRules become RULE variables Rule/{group}/{name}.
	SkillRules []vars.SkillRule
}

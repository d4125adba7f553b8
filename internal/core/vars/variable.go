package vars

import "time"

// Type says who created a variable and why.
type Type string

// The variable types of seed 001.
const (
	TypeRule           Type = "RULE"           // skill-rule documents; keep, never evicted
	TypeToolCallResult Type = "ToolCallResult" // cached tool results
	TypeToolCallArgs   Type = "ToolCallArgs"   // cached tool arguments
	TypeMessageCache   Type = "MessageCache"   // cached message content
	TypeLLMAdd         Type = "LLMAdd"         // written by the model (WriteVar)
	TypeUserAdd        Type = "USER_ADD"       // written by a person
)

// Variable is one named value of a session.
type Variable struct {
	Name  string   `json:"name"`
	Value string   `json:"value"` // always a string; non-strings are stored as JSON
	Desc  string   `json:"desc,omitempty"`
	Type  Type     `json:"type"`
	Tags  []string `json:"tags,omitempty"`
	// Keep variables are never evicted.
	Keep        bool      `json:"keep,omitempty"`
	Created     time.Time `json:"created"`
	Updated     time.Time `json:"updated"`
	LastVisited time.Time `json:"lastVisited"`
	RefCount    int       `json:"refCount,omitempty"`
}

// SkillRule is an on-demand rule document that a tool group declares. It is
// stored as the RULE variable Rule/{group}/{name}.
type SkillRule struct {
	Name string `json:"name"`
	// Desc is the one-line description shown in the system prompt.
	Desc string `json:"desc"`
	// Prompt is the whole rule (Markdown), the variable's value.
	Prompt string `json:"prompt"`
	// When says when to read the rule.
	When string `json:"when,omitempty"`
	// AlwaysLoad rules are inlined in the system prompt.
	AlwaysLoad bool `json:"alwaysLoad,omitempty"`
}

package fs

import (
	_ "embed"
	"strings"

	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/core/vars"
)

// GroupName is the name of the group Group returns.
const GroupName = "fs"

// Defaults of Options (seed 003's reference values where it has them).
const (
	DefaultReadMaxLines     = 2000
	DefaultReadMaxLineChars = 2000
	DefaultReadMaxBytes     = 50 << 10
	DefaultMaxResults       = 100
	DefaultListMaxEntries   = 500
	DefaultMaxFileBytes     = 10 << 20
	DefaultMaxWalk          = 100_000
)

// Options configures the group. The zero value uses the defaults above.
type Options struct {
	// ReadMaxLines is read's default and largest line count (2,000).
	ReadMaxLines int
	// ReadMaxLineChars cuts longer lines in read and grep output (2,000).
	ReadMaxLineChars int
	// ReadMaxBytes caps read's output (50 KB).
	ReadMaxBytes int
	// MaxResults caps glob's files and grep's matches (100).
	MaxResults int
	// ListMaxEntries caps list's entries (500).
	ListMaxEntries int
	// MaxFileBytes is the largest file edit changes and grep searches
	// (10 MiB); grep skips larger files and says how many.
	MaxFileBytes int64
	// MaxWalk is how many directory entries glob, grep and list visit at
	// most before they stop and say so (100,000).
	MaxWalk int
}

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.ReadMaxLines, DefaultReadMaxLines)
	def(&o.ReadMaxLineChars, DefaultReadMaxLineChars)
	def(&o.ReadMaxBytes, DefaultReadMaxBytes)
	def(&o.MaxResults, DefaultMaxResults)
	def(&o.ListMaxEntries, DefaultListMaxEntries)
	def(&o.MaxWalk, DefaultMaxWalk)
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	return o
}

var (
	//go:embed rules/fs.md
	groupRules string
	//go:embed rules/edit.md
	editRule string
)

// Group returns the fs tool group: read, glob, grep and list run without
// asking (executor.Auto); write and edit ask every time
// (executor.AskAlways). Paths outside the session's sandbox additionally
// need a person's approval while the tool runs.
func Group(opts Options) *executor.Group {
	o := opts.withDefaults()
	return &executor.Group{
		Name: GroupName,
		Tools: []*executor.Tool{
			readTool(o), writeTool(o), editTool(o),
			globTool(o), grepTool(o), listTool(o),
		},
		RuleFunc: rules,
		SkillRules: []vars.SkillRule{{
			Name:   "Edit",
			Desc:   "How to make reliable edits with the edit tool",
			Prompt: editRule,
			When:   "Before changing an existing file with edit",
		}},
	}
}

// rules builds the group's rule prompt: the general part of rules/fs.md and
// the bullet of each enabled tool (lines starting with "- `name`").
func rules(enabled []string) string {
	on := map[string]bool{}
	for _, n := range enabled {
		on[n] = true
	}
	var b strings.Builder
	for line := range strings.Lines(groupRules) {
		if rest, ok := strings.CutPrefix(line, "- `"); ok {
			name, _, _ := strings.Cut(rest, "`")
			if !on[name] {
				continue
			}
		}
		b.WriteString(line)
	}
	return strings.TrimSpace(b.String())
}

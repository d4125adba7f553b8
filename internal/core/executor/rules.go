package executor

import (
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/threadbot/threadbot/internal/core/vars"
)

//go:embed prompts/base.md
var baseRules string

//go:embed prompts/skill_index.md
var skillIndex string

// ToolRules returns the tool-rules section of the system prompt: the base
// rules and the Agent skill rules, then, for each enabled group with at
// least one enabled tool (in registration order), its rule prompt and its
// skill-rule index. It is empty when no group is enabled.
func (x *Executor) ToolRules() string {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if !x.anyGroupLocked() {
		return ""
	}
	var b strings.Builder
	base := strings.TrimSuffix(baseRules, "\n")
	b.WriteString(strings.ReplaceAll(base, "{{LIMIT}}", strconv.Itoa(x.opts.Limit)))
	b.WriteString("\n\n")
	b.WriteString(renderSkillIndex("Agent", vars.AgentRules()))
	for _, name := range x.order {
		g := x.groups[name]
		if !x.groupOn[name] {
			continue
		}
		var enabled []string
		for _, t := range g.Tools {
			if x.toolOn[t.Name] {
				enabled = append(enabled, t.Name)
			}
		}
		if len(enabled) == 0 {
			continue
		}
		slices.Sort(enabled)
		fmt.Fprintf(&b, "\n<group name=%q>\n", name)
		fmt.Fprintf(&b, "Tools: %s\n", strings.Join(enabled, ", "))
		prompt := g.Rules
		if g.RuleFunc != nil {
			prompt = g.RuleFunc(enabled)
		}
		if prompt = strings.TrimSpace(prompt); prompt != "" {
			b.WriteString(prompt)
			b.WriteString("\n")
		}
		if idx := renderSkillIndex(name, g.SkillRules); idx != "" {
			b.WriteString(idx)
		}
		b.WriteString("</group>\n")
	}
	b.WriteString("</tool-rules>\n")
	return b.String()
}

// renderSkillIndex inlines alwaysLoad rules and lists the others in a table
// of variable name, description and when to read it.
func renderSkillIndex(group string, rules []vars.SkillRule) string {
	if len(rules) == 0 {
		return ""
	}
	var inline, rows strings.Builder
	for _, r := range rules {
		if r.AlwaysLoad {
			fmt.Fprintf(&inline, "**Rule: %s**\n%s\n\n", r.Name, strings.TrimSpace(r.Prompt))
			continue
		}
		fmt.Fprintf(&rows, "| `%s` | %s | %s |\n", vars.RuleName(group, r.Name), cell(r.Desc), cell(r.When))
	}
	out := inline.String()
	if rows.Len() > 0 {
		out += strings.ReplaceAll(skillIndex, "{{ROWS}}\n", rows.String())
	}
	return out
}

// cell keeps a table cell on one line.
func cell(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\n", " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

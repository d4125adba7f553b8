package vars

import (
	_ "embed"
	"fmt"
)

// AgentGroup is the group of the built-in skill rules.
const AgentGroup = "Agent"

// RulePrefix starts the name of every skill-rule variable. The model may
// not create variables under it.
const RulePrefix = "Rule/"

var (
	//go:embed rules/varref.md
	varRefPrompt string
	//go:embed rules/todo.md
	todoPrompt string
)

// AgentRules returns the built-in skill rules of the group AgentGroup:
// VarRef (how to use $VAR_REF) and TODO (keeping a TODO list in
// variables), stored as Rule/Agent/VarRef and Rule/Agent/TODO.
func AgentRules() []SkillRule {
	return []SkillRule{
		{
			Name:   "VarRef",
			Desc:   "How to pass variables and earlier tool results to tools with $VAR_REF",
			Prompt: varRefPrompt,
			When:   "Before passing large content or an earlier tool result to a tool",
		},
		{
			Name:   "TODO",
			Desc:   "Keeping a TODO list for multi-step tasks in TODO_{index}_{brief} variables",
			Prompt: todoPrompt,
			When:   "When a task needs several steps or tool calls",
		},
	}
}

// RuleName returns the name of the variable that holds a skill rule:
// "Rule/{group}/{rule}".
func RuleName(group, rule string) string {
	return RulePrefix + group + "/" + rule
}

// SetRule stores the skill rule r of group as the RULE variable
// RuleName(group, r.Name), kept and never evicted, with the description
// "Skill rule for {group}: {desc}". It returns the errors of Set.
func (s *System) SetRule(group string, r SkillRule) error {
	return s.Set(Variable{
		Name:  RuleName(group, r.Name),
		Value: r.Prompt,
		Desc:  fmt.Sprintf("Skill rule for %s: %s", group, r.Desc),
		Type:  TypeRule,
		Keep:  true,
	})
}

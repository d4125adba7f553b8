package vars

import (
	"slices"
	"strings"
	"testing"
)

func TestRuleName(t *testing.T) {
	if got, want := RuleName("Agent", "VarRef"), "Rule/Agent/VarRef"; got != want {
		t.Errorf("RuleName() = %q, want %q", got, want)
	}
	if !ValidName(RuleName("web", "Fetch-2")) {
		t.Error("rule names are not valid variable names")
	}
}

func TestAgentRules(t *testing.T) {
	rules := AgentRules()
	var got []string
	for _, r := range rules {
		got = append(got, RuleName(AgentGroup, r.Name))
	}
	if want := []string{"Rule/Agent/VarRef", "Rule/Agent/TODO"}; !slices.Equal(got, want) {
		t.Fatalf("rule variables = %q, want %q", got, want)
	}
	// Each prompt must cover what the model needs to know.
	mentions := map[string][]string{
		"VarRef": {"$VAR_REF{{name}}", "$VAR_REF{{name:start:length}}", "_result", "_args", "not found", "ToolCallArgs", "ReadVar"},
		"TODO":   {"TODO_{index}_{brief}", "WriteVar", "ListVars", `"TODO_"`, "RemoveVars", "[pending]", "[done]"},
	}
	for _, r := range rules {
		if r.Desc == "" || r.When == "" || r.AlwaysLoad {
			t.Errorf("%s: Desc %q, When %q, AlwaysLoad %v; want both set and on demand", r.Name, r.Desc, r.When, r.AlwaysLoad)
		}
		for _, m := range mentions[r.Name] {
			if !strings.Contains(r.Prompt, m) {
				t.Errorf("%s prompt does not mention %q", r.Name, m)
			}
		}
	}
}

func TestSetRule(t *testing.T) {
	s := New(Options{Capacity: 1})
	for _, r := range AgentRules() {
		if err := s.SetRule(AgentGroup, r); err != nil {
			t.Fatal(err)
		}
	}
	s.Add("x", "1", TypeLLMAdd, "", nil)
	s.Add("y", "1", TypeLLMAdd, "", nil)
	if got, want := names(s.Snapshot()), []string{"Rule/Agent/TODO", "Rule/Agent/VarRef", "y"}; !slices.Equal(got, want) {
		t.Errorf("left %q, want %q", got, want)
	}
	v, _ := s.Peek("Rule/Agent/VarRef")
	if v.Type != TypeRule || !v.Keep || v.Desc != "Skill rule for Agent: "+AgentRules()[0].Desc {
		t.Errorf("rule variable = %+v", v)
	}
	// The rules can be referenced by name.
	got, err := s.ResolveString("$VAR_REF{{Rule/Agent/TODO:0:1}}")
	if err != nil || got != "#" {
		t.Errorf("ResolveString() = %q, %v; want %q", got, err, "#")
	}
}

package vars

import (
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestRemove(t *testing.T) {
	tests := []struct {
		name        string
		byModel     bool
		remove      []string
		wantRemoved []string
		wantFailed  map[string]string
		wantLeft    []string
	}{
		{
			name:        "runtime removes anything",
			remove:      []string{"b", "Rule/Agent/TODO", "missing"},
			wantRemoved: []string{"b", "Rule/Agent/TODO"},
			wantFailed:  map[string]string{"missing": "not found"},
			wantLeft:    []string{"Rule/Agent/VarRef", "a"},
		},
		{
			name:        "model cannot remove RULE",
			byModel:     true,
			remove:      []string{"b", "Rule/Agent/TODO", "missing", "a"},
			wantRemoved: []string{"b", "a"},
			wantFailed:  map[string]string{"missing": "not found", "Rule/Agent/TODO": "RULE variables cannot be removed"},
			wantLeft:    []string{"Rule/Agent/TODO", "Rule/Agent/VarRef"},
		},
		{
			name:        "twice",
			byModel:     true,
			remove:      []string{"a", "a"},
			wantRemoved: []string{"a"},
			wantFailed:  map[string]string{"a": "not found"},
			wantLeft:    []string{"Rule/Agent/TODO", "Rule/Agent/VarRef", "b"},
		},
		{
			name:     "nothing",
			wantLeft: []string{"Rule/Agent/TODO", "Rule/Agent/VarRef", "a", "b"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Options{})
			for _, r := range AgentRules() {
				if err := s.SetRule(AgentGroup, r); err != nil {
					t.Fatal(err)
				}
			}
			for _, name := range []string{"a", "b"} {
				if err := s.Add(name, "v", TypeLLMAdd, "", nil); err != nil {
					t.Fatal(err)
				}
			}
			remove := s.Remove
			if tt.byModel {
				remove = s.RemoveByModel
			}
			removed, failed := remove(tt.remove...)
			if !slices.Equal(removed, tt.wantRemoved) {
				t.Errorf("removed = %q, want %q", removed, tt.wantRemoved)
			}
			if !maps.Equal(failed, tt.wantFailed) {
				t.Errorf("failed = %q, want %q", failed, tt.wantFailed)
			}
			if got := names(s.Snapshot()); !slices.Equal(got, tt.wantLeft) {
				t.Errorf("left = %q, want %q", got, tt.wantLeft)
			}
			check(t, s)
		})
	}
}

func TestWriteByModel(t *testing.T) {
	tests := []struct {
		name        string
		w           ModelWrite
		wantCreated bool
		wantErr     error
		want        *Variable // the variable afterwards, if any
	}{
		{
			name:        "new",
			w:           ModelWrite{Name: "n", Value: ptr("v"), Desc: ptr("d"), Tags: []string{"t"}},
			wantCreated: true,
			want:        &Variable{Name: "n", Value: "v", Desc: "d", Type: TypeLLMAdd, Tags: []string{"t"}},
		},
		{name: "new without value", w: ModelWrite{Name: "n", Desc: ptr("d")}, wantErr: ErrValueRequired},
		{name: "new with empty value", w: ModelWrite{Name: "n", Value: ptr("")}, wantErr: ErrValueRequired},
		{name: "bad name", w: ModelWrite{Name: "a b", Value: ptr("v")}, wantErr: ErrInvalidName},
		{name: "too large", w: ModelWrite{Name: "n", Value: ptr(strings.Repeat("x", 1000))}, wantErr: ErrTooLarge},
		{name: "RULE", w: ModelWrite{Name: "Rule/Agent/TODO", Value: ptr("v")}, wantErr: ErrProtected},
		{name: "RULE desc only", w: ModelWrite{Name: "Rule/Agent/TODO", Desc: ptr("d")}, wantErr: ErrProtected},
		{name: "new under Rule/", w: ModelWrite{Name: "Rule/Mine/X", Value: ptr("v")}, wantErr: ErrProtected},
		{
			name: "existing keeps type",
			w:    ModelWrite{Name: "u", Value: ptr("v2")},
			want: &Variable{Name: "u", Value: "v2", Desc: "user", Type: TypeUserAdd, Tags: []string{"a"}},
		},
		{
			name: "existing desc and tags only",
			w:    ModelWrite{Name: "u", Desc: ptr("d2"), Tags: []string{"b"}},
			want: &Variable{Name: "u", Value: "v1", Desc: "d2", Type: TypeUserAdd, Tags: []string{"b"}},
		},
		{
			name: "existing empty value allowed",
			w:    ModelWrite{Name: "u", Value: ptr("")},
			want: &Variable{Name: "u", Value: "", Desc: "user", Type: TypeUserAdd, Tags: []string{"a"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClock()
			s := New(Options{Now: c.Now, MaxBytes: 500})
			if err := s.SetRule(AgentGroup, SkillRule{Name: "TODO", Desc: "todo", Prompt: "p"}); err != nil {
				t.Fatal(err)
			}
			if err := s.Add("u", "v1", TypeUserAdd, "user", []string{"a"}); err != nil {
				t.Fatal(err)
			}
			c.tick()
			created, err := s.WriteByModel(tt.w)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if created != tt.wantCreated {
				t.Errorf("created = %v, want %v", created, tt.wantCreated)
			}
			if rule, _ := s.Peek("Rule/Agent/TODO"); rule.Value != "p" || rule.Desc != "Skill rule for Agent: todo" {
				t.Errorf("rule changed: %+v", rule)
			}
			if tt.want == nil {
				if _, ok := s.Peek(tt.w.Name); ok && tt.w.Name != "Rule/Agent/TODO" {
					t.Errorf("%s exists after a failed write", tt.w.Name)
				}
				return
			}
			got, _ := s.Peek(tt.want.Name)
			want := *tt.want
			want.Created, want.Updated, want.LastVisited = got.Created, at(1), at(1)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
			check(t, s)
		})
	}
}

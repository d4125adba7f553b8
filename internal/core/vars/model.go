package vars

import (
	"fmt"
	"slices"
	"strings"
)

// This file holds the model-facing side of the store: what the WriteVar and
// RemoveVars tools may do. RULE variables are protected here; the runtime
// API in system.go is not restricted.

// RemoveByModel is Remove for the model (the RemoveVars tool): it refuses
// RULE variables, with the reason "RULE variables cannot be removed", and
// reports missing names with the reason "not found".
func (s *System) RemoveByModel(names ...string) (removed []string, failed map[string]string) {
	return s.remove(names, true)
}

// ModelWrite is a write by the model (the WriteVar tool). Nil fields are
// left unchanged.
type ModelWrite struct {
	Name string
	// Value is the new value; a new variable needs a non-nil, non-empty
	// one.
	Value *string
	Desc  *string
	// Tags replaces the tags when not nil.
	Tags []string
}

// WriteByModel carries out the WriteVar tool. A new variable needs a
// non-empty Value (else ErrValueRequired) and gets type LLMAdd; created is
// then true. An existing variable gets the given fields, keeping its type.
// An existing RULE variable cannot be overwritten, nor can a variable be
// created under "Rule/" (ErrProtected). It also returns ErrInvalidName and
// ErrTooLarge, like Set.
func (s *System) WriteByModel(w ModelWrite) (created bool, err error) {
	if !ValidName(w.Name) {
		return false, fmt.Errorf("write variable %q: %w", w.Name, ErrInvalidName)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.vars[w.Name]; ok {
		if e.v.Type == TypeRule {
			return false, fmt.Errorf("write variable %q: %w", w.Name, ErrProtected)
		}
		if err := s.update(e, Update{Value: w.Value, Desc: w.Desc, Tags: w.Tags}); err != nil {
			return false, fmt.Errorf("write variable %q: %w", w.Name, err)
		}
		return false, nil
	}
	if strings.HasPrefix(w.Name, RulePrefix) {
		return false, fmt.Errorf("write variable %q: names under %s are reserved: %w", w.Name, RulePrefix, ErrProtected)
	}
	if w.Value == nil || *w.Value == "" {
		return false, fmt.Errorf("write variable %q: %w", w.Name, ErrValueRequired)
	}
	v := Variable{Name: w.Name, Value: *w.Value, Type: TypeLLMAdd, Tags: slices.Clone(w.Tags)}
	if w.Desc != nil {
		v.Desc = *w.Desc
	}
	if err := s.set(v); err != nil {
		return false, fmt.Errorf("write variable %q: %w", w.Name, err)
	}
	return true, nil
}

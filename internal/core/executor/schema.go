package executor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// compiled returns the tool's compiled schema, compiling it once.
func (t *Tool) compiled() (*jsonschema.Schema, error) {
	t.once.Do(func() {
		raw := t.Parameters
		if len(raw) == 0 {
			raw = json.RawMessage(`{"type":"object"}`)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.schemaErr = fmt.Errorf("%w: %v", ErrBadSchema, err)
			return
		}
		if m, ok := doc.(map[string]any); ok {
			if props, ok := m["properties"].(map[string]any); ok {
				_, t.ownLimit = props["limit"]
			}
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		url := "mem://tool/" + t.Name + ".json"
		if err := c.AddResource(url, doc); err != nil {
			t.schemaErr = fmt.Errorf("%w: %v", ErrBadSchema, err)
			return
		}
		t.schema, t.schemaErr = c.Compile(url)
		if t.schemaErr != nil {
			t.schemaErr = fmt.Errorf("%w: %v", ErrBadSchema, t.schemaErr)
		}
	})
	return t.schema, t.schemaErr
}

// validate checks args against the schema and returns a message the model
// can act on: one line per problem, naming the field and what was expected.
func (t *Tool) validate(args map[string]any) error {
	sch, err := t.compiled()
	if err != nil {
		return err
	}
	// The validator wants JSON-decoded values (json.Number or float64); args
	// may hold Go values after $VAR_REF resolution, so round-trip them.
	b, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("arguments are not JSON: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("arguments are not JSON: %v", err)
	}
	err = sch.Validate(inst)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	var lines []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			if loc == "/" {
				loc = "(arguments)"
			}
			lines = append(lines, fmt.Sprintf("- %s: %s", loc, e.ErrorKind.LocalizedString(printer)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.Sort(lines)
	lines = slices.Compact(lines)
	return fmt.Errorf("invalid arguments for %s:\n%s", t.Name, strings.Join(lines, "\n"))
}

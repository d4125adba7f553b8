package fs

import (
	"encoding/json"
	"math"
)

// schema builds a tool's parameter schema: an object with the given
// properties, the required ones, and no others. encoding/json sorts the map
// keys, so the text is stable.
func schema(props map[string]any, required ...string) json.RawMessage {
	s := map[string]any{
		"type":                 "object",
		"properties":           props,
		"additionalProperties": false,
	}
	if len(required) > 0 {
		s["required"] = required
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // built from literals
	}
	return b
}

// prop is one schema property.
func prop(typ, desc string, extra ...any) map[string]any {
	p := map[string]any{"type": typ, "description": desc}
	for i := 0; i+1 < len(extra); i += 2 {
		p[extra[i].(string)] = extra[i+1]
	}
	return p
}

// str returns a string argument, or def when it is absent.
func str(args map[string]any, key, def string) string {
	if s, ok := args[key].(string); ok {
		return s
	}
	return def
}

// num returns an integer argument (validated JSON numbers arrive as
// float64), or def when it is absent.
func num(args map[string]any, key string, def int) int {
	switch v := args[key].(type) {
	case float64:
		if v >= math.MaxInt32 {
			return math.MaxInt32
		}
		return int(v)
	case int:
		return v
	}
	return def
}

// flag returns a boolean argument, false when absent.
func flag(args map[string]any, key string) bool {
	b, _ := args[key].(bool)
	return b
}

// dirArg returns the path argument of a search tool; absent or empty means
// the sandbox.
func dirArg(args map[string]any) string {
	if p := str(args, "path", ""); p != "" {
		return p
	}
	return "."
}

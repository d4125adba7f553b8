package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Load builds the configuration in three layers: Default, then the YAML
// file at path, then the environment variables of EnvVars read through
// getenv, which win. An empty path means no file; a path that names a
// missing file is an error.
//
// A file with an unknown key, a value of the wrong type, or more than one
// YAML document is an error naming the file, line and key; Load then
// returns a zero Config. When the configuration loads but fails Validate,
// Load returns it together with the validation error, whose problems each
// name their key (and the environment variable that set it, if one did).
func Load(path string, getenv func(string) string) (Config, error) {
	cfg := Default()
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return Config{}, fmt.Errorf("load config: %w", err)
		}
		if err := decode(path, data, &cfg); err != nil {
			return Config{}, fmt.Errorf("load config: %w", err)
		}
	}
	fromEnv := applyEnv(&cfg, getenv)
	if ps := cfg.problems(); len(ps) > 0 {
		errs := make([]error, len(ps))
		for i, p := range ps {
			if name := envSource(p.key, fromEnv); name != "" {
				p.key += " (from " + name + ")"
			}
			errs[i] = p
		}
		source := path
		if source == "" {
			source = "defaults and environment"
		}
		return cfg, fmt.Errorf("invalid config (%s):\n%w", source, errors.Join(errs...))
	}
	return cfg, nil
}

// Encode writes c as YAML that Load reads back unchanged. Use it on
// Redacted to show a configuration without its secrets.
func (c Config) Encode(w io.Writer) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		return fmt.Errorf("encode config: %w", err)
	}
	return enc.Close()
}

// decode reads one YAML document from data into cfg, leaving the keys the
// document does not mention as they were. name is used in error messages.
func decode(name string, data []byte, cfg *Config) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil // empty file or only comments
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s:%d: only one YAML document is allowed", name, next.Line)
	}
	if len(doc.Content) == 0 || isNull(doc.Content[0]) {
		return nil
	}

	var errs []error
	check(doc.Content[0], reflect.TypeFor[Config](), "", func(line int, key, msg string) {
		errs = append(errs, fmt.Errorf("%s:%d: %s: %s", name, line, key, msg))
	})
	if len(errs) > 0 {
		return errors.Join(errs...)
	}

	// check has vetted every key and value; decoding with KnownFields
	// remains as a backstop.
	strict := yaml.NewDecoder(bytes.NewReader(data))
	strict.KnownFields(true)
	if err := strict.Decode(cfg); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// check walks node against type t and reports, with the full key path and
// line, every key t does not have and every value that does not fit, so
// that errors read "bot.histroy: unknown key" rather than naming a Go type.
func check(n *yaml.Node, t reflect.Type, path string, report func(line int, key, msg string)) {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if isNull(n) {
		return
	}
	switch {
	case t.Kind() == reflect.Pointer:
		check(n, t.Elem(), path, report)

	case t.Kind() == reflect.Struct:
		if n.Kind != yaml.MappingNode {
			report(n.Line, display(path), "want a mapping of keys, got "+describe(n))
			return
		}
		fields := yamlFields(t)
		seen := make(map[string]int)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "<<" { // merge key: the merged mapping has the same keys
				check(v, t, path, report)
				continue
			}
			if duplicate(k, seen, path, report) {
				continue
			}
			f, ok := fields[k.Value]
			if !ok {
				report(k.Line, join(path, k.Value), "unknown key"+suggest(k.Value, fields))
				continue
			}
			check(v, f.Type, join(path, k.Value), report)
		}

	case t.Kind() == reflect.Map:
		if n.Kind != yaml.MappingNode {
			report(n.Line, display(path), "want a mapping, got "+describe(n))
			return
		}
		seen := make(map[string]int)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Value == "" {
				report(k.Line, display(path), "keys must be non-empty strings")
				continue
			}
			if duplicate(k, seen, path, report) {
				continue
			}
			check(v, t.Elem(), join(path, k.Value), report)
		}

	case t.Kind() == reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			report(n.Line, display(path), "want a list, got "+describe(n))
			return
		}
		for i, v := range n.Content {
			check(v, t.Elem(), fmt.Sprintf("%s[%d]", path, i), report)
		}

	default:
		if n.Kind != yaml.ScalarNode || n.Decode(reflect.New(t).Interface()) != nil {
			report(n.Line, display(path), "want "+want(t)+", got "+describe(n))
		}
	}
}

// duplicate reports a key that already occurred in the same mapping.
func duplicate(k *yaml.Node, seen map[string]int, path string, report func(int, string, string)) bool {
	if first, ok := seen[k.Value]; ok {
		report(k.Line, join(path, k.Value), fmt.Sprintf("appears twice (first on line %d)", first))
		return true
	}
	seen[k.Value] = k.Line
	return false
}

// yamlFields maps the yaml names of t's fields to the fields.
func yamlFields(t reflect.Type) map[string]reflect.StructField {
	fields := make(map[string]reflect.StructField, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		if name := yamlName(f); name != "" {
			fields[name] = f
		}
	}
	return fields
}

// yamlName is the key a struct field has in YAML, or "" if it has none.
func yamlName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	switch name {
	case "-":
		return ""
	case "":
		return strings.ToLower(f.Name)
	}
	return name
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func display(path string) string {
	if path == "" {
		return "(top level)"
	}
	return path
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// describe says what a node holds, for error messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return fmt.Sprintf("%q", n.Value)
}

// want says what a value of type t looks like in YAML.
func want(t reflect.Type) string {
	if t == reflect.TypeFor[time.Duration]() {
		return `a duration such as "90s", "10m" or "168h" (there is no day unit)`
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	}
	return t.String()
}

// suggest names the known key closest to an unknown one, if any is close.
func suggest(key string, fields map[string]reflect.StructField) string {
	best, bestDist := "", 3
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if d := distance(strings.ToLower(strings.ReplaceAll(key, "-", "_")), name); d < bestDist {
			best, bestDist = name, d
		}
	}
	if best == "" {
		return " (known keys: " + strings.Join(names, ", ") + ")"
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

package config

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

const examplePath = "threadbot.example.yaml"

func reflectConfig() reflect.Type { return reflect.TypeFor[Config]() }

// keyPaths lists every key path of type t: "bot.max_rounds",
// "channels.*.history", "tools.mcp[].name".
func keyPaths(t reflect.Type, prefix string) map[string]bool {
	paths := make(map[string]bool)
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		switch t.Kind() {
		case reflect.Pointer:
			walk(t.Elem(), prefix)
		case reflect.Struct:
			for i := range t.NumField() {
				f := t.Field(i)
				if name := yamlName(f); name != "" {
					p := join(prefix, name)
					paths[p] = true
					walk(f.Type, p)
				}
			}
		case reflect.Map:
			walk(t.Elem(), prefix+".*")
		case reflect.Slice:
			walk(t.Elem(), prefix+"[]")
		}
	}
	walk(t, prefix)
	return paths
}

// nodePaths lists the key paths present in a YAML document read as type t,
// spelled as keyPaths spells them. leafComments receives each key of a
// struct field that is not itself a section, with its comment.
func nodePaths(n *yaml.Node, t reflect.Type, prefix string, paths map[string]bool, leaf func(path string, key *yaml.Node)) {
	if n.Kind == yaml.DocumentNode {
		n = n.Content[0]
	}
	switch t.Kind() {
	case reflect.Pointer:
		nodePaths(n, t.Elem(), prefix, paths, leaf)
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return
		}
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			f, ok := fields[k.Value]
			if !ok {
				continue
			}
			p := join(prefix, k.Value)
			paths[p] = true
			if f.Type.Kind() != reflect.Struct {
				leaf(p, k)
			}
			nodePaths(v, f.Type, p, paths, leaf)
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 1; i < len(n.Content); i += 2 {
			nodePaths(n.Content[i], t.Elem(), prefix+".*", paths, leaf)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return
		}
		for _, e := range n.Content {
			nodePaths(e, t.Elem(), prefix+"[]", paths, leaf)
		}
	}
}

// withSamples returns the example with its "#~" sample lines uncommented.
func withSamples(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(examplePath)
	if err != nil {
		t.Fatal(err)
	}
	return regexp.MustCompile(`(?m)^(\s*)#~ ?`).ReplaceAllString(string(data), "$1")
}

// TestExampleIsDefault checks that the example, as shipped, configures
// exactly the defaults, so every default it shows is the real one.
func TestExampleIsDefault(t *testing.T) {
	got, err := Load(examplePath, envOf(nil))
	if err != nil {
		t.Fatalf("Load(%s) error = %v", examplePath, err)
	}
	if g, w := encode(t, got), encode(t, Default()); g != w {
		t.Errorf("Load(%s) differs from Default():\n%s\nwant\n%s", examplePath, g, w)
	}
}

// TestExampleSamplesLoad checks that the "#~" samples are valid
// configuration.
func TestExampleSamplesLoad(t *testing.T) {
	got, err := Load(writeFile(t, withSamples(t)), envOf(nil))
	if err != nil {
		t.Fatalf("Load(example with samples) error = %v", err)
	}
	if len(got.Tools.Policies) == 0 || len(got.Tools.MCP) != 2 || len(got.Channels) == 0 {
		t.Errorf("the samples set policies %v, mcp %v, channels %v; want all of them", got.Tools.Policies, got.Tools.MCP, got.Channels)
	}
}

// TestExampleDocumentsEveryKey checks that every key of Config appears in
// the example (samples included) and that every key that is not a section
// has a comment, so the example cannot fall behind the struct.
func TestExampleDocumentsEveryKey(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(withSamples(t)), &doc); err != nil {
		t.Fatal(err)
	}
	present := make(map[string]bool)
	nodePaths(&doc, reflectConfig(), "", present, func(path string, key *yaml.Node) {
		inSample := strings.Contains(path, "*") || strings.Contains(path, "[]")
		if !inSample && strings.TrimSpace(key.HeadComment) == "" {
			t.Errorf("%s (line %d) has no comment above it", path, key.Line)
		}
	})
	want := keyPaths(reflectConfig(), "")
	var missing []string
	for p := range want {
		if !present[p] {
			missing = append(missing, p)
		}
	}
	slices.Sort(missing)
	for _, p := range missing {
		t.Errorf("%s does not appear in %s", p, examplePath)
	}
	if len(want) < 70 {
		t.Errorf("Config has %d keys, want at least 70: is the walk broken?", len(want))
	}
}

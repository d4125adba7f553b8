package config

import (
	"bytes"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// filled is one string value that populate put into a config.
type filled struct {
	path, value string
	secret      bool // must not survive Redacted
}

// populate sets every field of v (a settable value of a Config type) to a
// distinct non-zero value, with one element in every slice and map, and
// records the strings it used.
func populate(v reflect.Value, path, tag string, out *[]filled) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			populate(v.Field(i), join(path, yamlName(f)), f.Tag.Get("redact"), out)
		}
	case reflect.String:
		s := "v-" + path
		switch tag {
		case "url":
			v.SetString("https://user:" + s + "@host.example/x")
			*out = append(*out, filled{path, s, true}, filled{path, "host.example", false})
		default:
			v.SetString(s)
			*out = append(*out, filled{path, s, tag == "secret"})
		}
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(1)
	case reflect.Float64:
		v.SetFloat(1)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		populate(v.Elem(), path, tag, out)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		populate(v.Index(0), path+"[0]", tag, out)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		e := reflect.New(v.Type().Elem()).Elem()
		populate(e, path+".K", tag, out)
		v.SetMapIndex(reflect.ValueOf("K"), e)
	default:
		panic("populate: unhandled kind " + v.Kind().String() + " at " + path)
	}
}

func encode(t *testing.T, c Config) string {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestRedactedHidesEverySecret(t *testing.T) {
	var c Config
	var values []filled
	populate(reflect.ValueOf(&c).Elem(), "", "", &values)
	before := encode(t, c)

	red := encode(t, c.Redacted())
	nSecrets := 0
	for _, f := range values {
		switch {
		case f.secret && strings.Contains(red, f.value):
			t.Errorf("Redacted() shows %s = %q", f.path, f.value)
		case !f.secret && !strings.Contains(red, f.value):
			t.Errorf("Redacted() hides %s = %q, which is no secret", f.path, f.value)
		}
		if f.secret {
			nSecrets++
		}
	}
	if nSecrets < 12 {
		t.Errorf("found %d secrets, want at least 12: are the redact tags gone?", nSecrets)
	}
	if !strings.Contains(red, "https://user:***@host.example/x") {
		t.Errorf("Redacted() URL not masked as expected:\n%s", red)
	}
	if after := encode(t, c); after != before {
		t.Error("Redacted() changed the original config")
	}
}

func TestRedactedLeavesUnsetSecretsEmpty(t *testing.T) {
	c := Default()
	c.Tools.MCP = []MCPServer{{Name: "a", URL: "https://x.example/mcp"}}
	if got, want := encode(t, c.Redacted()), encode(t, c); got != want {
		t.Errorf("Redacted() of a config without secrets =\n%s\nwant\n%s", got, want)
	}
}

func TestRedactedSharesNothing(t *testing.T) {
	c := Default()
	c.Tools.MCP = []MCPServer{{Name: "a", Command: []string{"srv"}, Env: map[string]string{"K": "v"}}}
	r := c.Redacted()
	r.Tools.EnabledGroups[0] = "changed"
	r.Tools.MCP[0].Command[0] = "changed"
	if c.Tools.EnabledGroups[0] == "changed" || c.Tools.MCP[0].Command[0] == "changed" || c.Tools.MCP[0].Env["K"] != "v" {
		t.Error("Redacted() shares slices or maps with the original")
	}
}

// TestSecretsAreTagged keeps new secret-looking fields from escaping
// Redacted: a field whose key looks like a secret must be tagged.
func TestSecretsAreTagged(t *testing.T) {
	secretish := regexp.MustCompile(`token|secret|password|api_key|^env$|^headers$`)
	var walk func(t reflect.Type, path string)
	walk = func(typ reflect.Type, path string) {
		switch typ.Kind() {
		case reflect.Struct:
			for i := range typ.NumField() {
				f := typ.Field(i)
				name := yamlName(f)
				key := join(path, name)
				tag := f.Tag.Get("redact")
				if secretish.MatchString(name) && tag != "secret" {
					t.Errorf("%s looks like a secret but lacks redact:\"secret\"", key)
				}
				if strings.HasSuffix(name, "url") && tag != "url" {
					t.Errorf("%s is a URL but lacks redact:\"url\"", key)
				}
				walk(f.Type, key)
			}
		case reflect.Slice, reflect.Map, reflect.Pointer:
			walk(typ.Elem(), path+"[]")
		}
	}
	walk(reflectConfig(), "")
}

package mcp

import (
	"errors"
	"strings"
	"testing"
)

func TestUniqueName(t *testing.T) {
	long := strings.Repeat("y", 70)
	tests := []struct {
		server, tool string
		used         []string
		want         string
	}{
		{"github", "search", nil, "github_search"},
		{"github", "github_search", nil, "github_search"},
		{"fs", "read.file", nil, "fs_read_file"},
		{"fs", "read file/ü", nil, "fs_read_file__"},
		{"s", long, nil, "s_" + long[:62]},
		{"a_b", "c", []string{"a_b_c"}, "a_b_c_2"},
		{"a_b", "c", []string{"a_b_c", "a_b_c_2"}, "a_b_c_3"},
		{"s", long, []string{"s_" + long[:62]}, "s_" + long[:60] + "_2"},
	}
	for _, tt := range tests {
		used := map[string]bool{}
		for _, u := range tt.used {
			used[u] = true
		}
		got := uniqueName(tt.server, tt.tool, used)
		if got != tt.want {
			t.Errorf("uniqueName(%q, %q, %v) = %q, want %q", tt.server, tt.tool, tt.used, got, tt.want)
		}
		if len(got) > maxToolName {
			t.Errorf("uniqueName(%q, %q) is %d long", tt.server, tt.tool, len(got))
		}
	}
}

func TestSchema(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"nil", nil, `{"type":"object","properties":{}}`},
		{"no properties", map[string]any{"type": "object"}, `{"properties":{},"type":"object"}`},
		{"no type", map[string]any{"properties": map[string]any{"a": map[string]any{"type": "string"}}},
			`{"properties":{"a":{"type":"string"}},"type":"object"}`},
		{"not an object", []any{1, 2}, `{"type":"object","properties":{}}`},
		{"kept", map[string]any{"type": "object", "properties": map[string]any{}, "required": []any{"x"}},
			`{"properties":{},"required":["x"],"type":"object"}`},
	}
	for _, tt := range tests {
		if got := string(schema(tt.in)); got != tt.want {
			t.Errorf("%s: schema = %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestRedactor(t *testing.T) {
	s := Server{
		URL:     "https://user:pass-word-1@example.com/mcp?token=abcd1234&x=1",
		Headers: map[string]string{"Authorization": "Bearer sk-long-secret", "X-Short": "ab"},
		Env:     map[string]string{"KEY": "sk-long"},
	}
	r := newRedactor(s.secrets())
	in := `Post "https://user:pass-word-1@example.com/mcp?token=abcd1234&x=1": auth Bearer sk-long-secret sk-long ab`
	got := r.text(in)
	for _, secret := range []string{"pass-word-1", "abcd1234", "sk-long"} {
		if strings.Contains(got, secret) {
			t.Errorf("redacted text %q still contains %q", got, secret)
		}
	}
	if !strings.HasSuffix(got, " ab") {
		t.Errorf("redacted text %q hid a 2-character value", got)
	}
	base := errors.New(in)
	if err := r.err(base); !errors.Is(err, base) || strings.Contains(err.Error(), "sk-long") {
		t.Errorf("r.err = %v; want a redacted error that still wraps the original", err)
	}
}

func TestEnviron(t *testing.T) {
	parent := map[string]string{"PATH": "/bin", "HOME": "/home/bot", "OPENAI_API_KEY": "sk-x", "SLACK_BOT_TOKEN": "xoxb"}
	getenv := func(k string) (string, bool) { v, ok := parent[k]; return v, ok }
	got := strings.Join(environ(getenv, map[string]string{"PATH": "/opt/bin", "TOKEN": "t"}), " ")
	if want := "HOME=/home/bot PATH=/opt/bin TOKEN=t"; got != want {
		t.Errorf("environ = %q, want %q", got, want)
	}
}

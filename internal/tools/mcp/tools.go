package mcp

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/threadbot/threadbot/internal/core/executor"
)

//go:embed rules.md
var rules string

// maxToolName is the longest tool name model APIs accept.
const maxToolName = 64

// emptySchema is the parameter schema of a tool that declares none.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// group builds the server's group. used holds the tool names taken so far
// (across servers) and receives this group's names.
func (c *client) group(tools []*sdk.Tool, used map[string]bool) *executor.Group {
	name := c.srv.Name
	g := &executor.Group{
		Name:  name,
		Rules: strings.ReplaceAll(strings.TrimSpace(rules), "{{SERVER}}", name),
	}
	probe := executor.New(nil, executor.Options{})
	originals := map[string]bool{}
	for i, t := range tools {
		if t == nil || t.Name == "" {
			c.lg.Warn("mcp tool without a name skipped", "index", i)
			continue
		}
		if originals[t.Name] {
			c.lg.Warn("mcp tool listed twice; the second is skipped", "mcp_tool", t.Name)
			continue
		}
		originals[t.Name] = true
		tool := c.tool(uniqueName(name, t.Name, used), t, schema(t.InputSchema))
		if err := probe.Register(&executor.Group{Name: "probe" + strconv.Itoa(i), Tools: []*executor.Tool{tool}}); err != nil {
			// The executor cannot validate against this schema; the server
			// validates anyway, so the tool stays with an open schema.
			c.lg.Warn("mcp tool schema not usable; arguments go unchecked to the server", "mcp_tool", t.Name, "err", err)
			tool = c.tool(tool.Name, t, json.RawMessage(`{"type":"object"}`))
		}
		used[tool.Name] = true
		g.Tools = append(g.Tools, tool)
	}
	return g
}

// tool wraps one server tool. orig is what the server calls it.
func (c *client) tool(name string, t *sdk.Tool, params json.RawMessage) *executor.Tool {
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = strings.TrimSpace(t.Title)
	}
	if desc == "" {
		desc = fmt.Sprintf("The tool %s of the MCP server %s.", t.Name, c.srv.Name)
	}
	orig := t.Name
	return &executor.Tool{
		Name:        name,
		Description: desc,
		Parameters:  params,
		Permission:  c.srv.policy(),
		Run: func(ctx context.Context, _ executor.Call, args map[string]any) (executor.Output, error) {
			return c.call(ctx, name, orig, args)
		},
	}
}

// schema returns a tool's input schema as an object schema with
// properties, which is what model APIs expect.
func schema(in any) json.RawMessage {
	if in == nil {
		return emptySchema
	}
	b, err := json.Marshal(in)
	if err != nil {
		return emptySchema
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return emptySchema
	}
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
	}
	if _, ok := m["properties"]; !ok && m["type"] == "object" {
		m["properties"] = map[string]any{}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return emptySchema
	}
	return out
}

// uniqueName returns the executor name of a server's tool: letters,
// digits, '_' and '-', at most 64 characters, prefixed with "{server}_"
// unless it already starts so, and made unique against used with a numeric
// suffix.
func uniqueName(server, tool string, used map[string]bool) string {
	prefix := sanitize(server) + "_"
	base := sanitize(tool)
	if !strings.HasPrefix(base, prefix) {
		base = prefix + base
	}
	base = base[:min(len(base), maxToolName)]
	name := base
	for i := 2; used[name]; i++ {
		suffix := "_" + strconv.Itoa(i)
		name = base[:min(len(base), maxToolName-len(suffix))] + suffix
	}
	return name
}

// sanitize replaces every character that is not a letter, digit, '_' or
// '-' with '_'.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}

package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/threadbot/threadbot/internal/core/vars"
)

// Names of the variable tools.
const (
	ReadVarTool    = "ReadVar"
	ListVarsTool   = "ListVars"
	WriteVarTool   = "WriteVar"
	RemoveVarsTool = "RemoveVars"
)

// readChunk is the most characters ReadVar returns when no length is given.
const readChunk = DefaultLimit

func isVarTool(name string) bool {
	switch name {
	case ReadVarTool, ListVarsTool, WriteVarTool, RemoveVarsTool:
		return true
	}
	return false
}

// alwaysVarTools are offered whenever any group is enabled.
func (x *Executor) alwaysVarTools() []*Tool {
	return []*Tool{
		{
			Name:         ReadVarTool,
			Description:  "Read a session variable (a cached tool result, a rule, or a value written earlier). Read long values in chunks with start and length.",
			Parameters:   json.RawMessage(readVarSchema),
			SkipTruncate: true, // ReadVar chunks by itself
			Run:          x.readVar,
		},
		{
			Name:        ListVarsTool,
			Description: "List session variables with their type, size and description. Filter by type, tag or a search string; results are paged.",
			Parameters:  json.RawMessage(listVarsSchema),
			Run:         x.listVars,
		},
	}
}

func (x *Executor) varsGroup() *Group {
	return &Group{
		Name:  VarsGroup,
		Rules: "Use WriteVar to keep notes, intermediate results and TODO lists across turns, and RemoveVars to drop what is no longer needed. RULE variables are read-only.",
		Tools: []*Tool{
			{
				Name:        WriteVarTool,
				Description: "Create or update a session variable. A new variable needs a non-empty value. RULE variables cannot be overwritten.",
				Parameters:  json.RawMessage(writeVarSchema),
				Run:         x.writeVar,
			},
			{
				Name:        RemoveVarsTool,
				Description: "Remove session variables by name. RULE variables cannot be removed. Returns the removed names and the ones that failed, with why.",
				Parameters:  json.RawMessage(removeVarsSchema),
				Run:         x.removeVars,
			},
		},
	}
}

const readVarSchema = `{"type":"object","properties":{
"name":{"type":"string","description":"Variable name, e.g. Rule/Agent/VarRef or WebFetch_call_1_result"},
"start":{"type":"integer","minimum":0,"description":"First character to read (0-based). Default 0."},
"length":{"type":"integer","minimum":0,"description":"How many characters to read; 0 or absent reads to the end (in chunks of at most 8000)."}},
"required":["name"],"additionalProperties":false}`

const listVarsSchema = `{"type":"object","properties":{
"filter":{"type":"object","properties":{
 "type":{"type":"string","enum":["RULE","ToolCallResult","ToolCallArgs","MessageCache","LLMAdd","USER_ADD"]},
 "tag":{"type":"string"},
 "search":{"type":"string","description":"Case-insensitive text in the name or description"}},"additionalProperties":false},
"page":{"type":"integer","minimum":1,"description":"Page number, default 1"},
"pageSize":{"type":"integer","minimum":1,"maximum":200,"description":"Variables per page, default 25"}},
"additionalProperties":false}`

const writeVarSchema = `{"type":"object","properties":{
"name":{"type":"string","pattern":"^[A-Za-z0-9_./-]+$","description":"Variable name: letters, digits, _ - . /"},
"value":{"type":"string","description":"The value; required for a new variable"},
"desc":{"type":"string","description":"Short description"},
"tags":{"type":"array","items":{"type":"string"}}},
"required":["name"],"additionalProperties":false}`

const removeVarsSchema = `{"type":"object","properties":{
"names":{"type":"array","items":{"type":"string"},"minItems":1}},
"required":["names"],"additionalProperties":false}`

func (x *Executor) readVar(_ context.Context, _ Call, args map[string]any) (Output, error) {
	name, _ := args["name"].(string)
	v, ok := x.vars.Get(name)
	if !ok {
		return Output{}, fmt.Errorf("variable %q not found (it may have been evicted; use ListVars to see what exists)", name)
	}
	start, _ := toInt(args["start"])
	length, _ := toInt(args["length"])
	total := utf8.RuneCountInString(v.Value)
	if start > total {
		start = total
	}
	explicit := length > 0
	if !explicit {
		length = total - start
	}
	capped := false
	if length > readChunk && !explicit {
		length, capped = readChunk, true
	}
	end := min(start+length, total)
	chunk := v.Value
	if start > 0 || end < total {
		chunk = v.Value[byteOffset(v.Value, start):byteOffset(v.Value, end)]
	}
	if start == 0 && end == total {
		return Output{Data: chunk}, nil
	}
	note := fmt.Sprintf("\n\n[SYSTEM] Characters %d-%d of %d of `%s`.", start, end, total, name)
	if end < total {
		note += fmt.Sprintf(" %d remain: ReadVar({\"name\": %q, \"start\": %d, \"length\": %d}).", total-end, name, end, min(total-end, 2000))
		if capped {
			note += " (No length was given, so one chunk was returned.)"
		}
	}
	return Output{Data: chunk + note}, nil
}

func (x *Executor) listVars(_ context.Context, _ Call, args map[string]any) (Output, error) {
	var f vars.Filter
	if m, ok := args["filter"].(map[string]any); ok {
		t, _ := m["type"].(string)
		f.Type = vars.Type(t)
		f.Tag, _ = m["tag"].(string)
		f.Search, _ = m["search"].(string)
	}
	page, ok := toInt(args["page"])
	if !ok || page < 1 {
		page = 1
	}
	size, ok := toInt(args["pageSize"])
	if !ok || size < 1 {
		size = 25
	}
	all := x.vars.List(f)
	pages := max(1, (len(all)+size-1)/size)
	var b strings.Builder
	fmt.Fprintf(&b, "%d variables (page %d of %d)\n", len(all), page, pages)
	from := (page - 1) * size
	if from >= len(all) {
		return Output{Data: b.String()}, nil
	}
	b.WriteString("| name | type | chars | description | tags |\n|---|---|---|---|---|\n")
	for _, v := range all[from:min(from+size, len(all))] {
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s |\n", v.Name, v.Type,
			utf8.RuneCountInString(v.Value), cell(v.Desc), strings.Join(v.Tags, ", "))
	}
	return Output{Data: b.String()}, nil
}

func (x *Executor) writeVar(_ context.Context, _ Call, args map[string]any) (Output, error) {
	name, _ := args["name"].(string)
	w := vars.ModelWrite{Name: name}
	if s, ok := args["value"].(string); ok {
		w.Value = &s
	}
	if s, ok := args["desc"].(string); ok {
		w.Desc = &s
	}
	if ts, ok := args["tags"].([]any); ok {
		w.Tags = []string{}
		for _, t := range ts {
			if s, ok := t.(string); ok {
				w.Tags = append(w.Tags, s)
			}
		}
	}
	created, err := x.vars.WriteByModel(w)
	if err != nil {
		return Output{}, err
	}
	if created {
		return Output{Data: fmt.Sprintf("Created variable %s; reference it as $VAR_REF{{%s}}.", name, name)}, nil
	}
	return Output{Data: fmt.Sprintf("Updated variable %s.", name)}, nil
}

func (x *Executor) removeVars(_ context.Context, _ Call, args map[string]any) (Output, error) {
	var names []string
	if ns, ok := args["names"].([]any); ok {
		for _, n := range ns {
			if s, ok := n.(string); ok {
				names = append(names, s)
			}
		}
	}
	removed, failed := x.vars.RemoveByModel(names...)
	type failure struct {
		Name   string `json:"name"`
		Reason string `json:"reason"`
	}
	out := struct {
		Removed []string  `json:"removed"`
		Failed  []failure `json:"failed"`
	}{Removed: removed, Failed: []failure{}}
	if out.Removed == nil {
		out.Removed = []string{}
	}
	for _, n := range names {
		if r, ok := failed[n]; ok {
			out.Failed = append(out.Failed, failure{n, r})
		}
	}
	return Output{Data: out}, nil
}

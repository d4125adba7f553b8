package chain

import (
	_ "embed"
	"fmt"
	"strings"
	"text/template"
	"unicode/utf8"

	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/core/llm"
)

// PreviewChars is how much of a result the natural flow shows.
const PreviewChars = 200

//go:embed prompts/hint.tmpl
var hintText string

var hintTmpl = template.Must(template.New("hint").Parse(hintText))

type hintLine struct {
	Tool, ArgsVar, ResultVar, Note string
}

// Hint renders the <SYSTEM-CONTEXT> block that tells the model where the
// turn's tool results are cached. It is "" when no tool was called.
func Hint(history []CallRecord) string {
	if len(history) == 0 {
		return ""
	}
	lines := make([]hintLine, 0, len(history))
	for _, h := range history {
		l := hintLine{Tool: h.Tool, ArgsVar: h.Result.ArgsVar, ResultVar: h.Result.ResultVar}
		if l.ArgsVar == "" || l.ResultVar == "" {
			l.ArgsVar = ""
			l.Note = "not cached: " + statusWord(h.Result.Status)
		}
		lines = append(lines, l)
	}
	var b strings.Builder
	if err := hintTmpl.Execute(&b, lines); err != nil {
		panic(err) // the template is embedded and tested
	}
	return b.String()
}

func statusWord(s executor.Status) string {
	switch s {
	case executor.StatusSuccess:
		return "variable tool"
	case executor.StatusExecutionRejected, executor.StatusResultRejected:
		return "rejected"
	case executor.StatusNotFound:
		return "unknown tool"
	}
	return "failed"
}

// Flow renders the natural flow of a chain: each assistant message's text,
// then one [Tool Execution Log] block per call it made.
func Flow(chainMsgs []llm.Message, history []CallRecord) string {
	byID := make(map[string]*CallRecord, len(history))
	for i := range history {
		byID[history[i].CallID] = &history[i]
	}
	var parts []string
	for _, m := range chainMsgs {
		if m.Role != llm.RoleAssistant {
			continue
		}
		if t := strings.TrimSpace(m.Content); t != "" {
			parts = append(parts, t)
		}
		for _, c := range m.ToolCalls {
			parts = append(parts, LogBlock(c, byID[c.ID]))
		}
	}
	return strings.Join(parts, "\n\n")
}

// LogBlock renders one [Tool Execution Log] block; rec is nil for a call
// that never ran.
func LogBlock(call llm.ToolCall, rec *CallRecord) string {
	var args, status, preview string
	switch {
	case rec == nil:
		args, status = compactRaw(call.Arguments), "✗ Not executed"
	default:
		if rec.Args != nil {
			args = executor.CompressArgs(rec.Args)
		} else {
			args = compactRaw(rec.RawArgs)
		}
		status = StatusLine(rec.Result.Status)
		preview = Preview(rec.Result.Text)
		if rec.Result.Status.Rejected() {
			preview = rec.Result.RejectReason
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**[Tool Execution Log]**: %s\n```accesslog\nArguments: %s\nStatus: %s\n", call.Name, args, status)
	if preview != "" {
		b.WriteString("\n")
		b.WriteString(preview)
		b.WriteString("\n")
	}
	b.WriteString("```")
	return b.String()
}

// StatusLine is the status as the tool log shows it.
func StatusLine(s executor.Status) string {
	switch s {
	case executor.StatusSuccess:
		return "✓ Success"
	case executor.StatusExecutionRejected, executor.StatusResultRejected:
		return "⚠️ Rejected"
	}
	return "✗ Failed"
}

// Preview returns the first PreviewChars characters of text, marking a cut.
func Preview(text string) string {
	text = strings.TrimSpace(text)
	if utf8.RuneCountInString(text) <= PreviewChars {
		return text
	}
	return string([]rune(text)[:PreviewChars]) + "…"
}

func compactRaw(raw string) string {
	raw = strings.TrimSpace(raw)
	if utf8.RuneCountInString(raw) > 200 {
		raw = string([]rune(raw)[:200]) + "…"
	}
	return raw
}

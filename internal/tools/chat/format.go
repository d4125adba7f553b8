package chat

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Output limits, in characters.
const (
	// MaxMessageChars is where one message's text is cut.
	MaxMessageChars = 500
	// MaxOutputChars caps a whole listing; it stays below the executor's
	// default limit, so the model gets whole lines rather than a truncated
	// middle.
	MaxOutputChars = 6000
)

// timeLayout is how message times are shown; they are in UTC.
const timeLayout = "2006-01-02 15:04"

// listing is the result of a chat tool: a header and messages, rendered by
// String.
type listing struct {
	header   string
	empty    string // shown when there are no messages
	messages []Message
	// newest keeps the newest messages when the cap is hit (thread
	// history); otherwise the first ones are kept (search, best first).
	newest bool
	links  bool
}

// String renders one line per message, "[2026-11-22 10:01] alice: text",
// within MaxOutputChars, saying how many messages were left out.
func (l listing) String() string {
	if len(l.messages) == 0 {
		return l.empty
	}
	lines := make([]string, len(l.messages))
	for i, m := range l.messages {
		lines[i] = line(m, l.links)
	}
	// Reserve room for the header and the omission note.
	budget := MaxOutputChars - utf8.RuneCountInString(l.header) - 120
	kept, used := 0, 0
	for i := range lines {
		j := i
		if l.newest {
			j = len(lines) - 1 - i
		}
		n := utf8.RuneCountInString(lines[j]) + 1
		if used+n > budget && kept > 0 {
			break
		}
		used += n
		kept++
	}
	omitted := len(lines) - kept
	var b strings.Builder
	b.WriteString(l.header)
	b.WriteString("\n")
	if l.newest {
		if omitted > 0 {
			fmt.Fprintf(&b, "[%d earlier messages omitted to stay within %d characters]\n", omitted, MaxOutputChars)
		}
		lines = lines[omitted:]
	} else {
		lines = lines[:kept]
	}
	b.WriteString(strings.Join(lines, "\n"))
	if !l.newest && omitted > 0 {
		fmt.Fprintf(&b, "\n[%d more matches omitted to stay within %d characters; search more precisely to see them]", omitted, MaxOutputChars)
	}
	return b.String()
}

// line renders one message on one line: newlines become " ⏎ " and text past
// MaxMessageChars is cut with a note.
func line(m Message, link bool) string {
	when := "unknown time"
	if !m.Time.IsZero() {
		when = m.Time.UTC().Format(timeLayout)
	}
	author := strings.TrimSpace(m.Author)
	if author == "" {
		author = "unknown"
	}
	text := strings.TrimSpace(strings.ReplaceAll(m.Text, "\r\n", "\n"))
	text = strings.ReplaceAll(text, "\n", " ⏎ ")
	if n := utf8.RuneCountInString(text); n > MaxMessageChars {
		text = string([]rune(text)[:MaxMessageChars]) + fmt.Sprintf("… [cut, %d more characters]", n-MaxMessageChars)
	}
	s := fmt.Sprintf("[%s] %s: %s", when, author, text)
	if link && m.Link != "" {
		s += " <" + m.Link + ">"
	}
	return s
}

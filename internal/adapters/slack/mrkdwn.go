package slack

import (
	"regexp"
	"strconv"
	"strings"
)

// Slack's mrkdwn has bold, italic, strike, code, quotes and links, and no
// headings, lists, tables or backslash escapes. toMrkdwn maps the Markdown
// a model writes onto it: blocks line by line, then the inline syntax of
// each line with CommonMark's delimiter rules, so that what is not
// Markdown formatting (2 * 3, snake_case, URLs) stays as written.

// mdRule stands in for a horizontal rule.
const mdRule = "──────────"

var (
	mdFenceRE   = regexp.MustCompile("^([ \t]*)(`{3,}|~{3,})(.*)$")
	mdHeadingRE = regexp.MustCompile(`^[ \t]{0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	mdRuleRE    = regexp.MustCompile(`^[ \t]{0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$`)
	mdQuoteRE   = regexp.MustCompile(`^(?:[ \t]{0,3}>[ \t]?)+`)
	mdBulletRE  = regexp.MustCompile(`^([ \t]*)[-*+](?:[ \t]+(.*))?$`)
	mdNumberRE  = regexp.MustCompile(`^([ \t]*)(\d{1,9}[.)])(?:[ \t]+(.*))?$`)
	mdTaskRE    = regexp.MustCompile(`^\[([ xX])\](?:[ \t]+(.*))?$`)
)

// toMrkdwn converts the Markdown an LLM writes (a CommonMark and GFM
// subset) into Slack mrkdwn. Code is left as written apart from the
// escaping of &, < and >; GFM tables become aligned code blocks. Markers
// that do not pair up are kept as text. The output is valid UTF-8, and
// the only lines starting with ``` are the fences of its code blocks,
// which always come in pairs.
func toMrkdwn(md string) string {
	md = strings.ToValidUTF8(md, "\uFFFD")
	md = strings.ReplaceAll(md, "\r\n", "\n")
	md = strings.ReplaceAll(md, "\r", "\n")
	var c mdConverter
	c.blocks(strings.Split(md, "\n"))
	return strings.Join(c.lines(), "\n")
}

// mdConverter converts Markdown blocks into lines of mrkdwn.
type mdConverter struct {
	out []string
	// lists holds the list items enclosing the current line, outermost
	// first.
	lists []mdItem
}

// mdItem is an open list item.
type mdItem struct {
	indent int // columns before its marker
	num    int // its number in an ordered list, else 0
}

func (c *mdConverter) lines() []string {
	for len(c.out) > 0 && c.out[len(c.out)-1] == "" {
		c.out = c.out[:len(c.out)-1]
	}
	return c.out
}

// text adds a line of converted text.
func (c *mdConverter) text(s string) {
	if s = strings.TrimRight(s, " \t"); s == "" {
		c.blank()
		return
	}
	c.out = append(c.out, mdBreakTicks(s))
}

// blank adds an empty line unless there is one already.
func (c *mdConverter) blank() {
	if len(c.out) > 0 && c.out[len(c.out)-1] != "" {
		c.out = append(c.out, "")
	}
}

func (c *mdConverter) fence() { c.out = append(c.out, "```") }

// code adds a line inside a code block.
func (c *mdConverter) code(s string) {
	c.out = append(c.out, mdBreakTicks(mdTextEscaper.Replace(s)))
}

func (c *mdConverter) blocks(lines []string) {
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := mdFenceRE.FindStringSubmatch(line); m != nil && (m[2][0] == '~' || !strings.Contains(m[3], "`")) {
			i = c.fenced(lines, i, m[1], m[2])
			continue
		}
		if strings.TrimSpace(line) == "" {
			c.blank()
			continue
		}
		if mdRuleRE.MatchString(line) {
			c.lists = nil
			c.text(mdRule)
			continue
		}
		if m := mdHeadingRE.FindStringSubmatch(line); m != nil {
			c.lists = nil
			if t := mdInlineStyle(m[1], mdHeading); t != "" {
				c.text("*" + t + "*")
			}
			continue
		}
		if strings.Contains(line, "|") && i+1 < len(lines) {
			if aligns := mdDelimiterRow(lines[i+1]); aligns != nil && len(mdCells(line)) == len(aligns) {
				c.lists = nil
				i = c.table(lines, i, aligns)
				continue
			}
		}
		if mdQuoteRE.MatchString(line) {
			c.lists = nil
			i = c.quote(lines, i)
			continue
		}
		if c.item(line) {
			continue
		}
		w, rest := mdIndent(line)
		prefix := ""
		if len(c.lists) > 0 && w == 0 {
			c.lists = nil
		} else if len(c.lists) > 0 {
			// A continuation line hangs under the text of its item.
			d := 0
			for _, it := range c.lists[1:] {
				if it.indent < w {
					d++
				}
			}
			prefix = strings.Repeat("    ", d) + "  "
		}
		c.text(prefix + mdInline(rest))
	}
}

// fenced converts the code block opened at lines[i] and returns the index
// of its closing fence (len(lines) if it runs to the end).
func (c *mdConverter) fenced(lines []string, i int, indent, marker string) int {
	w, _ := mdIndent(indent)
	c.fence()
	j := i + 1
	for ; j < len(lines); j++ {
		t := strings.TrimLeft(lines[j], " \t")
		n := len(t) - len(strings.TrimLeft(t, marker[:1]))
		if n >= len(marker) && strings.TrimSpace(t[n:]) == "" {
			break
		}
		c.code(mdDedent(lines[j], w))
	}
	c.fence()
	return j
}

// quote converts the block quote starting at lines[i] and returns the
// index of its last line. Slack has no nested quotes, so all the > of a
// line are taken off and its content is quoted once.
func (c *mdConverter) quote(lines []string, i int) int {
	var inner []string
	for ; i < len(lines); i++ {
		m := mdQuoteRE.FindString(lines[i])
		if m == "" {
			break
		}
		inner = append(inner, lines[i][len(m):])
	}
	var q mdConverter
	q.blocks(inner)
	for _, l := range q.lines() {
		if l == "" {
			c.out = append(c.out, ">")
		} else {
			c.out = append(c.out, "> "+l)
		}
	}
	return i - 1
}

// item converts line if it is a list item.
func (c *mdConverter) item(line string) bool {
	var indent, marker, content string
	if m := mdBulletRE.FindStringSubmatch(line); m != nil {
		indent, content = m[1], m[2]
	} else if m := mdNumberRE.FindStringSubmatch(line); m != nil {
		indent, marker, content = m[1], m[2], m[3]
	} else {
		return false
	}
	w, _ := mdIndent(indent)
	for len(c.lists) > 0 && c.lists[len(c.lists)-1].indent > w {
		c.lists = c.lists[:len(c.lists)-1]
	}
	if len(c.lists) == 0 || c.lists[len(c.lists)-1].indent < w {
		c.lists = append(c.lists, mdItem{indent: w})
	}
	level := len(c.lists) - 1
	it := &c.lists[level]
	switch {
	case marker == "":
		it.num = 0
		marker = "•"
		if level > 0 {
			marker = "◦"
		}
	case it.num > 0:
		// Items are numbered from the first, as Markdown renders them,
		// whatever the model wrote ("1. 1. 1.").
		it.num++
		marker = strconv.Itoa(it.num) + marker[len(marker)-1:]
	default:
		it.num, _ = strconv.Atoi(marker[:len(marker)-1])
	}
	if m := mdTaskRE.FindStringSubmatch(content); m != nil {
		box := "☐"
		if m[1] != " " {
			box = "☑"
		}
		if marker == "•" || marker == "◦" {
			marker = box
		} else {
			marker += " " + box
		}
		content = m[2]
	}
	c.text(strings.Repeat("    ", level) + marker + " " + mdInline(content))
	return true
}

// mdIndent returns the width of line's leading whitespace, counting a tab
// as reaching the next multiple of four, and the rest of the line.
func mdIndent(line string) (int, string) {
	w := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			w++
		case '\t':
			w += 4 - w%4
		default:
			return w, line[i:]
		}
	}
	return w, ""
}

// mdDedent removes up to w columns of indentation from line.
func mdDedent(line string, w int) string {
	col := 0
	for i := 0; i < len(line); i++ {
		switch {
		case col >= w:
			return line[i:]
		case line[i] == ' ':
			col++
		case line[i] == '\t':
			col += 4 - col%4
		default:
			return line[i:]
		}
	}
	return ""
}

// mdBreakTicks puts a zero-width space between the backticks of every run
// of three or more, so that Slack does not take it for a code fence.
func mdBreakTicks(s string) string {
	if !strings.Contains(s, "```") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		if s[i] == '`' && i+1 < len(s) && s[i+1] == '`' && (i > 0 && s[i-1] == '`' || i+2 < len(s) && s[i+2] == '`') {
			b.WriteString("\u200b")
		}
	}
	return b.String()
}

package slack

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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
	mdBreakRE   = regexp.MustCompile(`(?i)<br[ \t]*/?>`)

	// mdSlackRE matches what Slack itself writes: <@U1|name>, <#C1|general>,
	// <!here>, <!subteam^S1>, <!date^…|…>.
	mdSlackRE    = regexp.MustCompile(`^<(?:[@#][A-Z0-9]+(?:\|[^<>\n]*)?|![a-z]+(?:\^[^<>|\n]*)?(?:\|[^<>\n]*)?)>`)
	mdAutolinkRE = regexp.MustCompile(`^<([a-zA-Z][a-zA-Z0-9+.-]{1,31}:[^\x00-\x20<>]*)>`)
	mdEmailRE    = regexp.MustCompile(`^<([a-zA-Z0-9.!#$%&'*+/=?^_{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*)>`)
	mdSchemeRE   = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]{1,31}:`)
	mdBareURLRE  = regexp.MustCompile(`^(?i:https?://)[^\s<>]+`)

	mdTextEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	// Slack ends a link's URL at | or >; & stays as written.
	mdURLEscaper = strings.NewReplacer("<", "%3C", ">", "%3E", "|", "%7C", " ", "%20")
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

// table renders the GFM table whose header is lines[i] as a code block
// with aligned columns, and returns the index of its last row.
func (c *mdConverter) table(lines []string, i int, aligns []byte) int {
	rows := [][]string{mdCells(lines[i])}
	j := i + 2
	for ; j < len(lines) && strings.TrimSpace(lines[j]) != "" && strings.Contains(lines[j], "|"); j++ {
		rows = append(rows, mdCells(lines[j]))
	}
	widths := make([]int, len(aligns))
	for r, row := range rows {
		cells := make([]string, len(aligns))
		for k := range cells {
			if k < len(row) {
				cells[k] = mdInlineStyle(mdBreakRE.ReplaceAllString(row[k], " "), mdPlain)
			}
			widths[k] = max(widths[k], mdWidth(cells[k]))
		}
		rows[r] = cells
	}
	c.fence()
	for r, row := range rows {
		for k, cell := range row {
			row[k] = mdPad(cell, widths[k], aligns[k])
		}
		c.code(strings.TrimRight(strings.Join(row, " | "), " "))
		if r == 0 {
			rule := make([]string, len(widths))
			for k, w := range widths {
				rule[k] = strings.Repeat("-", w)
			}
			c.code(strings.Join(rule, "-+-"))
		}
	}
	c.fence()
	return j - 1
}

// mdDelimiterRow returns the column alignments ('l', 'c' or 'r') of a GFM
// table's delimiter row such as "| :-- | :-: |", or nil if line is not one.
func mdDelimiterRow(line string) []byte {
	if !strings.Contains(line, "|") {
		return nil
	}
	cells := mdCells(line)
	aligns := make([]byte, len(cells))
	for k, cell := range cells {
		d := strings.Trim(cell, ":")
		if d == "" || strings.Trim(d, "-") != "" || len(cell)-len(d) > 2 {
			return nil
		}
		left, right := strings.HasPrefix(cell, ":"), strings.HasSuffix(cell, ":")
		switch {
		case left && right:
			aligns[k] = 'c'
		case right:
			aligns[k] = 'r'
		default:
			aligns[k] = 'l'
		}
	}
	return aligns
}

// mdCells splits a table row at the pipes that are not escaped.
func mdCells(row string) []string {
	s := strings.TrimSpace(row)
	s = strings.TrimPrefix(s, "|")
	if strings.HasSuffix(s, "|") && !strings.HasSuffix(s, `\|`) {
		s = s[:len(s)-1]
	}
	var cells []string
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '|':
			b.WriteByte('|')
			i++
		case s[i] == '|':
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(s[i])
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}

// mdPad pads s to width columns, aligned as align says.
func mdPad(s string, width int, align byte) string {
	gap := width - mdWidth(s)
	switch align {
	case 'r':
		return strings.Repeat(" ", gap) + s
	case 'c':
		return strings.Repeat(" ", gap/2) + s + strings.Repeat(" ", gap-gap/2)
	}
	return s + strings.Repeat(" ", gap)
}

// mdWidth approximates how many columns s takes in a monospace font:
// wide East Asian characters and emoji take two, combining marks none.
func mdWidth(s string) int {
	w := 0
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		case r >= 0x1100 && r <= 0x115F, r >= 0x2E80 && r <= 0xA4CF, r >= 0xAC00 && r <= 0xD7A3,
			r >= 0xF900 && r <= 0xFAFF, r >= 0xFE30 && r <= 0xFE4F, r >= 0xFF00 && r <= 0xFF60,
			r >= 0xFFE0 && r <= 0xFFE6, r >= 0x1F300 && r <= 0x1F64F, r >= 0x1F900 && r <= 0x1F9FF,
			r >= 0x20000 && r <= 0x3FFFD:
			w += 2
		default:
			w++
		}
	}
	return w
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

// mdStyle says what an inline conversion is for.
type mdStyle int

const (
	mdText    mdStyle = iota // mrkdwn
	mdHeading                // mrkdwn for a line that is bold as a whole
	mdLabel                  // mrkdwn for the label of a <url|label> link
	mdPlain                  // plain, unescaped text for a code block
)

func mdInline(s string) string { return mdInlineStyle(s, mdText) }

// mdInlineStyle converts one line of Markdown inline syntax.
func mdInlineStyle(s string, st mdStyle) string {
	p := mdParser{src: s, style: st}
	p.parse()
	p.emphasis()
	var b strings.Builder
	for _, n := range p.nodes {
		b.WriteString(n.closeTags)
		b.WriteString(n.text[:n.n])
		b.WriteString(n.openTags)
	}
	return b.String()
}

// mdParser reads a line into text and delimiter runs, then pairs the
// runs up as CommonMark's "process emphasis" does.
type mdParser struct {
	src   string
	style mdStyle
	nodes []mdNode
	buf   strings.Builder
	noURL int // no bare URL starts before this index
}

// mdNode is converted text, or a run of *, _ or ~ that may become markup.
type mdNode struct {
	text                string // the output, or the run as written
	delim               byte   // '*', '_' or '~' for a run, 0 for text
	n, orig             int    // run: delimiters left, delimiters written
	open, close         bool   // run: whether it may open or close
	closeTags, openTags string // run: markup before and after what is left
}

func (p *mdParser) parse() {
	s := p.src
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && mdIsASCIIPunct(s[i+1]):
			p.lit(s[i+1 : i+2])
			i += 2
		case c == '`':
			i = p.codeSpan(i)
		case c == '<':
			i = p.angle(i)
		case c == '!' && strings.HasPrefix(s[i+1:], "["):
			if j, ok := p.link(i+1, true); ok {
				i = j
			} else {
				p.lit("!")
				i++
			}
		case c == '[':
			if j, ok := p.link(i, false); ok {
				i = j
			} else {
				p.lit("[")
				i++
			}
		case c == '*' || c == '_' || c == '~':
			i = p.run(i)
		default:
			if end := p.urlEnd(i); end > i {
				p.writeLink(s[i:end], "")
				i = end
				continue
			}
			_, n := utf8.DecodeRuneInString(s[i:])
			p.lit(s[i : i+n])
			i += n
		}
	}
	p.flush()
}

func (p *mdParser) flush() {
	if p.buf.Len() > 0 {
		t := p.buf.String()
		p.nodes = append(p.nodes, mdNode{text: t, n: len(t)})
		p.buf.Reset()
	}
}

// lit writes text, escaped unless it is for a code block.
func (p *mdParser) lit(s string) {
	if p.style == mdPlain {
		p.buf.WriteString(s)
		return
	}
	p.buf.WriteString(mdTextEscaper.Replace(s))
}

// codeSpan converts the code span whose opening backticks start at i and
// returns where to go on. Slack code spans cannot hold a backtick, so one
// inside becomes ˋ.
func (p *mdParser) codeSpan(i int) int {
	from, to, end := mdCodeSpan(p.src, i)
	if end < 0 {
		p.lit(p.src[i:from])
		return from
	}
	code := strings.ReplaceAll(p.src[from:to], "`", "ˋ")
	if len(code) > 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
		code = code[1 : len(code)-1]
	}
	if p.style == mdPlain {
		p.buf.WriteString(code)
	} else {
		p.buf.WriteString("`" + mdTextEscaper.Replace(code) + "`")
	}
	return end
}

// mdCodeSpan finds the code span whose opening backticks start at i: its
// content is s[from:to] and it ends at end. If the backticks are not
// closed, end is -1 and from is just past them.
func mdCodeSpan(s string, i int) (from, to, end int) {
	from = i
	for from < len(s) && s[from] == '`' {
		from++
	}
	n := from - i
	for j := from; j < len(s); {
		k := strings.IndexByte(s[j:], '`')
		if k < 0 {
			break
		}
		k += j
		j = k
		for j < len(s) && s[j] == '`' {
			j++
		}
		if j-k == n {
			return from, k, j
		}
	}
	return from, from, -1
}

// angle handles a < at i: a Slack token, an autolink or text.
func (p *mdParser) angle(i int) int {
	s := p.src[i:]
	if m := mdSlackRE.FindString(s); m != "" {
		if p.style == mdLabel {
			p.lit(m)
		} else {
			p.buf.WriteString(m)
		}
		return i + len(m)
	}
	if m := mdAutolinkRE.FindStringSubmatch(s); m != nil {
		p.writeLink(m[1], "")
		return i + len(m[0])
	}
	if m := mdEmailRE.FindStringSubmatch(s); m != nil {
		if p.style == mdPlain {
			p.buf.WriteString(m[1])
		} else {
			p.writeLink("mailto:"+m[1], mdTextEscaper.Replace(m[1]))
		}
		return i + len(m[0])
	}
	p.lit("<")
	return i + 1
}

// urlEnd returns the end of the bare http(s) URL starting at i, or i if
// there is none. Trailing punctuation is not part of it, as in GFM.
func (p *mdParser) urlEnd(i int) int {
	s := p.src[i:]
	if i < p.noURL || len(s) < 8 || !strings.EqualFold(s[:7], "http://") && !strings.EqualFold(s[:8], "https://") {
		return i
	}
	if i > 0 {
		if r, _ := utf8.DecodeLastRuneInString(p.src[:i]); unicode.IsLetter(r) || unicode.IsDigit(r) {
			return i
		}
	}
	u := mdBareURLRE.FindString(s)
	// Whatever is rejected here would be for the rest of the word too.
	p.noURL = i + len(u)
	open, closed := strings.Count(u, "("), strings.Count(u, ")")
	for u != "" {
		last := u[len(u)-1]
		if last == ')' && open < closed {
			closed--
		} else if strings.IndexByte("?!.,:;*_~'\"", last) < 0 {
			break
		}
		u = u[:len(u)-1]
	}
	if host := strings.Index(u, "://") + 3; host < 3 || host >= len(u) {
		return i
	}
	return i + len(u)
}

// link converts the link (or image) whose [ is at i and returns where it
// ends, or false if there is no link there.
func (p *mdParser) link(i int, image bool) (int, bool) {
	s := p.src
	end := mdLabelEnd(s, i)
	if end < 0 || !strings.HasPrefix(s[end+1:], "(") {
		return 0, false
	}
	dest, next, ok := mdDestination(s, end+2)
	if !ok {
		return 0, false
	}
	raw := s[i+1 : end]
	st := mdLabel
	if p.style == mdPlain {
		st = mdPlain
	}
	label := ""
	if raw != dest {
		label = mdInlineStyle(raw, st)
	}
	url := dest
	if !mdSchemeRE.MatchString(url) {
		url = ""
		if strings.HasPrefix(strings.ToLower(dest), "www.") {
			url = "http://" + dest
		}
	}
	switch {
	case url != "":
		p.writeLink(url, label)
	case label != "":
		// A relative link means nothing in Slack: keep its text.
		p.buf.WriteString(label)
	case !image:
		p.lit(dest)
	}
	return next, true
}

// writeLink writes a link to url; label is already converted.
func (p *mdParser) writeLink(url, label string) {
	switch p.style {
	case mdPlain:
		if label != "" {
			url = label + " (" + url + ")"
		}
		p.buf.WriteString(url)
	case mdLabel:
		// No links inside a link: keep the text.
		if label == "" {
			p.lit(url)
		} else {
			p.buf.WriteString(label)
		}
	default:
		p.buf.WriteString("<" + mdURLEscaper.Replace(url))
		if label != "" {
			p.buf.WriteString("|" + strings.ReplaceAll(label, "|", "∣"))
		}
		p.buf.WriteString(">")
	}
}

// Link labels and URLs are looked for this far, to keep lines full of [
// or ( linear.
const (
	mdMaxLabel = 1000
	mdMaxURL   = 4096
)

// mdLabelEnd returns the index of the ] that closes the [ at s[i], or -1.
func mdLabelEnd(s string, i int) int {
	depth := 0
	for k := i; k < len(s) && k-i <= mdMaxLabel; k++ {
		switch s[k] {
		case '\\':
			k++
		case '`':
			from, _, end := mdCodeSpan(s, k)
			if end < 0 {
				end = from
			}
			k = end - 1
		case '[':
			depth++
		case ']':
			if depth--; depth == 0 {
				return k
			}
		}
	}
	return -1
}

// mdDestination reads a link's (destination "title") from s[i:], i just
// past the (, and returns the destination and the index past the ).
func mdDestination(s string, i int) (dest string, next int, ok bool) {
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	skip()
	if i < len(s) && s[i] == '<' {
		k := strings.IndexAny(s[i+1:], "<>")
		if k < 0 || s[i+1+k] != '>' {
			return "", 0, false
		}
		dest, i = s[i+1:i+1+k], i+2+k
	} else {
		start, depth := i, 0
	scan:
		for ; i < len(s) && i-start <= mdMaxURL; i++ {
			switch c := s[i]; {
			case c == '\\' && i+1 < len(s) && mdIsASCIIPunct(s[i+1]):
				i++
			case c == '(':
				depth++
			case c == ')':
				if depth == 0 {
					break scan
				}
				depth--
			case c <= ' ':
				break scan
			}
		}
		if depth != 0 || i-start > mdMaxURL {
			return "", 0, false
		}
		dest = s[start:i]
	}
	skip()
	if i < len(s) && (s[i] == '"' || s[i] == '\'' || s[i] == '(') {
		closer := s[i]
		if closer == '(' {
			closer = ')'
		}
		for i++; i < len(s) && s[i] != closer; i++ {
			if s[i] == '\\' {
				i++
			}
		}
		if i >= len(s) {
			return "", 0, false
		}
		i++
		skip()
	}
	if i >= len(s) || s[i] != ')' {
		return "", 0, false
	}
	return mdUnescape(dest), i + 1, true
}

// mdUnescape removes the backslashes that escape ASCII punctuation.
func mdUnescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && mdIsASCIIPunct(s[i+1]) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// run reads the run of *, _ or ~ at i and works out, from the characters
// around it, whether it may open or close emphasis.
func (p *mdParser) run(i int) int {
	s, c := p.src, p.src[i]
	j := i
	for j < len(s) && s[j] == c {
		j++
	}
	before, after := ' ', ' '
	if i > 0 {
		before, _ = utf8.DecodeLastRuneInString(s[:i])
	}
	if j < len(s) {
		after, _ = utf8.DecodeRuneInString(s[j:])
	}
	left := !unicode.IsSpace(after) && (!mdIsPunct(after) || unicode.IsSpace(before) || mdIsPunct(before))
	right := !unicode.IsSpace(before) && (!mdIsPunct(before) || unicode.IsSpace(after) || mdIsPunct(after))
	open, close := left, right
	switch {
	case c == '_':
		open = left && (!right || mdIsPunct(before))
		close = right && (!left || mdIsPunct(after))
	case c == '~' && j-i > 2:
		open, close = false, false
	}
	p.flush()
	p.nodes = append(p.nodes, mdNode{text: s[i:j], delim: c, n: j - i, orig: j - i, open: open, close: close})
	return j
}

// emphasis pairs delimiter runs as CommonMark's "process emphasis" does,
// with GFM's rule that ~ pairs only with a run of its own length.
func (p *mdParser) emphasis() {
	// bottom[kind] is the index below which no opener for that kind of
	// closer exists.
	bottom := map[[3]int]int{}
	for ci := range p.nodes {
		cl := &p.nodes[ci]
		if cl.delim == 0 || !cl.close {
			continue
		}
		for cl.n > 0 {
			kind := [3]int{int(cl.delim), cl.orig % 3, 0}
			if cl.open {
				kind[2] = 1
			}
			low, seen := bottom[kind]
			if !seen {
				low = -1
			}
			oi := -1
			for k := ci - 1; k > low; k-- {
				op := &p.nodes[k]
				if op.delim != cl.delim || !op.open || op.n == 0 {
					continue
				}
				if cl.delim == '~' && op.n != cl.n ||
					cl.delim != '~' && (op.close || cl.open) && (op.orig+cl.orig)%3 == 0 && (op.orig%3 != 0 || cl.orig%3 != 0) {
					continue
				}
				oi = k
				break
			}
			if oi < 0 {
				bottom[kind] = ci - 1
				break
			}
			op := &p.nodes[oi]
			n := 1
			switch {
			case cl.delim == '~':
				n = cl.n
			case op.n >= 3 && cl.n >= 3:
				// ***x*** becomes *_x_*: italic inside, bold outside.
			case op.n >= 2 && cl.n >= 2:
				n = 2
			}
			tag := p.tag(cl.delim, n)
			op.n -= n
			cl.n -= n
			op.openTags = tag + op.openTags
			cl.closeTags += tag
			for k := oi + 1; k < ci; k++ {
				p.nodes[k].open, p.nodes[k].close = false, false
			}
		}
		if !cl.open {
			cl.close = false
		}
	}
}

// tag is the mrkdwn for emphasis made of n delimiters d.
func (p *mdParser) tag(d byte, n int) string {
	switch {
	case p.style == mdPlain:
		return ""
	case d == '~':
		return "~"
	case n == 1:
		return "_"
	case p.style == mdHeading:
		return ""
	}
	return "*"
}

func mdIsASCIIPunct(c byte) bool {
	return c < utf8.RuneSelf && unicode.IsPunct(rune(c)) || strings.IndexByte("$+<=>^`|~", c) >= 0
}

func mdIsPunct(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) }

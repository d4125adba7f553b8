package slack

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// mdTextEscaper escapes the characters that mrkdwn gives a meaning to.
var mdTextEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

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

package slack

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Links: [label](url), <autolinks>, bare URLs, and the <…> tokens Slack
// itself writes.

var (
	// mdSlackRE matches what Slack itself writes: <@U1|name>, <#C1|general>,
	// <!here>, <!subteam^S1>, <!date^…|…>. Of the special commands (<!…>)
	// only a date is kept (mdSlackSafe).
	mdSlackRE    = regexp.MustCompile(`^<(?:[@#][A-Z0-9]+(?:\|[^<>\n]*)?|![a-z]+(?:\^[^<>|\n]*)?(?:\|[^<>\n]*)?)>`)
	mdAutolinkRE = regexp.MustCompile(`^<([a-zA-Z][a-zA-Z0-9+.-]{1,31}:[^\x00-\x20<>]*)>`)
	mdEmailRE    = regexp.MustCompile(`^<([a-zA-Z0-9.!#$%&'*+/=?^_{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*)>`)
	mdSchemeRE   = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]{1,31}:`)
	mdBareURLRE  = regexp.MustCompile(`^(?i:https?://)[^\s<>]+`)
	// Slack ends a link's URL at | or >; & stays as written.
	mdURLEscaper = strings.NewReplacer("<", "%3C", ">", "%3E", "|", "%7C", " ", "%20")
)

// angle handles a < at i: a Slack token, an autolink or text.
func (p *mdParser) angle(i int) int {
	s := p.src[i:]
	if m := mdSlackRE.FindString(s); m != "" {
		if p.style == mdLabel || !mdSlackSafe(m) {
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

// mdSlackSafe reports whether the Slack token at the start of s may be
// written from the model's text as a token: a user or channel mention or
// a date, but no other special command (<!here>, <!channel^x>, <!group>,
// <!subteam^S1>…), which could notify many people.
func mdSlackSafe(s string) bool {
	return !strings.HasPrefix(s, "<!") || strings.HasPrefix(s, "<!date^")
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

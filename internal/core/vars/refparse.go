package vars

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// The delimiters of a reference; the syntax is in the package doc.
const (
	refOpen  = "$VAR_REF{{"
	refClose = "}}"
)

// ref is one parsed reference.
type ref struct {
	text          string // the whole reference, for error messages
	name          string
	sliced        bool
	start, length int64
	bad           bool // a negative or overflowing start or length
}

// segment is a piece of a parsed string: literal text, or a reference.
type segment struct {
	lit   string
	runes int64 // utf8.RuneCountInString(lit), when counted
	ref   *ref
}

// HasRef reports whether str contains a $VAR_REF reference.
func HasRef(str string) bool {
	_, _, ok := nextRef(str)
	return ok
}

// nextRef finds the first reference in s and returns it and its byte
// offset.
func nextRef(s string) (r ref, at int, ok bool) {
	for off := 0; ; {
		i := strings.Index(s[off:], refOpen)
		if i < 0 {
			return ref{}, 0, false
		}
		at = off + i
		if r, ok := parseRef(s[at:]); ok {
			return r, at, true
		}
		off = at + 1
	}
}

// parseRef parses the reference at the start of s, which begins with
// refOpen.
func parseRef(s string) (ref, bool) {
	p := len(refOpen)
	n := p
	for n < len(s) {
		c, size := utf8.DecodeRuneInString(s[n:])
		if !nameRune(c) {
			break
		}
		n += size
	}
	if n == p {
		return ref{}, false
	}
	r := ref{name: s[p:n]}
	if strings.HasPrefix(s[n:], refClose) {
		r.text = s[:n+len(refClose)]
		return r, true
	}
	if !strings.HasPrefix(s[n:], ":") {
		return ref{}, false
	}
	start, n, ok1 := parseInt(s, n+1)
	if !ok1 || !strings.HasPrefix(s[n:], ":") {
		return ref{}, false
	}
	length, n, ok2 := parseInt(s, n+1)
	if !ok2 || !strings.HasPrefix(s[n:], refClose) {
		return ref{}, false
	}
	r.text = s[:n+len(refClose)]
	r.sliced = true
	var err1, err2 error
	r.start, err1 = strconv.ParseInt(start, 10, 64)
	r.length, err2 = strconv.ParseInt(length, 10, 64)
	r.bad = err1 != nil || err2 != nil || r.start < 0 || r.length < 0
	return r, true
}

// parseInt scans an optionally negative run of ASCII digits at s[i:].
func parseInt(s string, i int) (num string, end int, ok bool) {
	j := i
	if j < len(s) && s[j] == '-' {
		j++
	}
	k := j
	for k < len(s) && '0' <= s[k] && s[k] <= '9' {
		k++
	}
	return s[i:k], k, k > j
}

// parse splits s into literal text and references. It counts the runes
// of the literal text only if count is set.
func parse(s string, count bool) []segment {
	var segs []segment
	for {
		r, at, ok := nextRef(s)
		if !ok {
			break
		}
		if at > 0 {
			segs = append(segs, literal(s[:at], count))
		}
		segs = append(segs, segment{ref: &r})
		s = s[at+len(r.text):]
	}
	if s != "" {
		segs = append(segs, literal(s, count))
	}
	return segs
}

func literal(s string, count bool) segment {
	seg := segment{lit: s}
	if count {
		seg.runes = int64(utf8.RuneCountInString(s))
	}
	return seg
}

// segments returns the parsed value of e, parsing it on first use. The
// result is cached until the value changes (see System.set and update).
func (e *entry) segments() []segment {
	if e.segs == nil {
		e.segs = parse(e.v.Value, true)
		if e.segs == nil {
			e.segs = []segment{} // the empty value
		}
	}
	return e.segs
}

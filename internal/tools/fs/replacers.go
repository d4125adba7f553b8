package fs

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The nine replacers, in order. How replace uses them, and where they
// differ from opencode's, is explained at the top of replace.go.

// blockAnchorMin is the least average similarity of the middle lines a
// block-anchor candidate needs, alone or as the best of several.
const blockAnchorMin = 0.3

// Replacer names, as edit reports them.
const (
	rExact        = "exact"
	rLineTrimmed  = "line-trimmed"
	rBlockAnchor  = "block-anchor"
	rWhitespace   = "whitespace-normalised"
	rIndentation  = "indentation-flexible"
	rEscape       = "escape-normalised"
	rTrimmed      = "trimmed-boundary"
	rContextAware = "context-aware"
	rMulti        = "multi-occurrence"
)

// replacer finds candidate texts for old_string in a file.
type replacer struct {
	name string
	// fuzzy replacers run only when old_string does not occur literally.
	fuzzy bool
	find  func(m *matcher) []string
}

var replacers = []replacer{
	{rExact, false, exactCands},
	{rLineTrimmed, true, lineTrimmedCands},
	{rBlockAnchor, true, blockAnchorCands},
	{rWhitespace, true, whitespaceCands},
	{rIndentation, true, indentationCands},
	{rEscape, true, escapeCands},
	{rTrimmed, true, trimmedBoundaryCands},
	{rContextAware, true, contextAwareCands},
	{rMulti, false, multiCands},
}

// matcher holds a file split into lines and what the replacers share.
type matcher struct {
	content string
	find    string
	literal int // occurrences of find as written

	lines   []string
	starts  []int    // byte offset of each line
	trimmed []string // lines with surrounding white space removed
	norm    []string // lines with white space runs collapsed (lazy)
}

func newMatcher(content, find string) *matcher {
	m := &matcher{content: content, find: find, literal: strings.Count(content, find)}
	m.lines = strings.Split(content, "\n")
	m.starts = make([]int, len(m.lines))
	m.trimmed = make([]string, len(m.lines))
	off := 0
	for i, l := range m.lines {
		m.starts[i] = off
		m.trimmed[i] = strings.TrimSpace(l)
		off += len(l) + 1
	}
	return m
}

// block returns lines i..i+n-1 joined by newlines, as a slice of content.
func (m *matcher) block(i, n int) string {
	last := i + n - 1
	return m.content[m.starts[i] : m.starts[last]+len(m.lines[last])]
}

// lineOf returns the 1-based line number of byte offset off.
func (m *matcher) lineOf(off int) int {
	i, found := slices.BinarySearch(m.starts, off)
	if !found {
		i--
	}
	return i + 1
}

// searchLines splits find into lines and drops a trailing empty one.
func searchLines(find string) []string {
	sl := strings.Split(find, "\n")
	if len(sl) > 1 && sl[len(sl)-1] == "" {
		sl = sl[:len(sl)-1]
	}
	return sl
}

// 1. exact: old_string as written, when it occurs exactly once.
func exactCands(m *matcher) []string {
	if m.literal == 1 {
		return []string{m.find}
	}
	return nil
}

// 2. line-trimmed: consecutive lines equal to old_string's lines once
// leading and trailing white space is removed from both.
func lineTrimmedCands(m *matcher) []string {
	sl := searchLines(m.find)
	want := make([]string, len(sl))
	for i, l := range sl {
		want[i] = strings.TrimSpace(l)
	}
	var out []string
	for i := 0; i+len(want) <= len(m.lines); i++ {
		if slices.Equal(m.trimmed[i:i+len(want)], want) {
			out = append(out, m.block(i, len(want)))
		}
	}
	return out
}

// 3. block-anchor: at least three lines; the first and last (trimmed, not
// blank) are anchors that must match, and the middle lines are scored by
// 1 - levenshtein/maxLen.
func blockAnchorCands(m *matcher) []string {
	sl := searchLines(m.find)
	if len(sl) < 3 {
		return nil
	}
	first, last := strings.TrimSpace(sl[0]), strings.TrimSpace(sl[len(sl)-1])
	if first == "" || last == "" {
		return nil
	}
	type cand struct {
		i, j int
		sim  float64
	}
	var cs []cand
	for i, l := range m.trimmed {
		if l != first {
			continue
		}
		for j := i + 2; j < len(m.trimmed); j++ {
			if m.trimmed[j] == last {
				cs = append(cs, cand{i: i, j: j})
				break
			}
		}
	}
	best := -1.0
	for k := range cs {
		cs[k].sim = middleSimilarity(m.trimmed[cs[k].i+1:cs[k].j], sl[1:len(sl)-1])
		best = max(best, cs[k].sim)
	}
	if best < blockAnchorMin {
		return nil
	}
	var out []string
	for _, c := range cs {
		if c.sim >= best-1e-9 {
			out = append(out, m.block(c.i, c.j-c.i+1))
		}
	}
	return out
}

// middleSimilarity averages 1 - levenshtein/maxLen over the longer of the
// two middles; lines missing on one side and blank pairs score 0.
func middleSimilarity(have, want []string) float64 {
	n := max(len(have), len(want))
	if n == 0 {
		return 1
	}
	sum := 0.0
	for k := 0; k < min(len(have), len(want)); k++ {
		a, b := have[k], strings.TrimSpace(want[k])
		ml := max(utf8.RuneCountInString(a), utf8.RuneCountInString(b))
		if ml == 0 {
			continue
		}
		sum += 1 - float64(levenshtein(a, b))/float64(ml)
	}
	return sum / float64(n)
}

// 4. whitespace-normalised: text equal to old_string once every run of
// white space is one space: a whole line, a part of a line, or a block of
// as many lines as old_string has.
func whitespaceCands(m *matcher) []string {
	want := normalizeSpace(m.find)
	if want == "" {
		return nil
	}
	if m.norm == nil {
		m.norm = make([]string, len(m.lines))
		for i, l := range m.lines {
			m.norm[i] = normalizeSpace(l)
		}
	}
	var out []string
	var re *regexp.Regexp
	for i, n := range m.norm {
		switch {
		case n == want:
			out = append(out, m.lines[i])
		case strings.Contains(n, want):
			if re == nil {
				words := strings.Fields(m.find)
				for k, w := range words {
					words[k] = regexp.QuoteMeta(w)
				}
				re = regexp.MustCompile(strings.Join(words, `\s+`))
			}
			if s := re.FindString(m.lines[i]); s != "" {
				out = append(out, s)
			}
		}
	}
	if fl := strings.Count(m.find, "\n") + 1; fl > 1 {
		for i := 0; i+fl <= len(m.lines); i++ {
			if joinedEquals(m.norm[i:i+fl], want) {
				out = append(out, m.block(i, fl))
			}
		}
	}
	return out
}

// normalizeSpace collapses white space runs to one space and trims.
func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// joinedEquals reports whether the non-empty parts joined by spaces equal
// want, without building the joined string.
func joinedEquals(parts []string, want string) bool {
	rest, firstPart := want, true
	for _, p := range parts {
		if p == "" {
			continue
		}
		if !firstPart {
			if !strings.HasPrefix(rest, " ") {
				return false
			}
			rest = rest[1:]
		}
		if !strings.HasPrefix(rest, p) {
			return false
		}
		rest, firstPart = rest[len(p):], false
	}
	return rest == ""
}

// 5. indentation-flexible: a block of as many lines as old_string that
// equals it once each side's smallest indentation is removed.
func indentationCands(m *matcher) []string {
	fl := strings.Split(m.find, "\n")
	want := removeIndent(fl)
	tw := make([]string, len(fl))
	for i, l := range fl {
		tw[i] = strings.TrimSpace(l)
	}
	var out []string
	for i := 0; i+len(fl) <= len(m.lines); i++ {
		// Equal after removing indentation implies equal when trimmed.
		if !slices.Equal(m.trimmed[i:i+len(fl)], tw) {
			continue
		}
		if removeIndent(m.lines[i:i+len(fl)]) == want {
			out = append(out, m.block(i, len(fl)))
		}
	}
	return out
}

// removeIndent removes the smallest leading white space (counted in
// characters) of the non-blank lines from each non-blank line.
func removeIndent(lines []string) string {
	minIndent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := utf8.RuneCountInString(l) - utf8.RuneCountInString(strings.TrimLeftFunc(l, unicode.IsSpace))
		if minIndent < 0 || n < minIndent {
			minIndent = n
		}
	}
	if minIndent <= 0 {
		return strings.Join(lines, "\n")
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			out[i] = l
			continue
		}
		out[i] = l[byteOffsetOfRune(l, minIndent):]
	}
	return strings.Join(out, "\n")
}

func byteOffsetOfRune(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// 6. escape-normalised: old_string with \n, \t, \r, \', \", \`, \\, \$ and
// an escaped newline unescaped; or a block of the file that reads the same
// once unescaped.
func escapeCands(m *matcher) []string {
	u := unescape(m.find)
	var out []string
	if u != m.find && strings.Contains(m.content, u) {
		out = append(out, u)
	}
	n := strings.Count(u, "\n") + 1
	for i := 0; i+n <= len(m.lines); i++ {
		b := m.block(i, n)
		// Only a block with a backslash changes when unescaped.
		if strings.IndexByte(b, '\\') >= 0 && unescape(b) == u {
			out = append(out, b)
		}
	}
	return out
}

// unescape replaces the escape sequences escape-normalised knows.
func unescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		switch n := s[i+1]; n {
		case 'n', '\n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '\'', '"', '`', '\\', '$':
			b.WriteByte(n)
		default:
			b.WriteByte(c)
			continue
		}
		i++
	}
	return b.String()
}

// 7. trimmed-boundary: old_string without its leading and trailing white
// space, or a block whose trimmed text equals it.
func trimmedBoundaryCands(m *matcher) []string {
	tf := strings.TrimSpace(m.find)
	if tf == m.find || tf == "" {
		return nil
	}
	var out []string
	if strings.Contains(m.content, tf) {
		out = append(out, tf)
	}
	n := strings.Count(m.find, "\n") + 1
	for i := 0; i+n <= len(m.lines); i++ {
		if b := m.block(i, n); strings.TrimSpace(b) == tf {
			out = append(out, b)
		}
	}
	return out
}

// 8. context-aware: at least three lines; first and last lines (trimmed, not
// blank) as anchors, the same number of lines, and at least half of the non-blank
// middle lines equal when trimmed.
func contextAwareCands(m *matcher) []string {
	sl := searchLines(m.find)
	if len(sl) < 3 {
		return nil
	}
	first, last := strings.TrimSpace(sl[0]), strings.TrimSpace(sl[len(sl)-1])
	if first == "" || last == "" {
		return nil
	}
	var out []string
	for i, l := range m.trimmed {
		if l != first {
			continue
		}
		for j := i + 2; j < len(m.trimmed); j++ {
			if m.trimmed[j] != last {
				continue
			}
			if j-i+1 == len(sl) {
				same, total := 0, 0
				for k := 1; k < len(sl)-1; k++ {
					a, b := m.trimmed[i+k], strings.TrimSpace(sl[k])
					if a != "" || b != "" {
						total++
						if a == b {
							same++
						}
					}
				}
				if total == 0 || 2*same >= total {
					out = append(out, m.block(i, j-i+1))
				}
			}
			break
		}
	}
	return out
}

// 9. multi-occurrence: old_string as written, when it occurs several times;
// only replace_all can use it.
func multiCands(m *matcher) []string {
	if m.literal > 1 {
		return []string{m.find}
	}
	return nil
}

// maxLevenshteinCells bounds the table levenshtein fills; beyond it two
// different strings count as entirely different.
const maxLevenshteinCells = 4 << 20

// levenshtein is the edit distance between a and b in characters, with two
// rows of the usual table.
func levenshtein(a, b string) int {
	if a == b {
		return 0
	}
	ra, rb := []rune(a), []rune(b)
	if len(ra) == 0 || len(rb) == 0 || len(ra)*len(rb) > maxLevenshteinCells {
		return max(len(ra), len(rb))
	}
	prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

package fs

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// The nine replacers of seed 003 (DESIGN.md §3), after opencode's edit
// tool. Each one looks at the file for text that old_string plausibly
// means and returns candidate strings taken from the file; replace then
// finds every place where a candidate occurs.
//
// replace tries them in order. The first replacer whose candidates occur at
// exactly one place wins (with replace_all: at any place, and every place it
// found is replaced, literally). A replacer whose candidates occur at
// several places is ambiguous and the next one is tried, since a later one
// may pin the text down (indentation-flexible after line-trimmed, say);
// when none wins, the error names the first ambiguous replacer.
//
// Where threadbot differs from opencode, deliberately:
//   - The fuzzy replacers (2-8) run only when old_string does not occur
//     literally. When it occurs several times, multi-occurrence (9) handles
//     it: replace_all replaces every occurrence, otherwise the edit is
//     ambiguous. In opencode a looser replacer could then pick some other,
//     unique, look-alike place the model never wrote; and its
//     multi-occurrence replacer was unreachable, because exact already
//     yields the same string.
//   - Places are counted over all candidates of a replacer, overlapping
//     occurrences counting once. Two candidates that are each unique (the
//     same block at two indentations) are two places, so ambiguous; opencode
//     took the first.
//   - Block-anchor needs a real similarity from a single candidate as well
//     (blockAnchorMin, 0.3); opencode accepted any single candidate whose
//     first and last lines matched, however different the middle. The
//     average runs over the longer of the two middles, so lines missing on
//     one side score 0 (opencode ignored the extra lines of a longer block),
//     and a tie for the best of several candidates is ambiguous. Blank
//     middle lines score 0 as in opencode: they are no evidence of a match
//     (context-aware, which ignores them, covers blocks that are mostly
//     blank).
//   - Block-anchor and context-aware need three lines after a trailing
//     empty line is dropped, so "a\nb\n" cannot anchor on a and b alone,
//     and their anchors must not be blank: a blank line matches any blank
//     line, which would let a block stretch to the next one.
//   - When escape-normalised matched by unescaping old_string, new_string
//     is unescaped the same way: a model that double-escaped one string
//     double-escaped both.

// span is one place a replacement happens: bytes [start, end) of the file
// become text.
type span struct {
	start, end int
	text       string
}

// replacement is a successful replace.
type replacement struct {
	replacer string
	content  string // the new file
	spans    []span // in the old file, in order
	// unescaped reports that new_string was unescaped too.
	unescaped bool
}

// replace applies new for old in content with the first replacer that
// pins old down (see the top of this file). Its errors say which replacer
// found old ambiguous, or that it was not found.
func replace(content, old, new string, all bool) (replacement, error) {
	m := newMatcher(content, old)
	var ambiguous error
	for _, r := range replacers {
		if r.fuzzy && m.literal > 0 {
			continue
		}
		cands := r.find(m)
		places := locate(content, cands)
		if len(places) == 0 {
			continue
		}
		if !all && len(places) > 1 {
			if ambiguous == nil {
				ambiguous = fmt.Errorf("old_string matches %d places (replacer %s; lines %s); add more context to make it unique, or set replace_all to change every place",
					len(places), r.name, lineList(m, places))
			}
			continue
		}
		text := new
		res := replacement{replacer: r.name}
		if r.name == rEscape && places[0].text == unescape(old) && unescape(old) != old {
			text, res.unescaped = unescape(new), true
		}
		var b strings.Builder
		prev := 0
		for _, p := range places {
			b.WriteString(content[prev:p.start])
			b.WriteString(text)
			prev = p.end
			res.spans = append(res.spans, span{p.start, p.end, text})
		}
		b.WriteString(content[prev:])
		res.content = b.String()
		return res, nil
	}
	if ambiguous != nil {
		return replacement{}, ambiguous
	}
	return replacement{}, fmt.Errorf("old_string not found%s; read the file again and copy the text exactly, including white space and indentation", closest(m))
}

// place is an occurrence of a candidate.
type place struct {
	start, end int
	text       string
	cand       int
}

// locate finds every occurrence of every candidate and merges overlapping
// ones into one place, which keeps the earliest candidate.
func locate(content string, cands []string) []place {
	var all []place
	seen := map[string]bool{}
	for ci, c := range cands {
		if c == "" || seen[c] {
			continue
		}
		seen[c] = true
		for off := 0; ; {
			i := strings.Index(content[off:], c)
			if i < 0 {
				break
			}
			all = append(all, place{off + i, off + i + len(c), c, ci})
			off += i + len(c)
		}
	}
	slices.SortFunc(all, func(a, b place) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return a.cand - b.cand
	})
	var out []place
	groupEnd := -1
	for _, p := range all {
		if len(out) > 0 && p.start < groupEnd {
			groupEnd = max(groupEnd, p.end)
			if p.cand < out[len(out)-1].cand {
				out[len(out)-1] = p
			}
			continue
		}
		out = append(out, p)
		groupEnd = p.end
	}
	return out
}

// lineList renders the first line numbers of places: "3, 17".
func lineList(m *matcher, places []place) string {
	var s []string
	for i, p := range places {
		if i == 5 {
			s = append(s, "…")
			break
		}
		s = append(s, fmt.Sprint(m.lineOf(p.start)))
	}
	return strings.Join(s, ", ")
}

// closest names the file line most like old_string's first non-blank line,
// when one is at least half similar.
func closest(m *matcher) string {
	var want string
	for _, l := range strings.Split(m.find, "\n") {
		if want = strings.TrimSpace(l); want != "" {
			break
		}
	}
	wl := utf8.RuneCountInString(want)
	if wl == 0 || wl > 500 {
		return ""
	}
	best, bestSim := -1, 0.5
	for i, l := range m.trimmed {
		ll := utf8.RuneCountInString(l)
		if ll == 0 || ll > 2*wl || wl > 2*ll {
			continue
		}
		sim := 1 - float64(levenshtein(l, want))/float64(max(ll, wl))
		if sim > bestSim {
			best, bestSim = i, sim
		}
	}
	if best < 0 {
		return ""
	}
	return fmt.Sprintf(" (the most similar line is %d: %q)", best+1, cutLine(m.trimmed[best], 120, 0))
}

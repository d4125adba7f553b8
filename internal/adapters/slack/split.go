package slack

import (
	"strings"
	"unicode/utf8"
)

// The fences split adds around a cut inside a code block.
const (
	splitReopen = "```\n"
	splitClose  = "\n```"
)

// split cuts mrkdwn text into chunks of at most max characters (runes),
// one per message. It cuts at the last blank line that leaves a chunk at
// least half full, else at a line end, else at a space outside a <link>,
// dropping the whitespace at the cut; a line with none of these is cut
// where it must be, between two characters but before a <mention> or
// <link> that would otherwise be cut (one longer than max is cut) and
// not inside &amp;, &lt; or &gt;. A line starting with ``` is a
// code fence: when a cut falls inside a code block, the chunk ends with a
// closing fence and the next one starts by reopening the block, both
// counted against max, so that every chunk of a text with balanced fences
// is balanced too. Text of at most max characters is one chunk, unchanged;
// empty text is none, and so is a piece with nothing but whitespace. A max
// of 8 or less leaves no room for the added fences, which are then left
// out.
func split(text string, max int) []string {
	if text == "" {
		return nil
	}
	if max < 1 {
		max = 1
	}
	if utf8.RuneCountInString(text) <= max {
		return []string{text}
	}
	fenced := max > len(splitReopen)+len(splitClose)
	var chunks []string
	open := false
	for rest := text; rest != ""; {
		pre := ""
		if open {
			pre = splitReopen
		}
		room := max - len(pre)
		body, next, after := splitPiece(rest, room, open, fenced)
		if fenced && after && utf8.RuneCountInString(body)+len(splitClose) > room {
			body, next, after = splitPiece(rest, room-len(splitClose), open, fenced)
		}
		if strings.TrimSpace(body) != "" {
			if fenced && after {
				body = strings.TrimRight(body, "\n") + splitClose
			}
			chunks = append(chunks, pre+body)
		}
		open = fenced && after
		rest = rest[next:]
	}
	return chunks
}

// splitPiece takes the next chunk's body from rest, at most room runes:
// the body is rest[:len(body)], rest[next:] is what is left, and after
// says whether the body ends inside a code block (open says whether it
// starts inside one).
func splitPiece(rest string, room int, open, fenced bool) (body string, next int, after bool) {
	if splitFits(rest, room) {
		body, next = rest, len(rest)
	} else {
		var end int
		end, next = splitAt(rest, room)
		body = rest[:end]
	}
	if after = open != splitOdd(body); !fenced || !after {
		return body, next, after
	}
	// A chunk that would end with the fence opening a block ends before it.
	if ls := strings.LastIndexByte(body, '\n') + 1; ls > 0 && strings.HasPrefix(body[ls:], "```") {
		if b := strings.TrimRight(body[:ls], " \t\n"); b != "" {
			return b, ls, false
		}
	}
	// A block that closes right after the cut is better closed by its own
	// fence than by an added one.
	if next > 0 && rest[next-1] == '\n' && strings.HasPrefix(rest[next:], "```") {
		end := len(rest)
		if i := strings.IndexByte(rest[next:], '\n'); i >= 0 {
			end = next + i
		}
		if splitFits(rest[:end], room) {
			return rest[:end], splitSkip(rest, end, "\n"), false
		}
	}
	return body, next, after
}

// splitAt chooses where to cut s, which is longer than room runes: the
// chunk is s[:end] and the rest starts at next.
func splitAt(s string, room int) (end, next int) {
	lim := len(s) // the byte offset of rune number room
	n := 0
	for i := range s {
		if n == room {
			lim = i
			break
		}
		n++
	}
	trimmed := func(i int) int { return len(strings.TrimRight(s[:i], " \t\n")) }
	for _, lo := range []int{max(lim/2, 1), 1} {
		if i := strings.LastIndex(s[:min(lim+2, len(s))], "\n\n"); i >= lo && trimmed(i) > 0 {
			return trimmed(i), splitSkip(s, i, "\n")
		}
		if i := strings.LastIndexByte(s[:min(lim+1, len(s))], '\n'); i >= lo && trimmed(i) > 0 {
			return trimmed(i), splitSkip(s, i, "\n")
		}
		if i := splitSpace(s, lim, lo); i >= 0 {
			return trimmed(i), splitSkip(s, i, " \t")
		}
	}
	// A hard cut, but not inside a <…> token (a mention, a link) unless it
	// alone is longer than room, nor inside one of the entities mrkdwn
	// escapes with. lim is at a rune boundary, and so are the < and & cut
	// before.
	if lt := strings.LastIndexByte(s[:lim], '<'); lt > 0 && strings.LastIndexByte(s[:lim], '>') < lt && strings.IndexByte(s[lt:lim], '\n') < 0 {
		// A token that fits in room runes has at most 4*room bytes: the
		// search for its > stops there, so that a long line stays linear.
		if gt := strings.IndexAny(s[lim:min(len(s), lt+4*room)], ">\n"); gt >= 0 && s[lim+gt] == '>' && splitFits(s[lt:lim+gt+1], room) {
			return lt, lt
		}
	}
	if a := strings.LastIndexByte(s[:lim], '&'); a > 0 {
		for _, e := range []string{"&amp;", "&lt;", "&gt;"} {
			if a+len(e) > lim && strings.HasPrefix(s[a:], e) {
				return a, a
			}
		}
	}
	return lim, lim
}

// splitSpace returns the index of the last space in s[lo:lim+1] that is
// not inside a <link> and has text before it, or -1.
func splitSpace(s string, lim, lo int) int {
	for i := min(lim, len(s)-1); i >= lo; i-- {
		if s[i] != ' ' {
			continue
		}
		line := s[strings.LastIndexByte(s[:i], '\n')+1 : i]
		if lt := strings.LastIndexByte(line, '<'); lt > strings.LastIndexByte(line, '>') {
			rest := s[i:]
			if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
				rest = rest[:nl]
			}
			if strings.IndexByte(rest, '>') >= 0 {
				continue
			}
		}
		if strings.TrimRight(s[:i], " \t\n") != "" {
			return i
		}
	}
	return -1
}

// splitSkip returns the index of the first byte at or after i that is
// not in chars.
func splitSkip(s string, i int, chars string) int {
	for i < len(s) && strings.IndexByte(chars, s[i]) >= 0 {
		i++
	}
	return i
}

// splitOdd reports whether s has an odd number of lines starting with ```.
func splitOdd(s string) bool {
	odd := false
	for line := range strings.SplitSeq(s, "\n") {
		if strings.HasPrefix(line, "```") {
			odd = !odd
		}
	}
	return odd
}

// splitFits reports whether s has at most n runes, reading no further
// than it must.
func splitFits(s string, n int) bool {
	if len(s) <= n {
		return true
	}
	for range s {
		if n--; n < 0 {
			return false
		}
	}
	return true
}

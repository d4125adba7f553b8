package executor

import (
	"fmt"
	"unicode/utf8"
)

// Truncate keeps the head and the tail of text so that at most limit
// characters (runes) remain, with a marker between them that says how many
// characters were left out. It never cuts inside a UTF-8 sequence. limit ≤ 0
// means no truncation. It returns the new text, the number of characters of
// the head (where the omitted part starts) and how many were omitted.
func Truncate(text string, limit int) (out string, head, omitted int) {
	n := utf8.RuneCountInString(text)
	if limit <= 0 || n <= limit {
		return text, n, 0
	}
	head = limit * 2 / 3
	tail := limit - head
	omitted = n - head - tail
	hb := byteOffset(text, head)
	tb := byteOffset(text, n-tail)
	marker := fmt.Sprintf("\n\n... [%d characters omitted] ...\n\n", omitted)
	return text[:hb] + marker + text[tb:], head, omitted
}

// byteOffset returns the byte offset of the rune with index i.
func byteOffset(s string, i int) int {
	if i <= 0 {
		return 0
	}
	for off := range s {
		if i == 0 {
			return off
		}
		i--
	}
	return len(s)
}

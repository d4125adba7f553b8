package fs

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// sniffLen is how much of a file binary detection looks at.
const sniffLen = 8 << 10

// binaryKind reports whether head (the first bytes of a file) looks binary:
// it holds a NUL byte or is not valid UTF-8. A multi-byte sequence cut by the
// end of head does not count. The second result names the content type for
// the error message.
func binaryKind(head []byte, whole bool) (bool, string) {
	if len(head) > sniffLen {
		head = head[:sniffLen]
		whole = false
	}
	bin := bytes.IndexByte(head, 0) >= 0
	if !bin {
		check := head
		if !whole {
			// Drop a rune the cut may have split.
			for i := 1; i <= utf8.UTFMax && i <= len(check); i++ {
				if utf8.RuneStart(check[len(check)-i]) {
					if !utf8.FullRune(check[len(check)-i:]) {
						check = check[:len(check)-i]
					}
					break
				}
			}
		}
		bin = !utf8.Valid(check)
	}
	if !bin {
		return false, ""
	}
	return true, http.DetectContentType(head)
}

// cutLine shortens a line to at most max characters, saying how many were
// left out; extra counts characters already dropped beyond s.
func cutLine(s string, max, extra int) string {
	if max <= 0 || extra == 0 && (len(s) <= max || utf8.RuneCountInString(s) <= max) {
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			return fmt.Sprintf("%s… [line cut: %d more characters]", s[:i], utf8.RuneCountInString(s[i:])+extra)
		}
		n++
	}
	return fmt.Sprintf("%s… [line cut: %d more characters]", s, extra)
}

// countLines counts the lines of s: newlines, plus one for a last line
// without a newline.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// humanSize renders a byte count for listings.
func humanSize(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
}

// plural renders "1 line" or "2 lines" ("2 matches").
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "ry") {
		return fmt.Sprintf("%d %sies", n, word[:len(word)-1])
	}
	if strings.HasSuffix(word, "ch") || strings.HasSuffix(word, "s") {
		return fmt.Sprintf("%d %ses", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

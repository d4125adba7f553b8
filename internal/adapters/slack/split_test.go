package slack

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		text string
		max  int
		want []string
	}{
		{"empty", "", 10, nil},
		{"short", "hello", 10, []string{"hello"}},
		{"exactly max", "hello", 5, []string{"hello"}},
		{"fits unchanged", "  a\n\n```\nb\n", 20, []string{"  a\n\n```\nb\n"}},
		{"max below one", "ab", 0, []string{"a", "b"}},
		{"blank line first", "aaaa bbbb\ncccc\n\ndddd eeee", 20, []string{"aaaa bbbb\ncccc", "dddd eeee"}},
		{"then line end", "aaaa bbbb cccc\ndddd eeee", 20, []string{"aaaa bbbb cccc", "dddd eeee"}},
		{"line end in first half loses to space", "aaaa bbbb\ncccc dddd eeee", 20, []string{"aaaa bbbb\ncccc dddd", "eeee"}},
		{"then space", "aaaa bbbb cccc dddd eeee", 12, []string{"aaaa bbbb", "cccc dddd", "eeee"}},
		{"whitespace at cuts dropped", "aaaa   \n\n\n\nbbbb  cccc", 8, []string{"aaaa", "bbbb", "cccc"}},
		{"indentation after a cut kept", "• aaaa\n    ◦ bbbb", 10, []string{"• aaaa", "    ◦ bbbb"}},
		{"hard cut", "abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"runes not bytes", "ééééé ééééé", 5, []string{"ééééé", "ééééé"}},
		{"hard cut between runes", "😀😀😀", 2, []string{"😀😀", "😀"}},
		{"hard cut not in an entity", "&amp;&lt;&gt;", 7, []string{"&amp;", "&lt;", "&gt;"}},
		{"link kept whole", "see <https://x.io|the docs> now", 24, []string{"see", "<https://x.io|the docs>", "now"}},
		{"hard cut before a mention", "abcdefgh<@U0123456>ij", 12, []string{"abcdefgh", "<@U0123456>i", "j"}},
		{"hard cut before a link", "漢漢漢漢<https://x|y>字字", 16, []string{"漢漢漢漢", "<https://x|y>字字"}},
		{"hard cut after a closed mention", "<@U1>abcdefgh", 8, []string{"<@U1>abc", "defgh"}},
		{"hard cut in a link longer than max", "ab<https://example.com/long>", 10, []string{"ab<https:/", "/example.c", "om/long>"}},
		{"hard cut not in an entity in a link", "漢<https://x.io/?a=1&amp;b=2|y>", 20, []string{"漢<https://x.io/?a=1", "&amp;b=2|y>"}},
		{"code block reopened", "```\naaa\nbbb\nccc\nddd\n```", 16, []string{"```\naaa\nbbb\n```", "```\nccc\nddd\n```"}},
		{"code block after text", "intro text\n```\ncode\n```", 16, []string{"intro text", "```\ncode\n```"}},
		{"closing fence taken along", "```\naaaa\n\n```\nbb cc dd ee", 16, []string{"```\naaaa\n\n```", "bb cc dd ee"}},
		{"open block at the end closed", "aaaa bbbb\n```\ncode", 12, []string{"aaaa bbbb", "```\ncode\n```"}},
		{"no fences below nine", "```\nabc\n```", 4, []string{"```", "abc", "```"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := split(tt.text, tt.max); !slices.Equal(got, tt.want) {
				t.Errorf("split(%q, %d)\n got: %q\nwant: %q", tt.text, tt.max, got, tt.want)
			}
		})
	}
}

// TestSplitProperties splits generated mrkdwn of every shape the converter
// writes and checks the invariants of split on each.
func TestSplitProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		text := splitSample(r)
		size := []int{9, 10, 13, 20, 37, 80, 200, 1000, 3900}[i%9]
		chunks := split(text, size)
		splitCheck(t, text, size, chunks)
		for k, c := range chunks {
			if n := splitFences(c); n%2 != 0 {
				t.Fatalf("split(%q, %d): chunk %d %q has %d fences", text, size, k, c, n)
			}
			// Every <…> in the samples is shorter than 80 - 8 runes.
			if size >= 80 && strings.Count(c, "<") != strings.Count(c, ">") {
				t.Fatalf("split(%q, %d): chunk %d %q cuts a <…>", text, size, k, c)
			}
		}
	}
}

// TestSplitEntities cuts lines with no space, as CJK text is written,
// next to a mention or a link: no chunk may end inside one, nor inside a
// character.
func TestSplitEntities(t *testing.T) {
	for _, tt := range []struct{ name, md, entity string }{
		{"mention", strings.Repeat("漢", 3895) + "<@U0123456>" + strings.Repeat("字", 100), "<@U0123456>"},
		{"link", strings.Repeat("漢", 3880) + "[docs](https://example.com/a/very/long/path)" + strings.Repeat("字", 100), "<https://example.com/a/very/long/path|docs>"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text := mrkdwn(tt.md)
			chunks := split(text, maxText)
			splitCheck(t, text, maxText, chunks)
			whole := false
			for k, c := range chunks {
				if strings.Count(c, "<") != strings.Count(c, ">") {
					t.Errorf("chunk %d ends %q, inside a <…>", k, c[max(len(c)-40, 0):])
				}
				whole = whole || strings.Contains(c, tt.entity)
			}
			if !whole {
				t.Errorf("no chunk holds %s whole", tt.entity)
			}
		})
	}
}

// TestSplitConverted splits the golden answer at several sizes.
func TestSplitConverted(t *testing.T) {
	text := toMrkdwn(strings.Repeat("## Title\n\nSome *text* with [a link](https://x.io/a_b) and `code`.\n\n"+
		"```go\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- one\n- two\n", 20))
	for _, size := range []int{9, 50, 120, 400, 3900} {
		chunks := split(text, size)
		splitCheck(t, text, size, chunks)
		for k, c := range chunks {
			if n := splitFences(c); n%2 != 0 {
				t.Fatalf("split(converted, %d): chunk %d %q has %d fences", size, k, c, n)
			}
		}
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("```\naaa\nbbb\nccc\nddd\n```", 16)
	f.Add("intro text\n```\ncode\n```", 9)
	f.Add("see <https://x.io|the docs> now", 24)
	f.Add("漢漢漢漢<https://x|y>字字<@U1>", 16)
	f.Add("ééééé ééééé\n\n😀😀😀 a```b", 5)
	f.Add("\xff\xfe ``` \n```\n\n\n", 10)
	f.Fuzz(func(t *testing.T, text string, size int) {
		size %= 5000
		if size < 0 {
			size = -size
		}
		chunks := split(text, size)
		splitCheck(t, text, size, chunks)
		if len(chunks) > 1 && size > 8 {
			for k, c := range chunks {
				if n := splitFences(c); n%2 != 0 {
					t.Fatalf("split(%q, %d): chunk %d %q has %d fences", text, size, k, c, n)
				}
			}
		}
	})
}

// splitCheck checks the invariants of split that hold for any text.
func splitCheck(t *testing.T, text string, size int, chunks []string) {
	t.Helper()
	limit := size
	if limit < 1 {
		limit = 1
	}
	switch {
	case text == "":
		if chunks != nil {
			t.Fatalf("split(%q, %d) = %q, want nil", text, size, chunks)
		}
		return
	case utf8.RuneCountInString(text) <= limit:
		if len(chunks) != 1 || chunks[0] != text {
			t.Fatalf("split(%q, %d) = %q, want the text", text, size, chunks)
		}
		return
	}
	for k, c := range chunks {
		if n := utf8.RuneCountInString(c); n > limit {
			t.Fatalf("split(%q, %d): chunk %d %q has %d runes", text, size, k, c, n)
		}
		if strings.TrimSpace(c) == "" {
			t.Fatalf("split(%q, %d): chunk %d %q is blank", text, size, k, c)
		}
		if utf8.ValidString(text) && !utf8.ValidString(c) {
			t.Fatalf("split(%q, %d): chunk %d %q is not valid UTF-8", text, size, k, c)
		}
	}
	if !splitReassembles(text, chunks, limit > 8) {
		t.Fatalf("split(%q, %d) = %q, which does not put the text back together", text, size, chunks)
	}
}

// splitReassembles reports whether chunks are text cut at whitespace,
// apart from the fences split adds: a chunk that starts inside a code
// block starts with "```\n", and one that ends inside a block ends with
// "\n```". Both readings of a chunk ending in "\n```" are tried.
func splitReassembles(text string, chunks []string, fenced bool) bool {
	type at struct {
		chunk, pos int
		open       bool
	}
	seen := map[at]bool{}
	var walk func(at) bool
	walk = func(a at) bool {
		rest := strings.TrimLeftFunc(text[a.pos:], unicode.IsSpace)
		if a.chunk == len(chunks) {
			return rest == ""
		}
		if seen[a] {
			return false
		}
		seen[a] = true
		c := chunks[a.chunk]
		if a.open {
			if !strings.HasPrefix(c, "```\n") {
				return false
			}
			c = c[len("```\n"):]
		}
		for _, added := range []bool{false, true} {
			body := c
			if added {
				if !fenced || !strings.HasSuffix(c, "\n```") {
					continue
				}
				body = strings.TrimSuffix(c, "\n```")
			}
			open := a.open != (splitFences(body)%2 == 1)
			if fenced && open != added {
				continue
			}
			trimmed := strings.TrimLeftFunc(body, unicode.IsSpace)
			if !strings.HasPrefix(rest, trimmed) {
				continue
			}
			if walk(at{a.chunk + 1, len(text) - len(rest) + len(trimmed), fenced && open}) {
				return true
			}
		}
		return false
	}
	return walk(at{})
}

// splitFences counts the lines of s that start with ```.
func splitFences(s string) int {
	n := 0
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "```") {
			n++
		}
	}
	return n
}

// splitSample generates mrkdwn with balanced fences: paragraphs of words
// in several scripts, long words, links, list items and code blocks.
func splitSample(r *rand.Rand) string {
	words := []string{"a", "the", "mrkdwn", "*bold*", "_it_", "`x`", "é", "日本語", "😀", "&amp;",
		"<https://x.io/a_b|a link label>", "<@U123>", strings.Repeat("long", 15),
		strings.Repeat("漢", 50) + "<@U123>字字<https://x.io/a_b|a link>" + strings.Repeat("字", 30)}
	var b strings.Builder
	for range r.IntN(12) + 1 {
		switch r.IntN(5) {
		case 0:
			b.WriteString("```\n")
			for range r.IntN(8) {
				b.WriteString(strings.Repeat(" ", r.IntN(6)))
				for range r.IntN(8) {
					b.WriteString(words[r.IntN(len(words))] + " ")
				}
				b.WriteString("\n")
			}
			b.WriteString("```")
		case 1:
			for range r.IntN(4) + 1 {
				b.WriteString(strings.Repeat("    ", r.IntN(3)) + "• " + words[r.IntN(len(words))] + " item\n")
			}
		default:
			for range r.IntN(40) + 1 {
				b.WriteString(words[r.IntN(len(words))])
				if r.IntN(10) == 0 {
					b.WriteString("\n")
				} else {
					b.WriteString(" ")
				}
			}
		}
		b.WriteString([]string{"\n", "\n\n", "\n\n\n"}[r.IntN(3)])
	}
	return b.String()
}

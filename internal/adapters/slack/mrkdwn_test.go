package slack

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestToMrkdwn(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"plain", "Hello, world.", "Hello, world."},

		// Escaping.
		{"escape", "a < b && c > d", "a &lt; b &amp;&amp; c &gt; d"},
		{"html is text", "<div>hi</div>", "&lt;div&gt;hi&lt;/div&gt;"},
		{"slack tokens pass", "<@U123> <@U9|ann> <#C456|general> <!date^1^{time}|x>",
			"<@U123> <@U9|ann> <#C456|general> <!date^1^{time}|x>"},
		{"special commands are text", "<!here> <!subteam^S1|@team> <!channel^x>",
			"&lt;!here&gt; &lt;!subteam^S1|@team&gt; &lt;!channel^x&gt;"},
		{"not a slack token", "<@lower> <!DOCTYPE html>", "&lt;@lower&gt; &lt;!DOCTYPE html&gt;"},

		// Emphasis.
		{"bold stars", "**bold**", "*bold*"},
		{"bold underscores", "__bold__", "*bold*"},
		{"italic star", "*it*", "_it_"},
		{"italic underscore", "_it_", "_it_"},
		{"bold italic stars", "***both***", "*_both_*"},
		{"bold italic underscores", "___both___", "*_both_*"},
		{"nested", "**bold _it_ more**", "*bold _it_ more*"},
		{"italic in bold", "**bold *it* more**", "*bold _it_ more*"},
		{"strike", "~~gone~~", "~gone~"},
		{"single tilde strike", "~gone~", "~gone~"},
		{"three tildes are text", "a ~~~x~~~ b", "a ~~~x~~~ b"},
		{"mixed", "**Note:** use *this*, not ~~that~~.", "*Note:* use _this_, not ~that~."},
		{"intraword star", "un*frigging*believable", "un_frigging_believable"},
		{"dunder", "__init__.py", "*init*.py"},

		// Markers that are not emphasis.
		{"arithmetic", "2 * 3 * 4 = 24", "2 * 3 * 4 = 24"},
		{"snake case", "call snake_case_words and my_var_", "call snake_case_words and my_var_"},
		{"unclosed bold", "**unclosed and _also", "**unclosed and _also"},
		{"unclosed strike", "a ~~b", "a ~~b"},
		{"spaced stars", "a ** b ** c", "a ** b ** c"},
		{"escaped", `\*not\* \_it\_ \[x\] \\`, `*not* _it_ [x] \`},
		{"backslash before letter", `C:\path\to`, `C:\path\to`},
		{"bare url", "see https://example.com/a_b_c/*x*?q=1&r=2.",
			"see <https://example.com/a_b_c/*x*?q=1&r=2>."},
		{"url in emphasis", "_see https://x.com/a_b_", "_see <https://x.com/a_b>_"},
		{"url in parens", "(https://x.com/a_(b)) and (https://x.com/c)",
			"(<https://x.com/a_(b)>) and (<https://x.com/c>)"},
		{"url needs a host", "http:// and xhttps://x", "http:// and xhttps://x"},

		// Links.
		{"link", "[Go](https://go.dev)", "<https://go.dev|Go>"},
		{"link label escaped", "[a | b > c & d](https://x.io)", "<https://x.io|a ∣ b &gt; c &amp; d>"},
		{"link label formatted", "[**the** docs](https://x.io)", "<https://x.io|*the* docs>"},
		{"link url escaped", "[x](<https://x.io/a|b c>)", "<https://x.io/a%7Cb%20c|x>"},
		{"link url ampersand", "[q](https://x.io/?a=1&b=2)", "<https://x.io/?a=1&b=2|q>"},
		{"link url parens", "[Go](https://en.wikipedia.org/wiki/Go_(language))",
			"<https://en.wikipedia.org/wiki/Go_(language)|Go>"},
		{"link url underscores", "[x](https://x.io/a_b_c_d*e*)", "<https://x.io/a_b_c_d*e*|x>"},
		{"link title", `[x](https://x.io "The title")`, "<https://x.io|x>"},
		{"link label is url", "[https://x.io](https://x.io)", "<https://x.io>"},
		{"link empty label", "[](https://x.io)", "<https://x.io>"},
		{"link www", "[site](www.x.io)", "<http://www.x.io|site>"},
		{"link relative", "see [README](docs/README.md)", "see README"},
		{"link mailto", "[mail me](mailto:me@x.io)", "<mailto:me@x.io|mail me>"},
		{"link in emphasis", "*see [docs](https://x.io)*", "_see <https://x.io|docs>_"},
		{"not links", "[x] (y) [z] [a](b c)", "[x] (y) [z] [a](b c)"},
		{"autolink", "<https://x.io/a_b*c*>", "<https://x.io/a_b*c*>"},
		{"email autolink", "<me@x.io>", "<mailto:me@x.io|me@x.io>"},
		{"image", "![a cat](https://x.io/cat.png)", "<https://x.io/cat.png|a cat>"},
		{"image no alt", "![](https://x.io/cat.png)", "<https://x.io/cat.png>"},
		{"badge", "[![CI](https://x.io/b.svg)](https://x.io/ci)", "<https://x.io/ci|CI>"},

		// Headings.
		{"heading", "# Title", "*Title*"},
		{"heading levels", "## Two\n###### Six ###", "*Two*\n*Six*"},
		{"heading bold inside", "## The **best** way", "*The best way*"},
		{"heading italic", "### _Why_", "*_Why_*"},
		{"heading keeps hash", "# C#", "*C#*"},
		{"hashtag", "#hashtag", "#hashtag"},
		{"empty heading", "#\ntext", "text"},
		{"heading then text", "# T\ntext", "*T*\ntext"},

		// Lists.
		{"bullets", "- a\n* b\n+ c", "• a\n• b\n• c"},
		{"nested bullets", "- a\n  - b\n    - c\n- d", "• a\n    ◦ b\n        ◦ c\n• d"},
		{"ordered", "1. one\n2. two\n   - sub\n3. three", "1. one\n2. two\n    ◦ sub\n3. three"},
		{"ordered renumbered", "1. a\n1. b\n   1. c\n   1. d\n1. e", "1. a\n2. b\n    1. c\n    2. d\n3. e"},
		{"ordered start kept", "7) a\n7) b\n\ntext\n\n2. c", "7) a\n8) b\n\ntext\n\n2. c"},
		{"ordered across code", "1. a\n```\nx\n```\n1. b", "1. a\n```\nx\n```\n2. b"},
		{"tasks", "- [ ] todo\n- [x] done\n  - [X] nested", "☐ todo\n☑ done\n    ☑ nested"},
		{"ordered task", "1. [x] done", "1. ☑ done"},
		{"item content", "- **Bold:** `x` [y](https://y.io)", "• *Bold:* `x` <https://y.io|y>"},
		{"continuation", "- item\n  more\n  - sub\n    deeper\nafter", "• item\n  more\n    ◦ sub\n      deeper\nafter"},
		{"loose list", "- a\n\n  - b", "• a\n\n    ◦ b"},
		{"star italic is no item", "*not a list*", "_not a list_"},
		{"number is no item", "1.5 million", "1.5 million"},

		// Quotes and rules.
		{"quote", "> quote **b**\n> second", "> quote *b*\n> second"},
		{"quote paragraphs", "> a\n>\n> b", "> a\n>\n> b"},
		{"quote with list", "> - x\n> - y", "> • x\n> • y"},
		{"nested quote flattened", "> > deep", "> deep"},
		{"gt in text", "a > b", "a &gt; b"},
		{"rules", "a\n\n---\n***\n___\n- - -\n\nb", "a\n\n" + strings.Repeat(mdRule+"\n", 4) + "\nb"},

		// Code.
		{"fence", "```go\nx := a < b && **c** // _d_\n```", "```\nx := a &lt; b &amp;&amp; **c** // _d_\n```"},
		{"tilde fence", "~~~python\nprint('[x](y)')\n~~~", "```\nprint('[x](y)')\n```"},
		{"indented fence", "1. Run:\n   ```sh\n   make test\n     -v\n   ```\n2. Done",
			"1. Run:\n```\nmake test\n  -v\n```\n2. Done"},
		{"long fence keeps inner", "````md\n```\n````", "```\n`\u200b`\u200b`\n```"},
		{"tilde fence keeps backticks", "~~~\n```go\n~~~", "```\n`\u200b`\u200b`go\n```"},
		{"unclosed fence", "```\ncode", "```\ncode\n```"},
		{"blank lines in code", "```\na\n\n\n  b\n```", "```\na\n\n\n  b\n```"},
		{"slack token in code", "```\n<@U1> <!here>\n```", "```\n&lt;@U1&gt; &lt;!here&gt;\n```"},
		{"code span", "`a < b` and `**x**` and `<@U1>`", "`a &lt; b` and `**x**` and `&lt;@U1&gt;`"},
		{"double backtick span", "``x`y`` and `` `z` ``", "`xˋy` and `ˋzˋ`"},
		{"fence on one line", "```x```", "`x`"},
		{"unclosed span", "a `b and ``` c", "a `b and `\u200b`\u200b` c"},
		{"span hides emphasis", "*a `*` b*", "_a `*` b_"},
		{"span hides link", "`[x](https://x.io)`", "`[x](https://x.io)`"},

		// Tables.
		{"table", "| Name | Qty | Note |\n|:-----|----:|:----:|\n| **apple** | 3 | `red` |\n| kiwi | 12 | [x](https://x.io) |",
			"```\nName  | Qty |       Note\n------+-----+-----------------\napple |   3 |       red\nkiwi  |  12 | x (https://x.io)\n```"},
		{"table ragged", "a | b\n--|--\n1 |\n1 | 2 | 3\n\nafter", "```\na | b\n--+--\n1 |\n1 | 2\n```\n\nafter"},
		{"table ends without pipe", "a | b\n--|--\n1 | 2\ntext", "```\na | b\n--+--\n1 | 2\n```\ntext"},
		{"table pipes and breaks", "| k | v |\n|---|---|\n| a\\|b | x<br>y |", "```\nk   | v\n----+----\na|b | x y\n```"},
		{"table wide", "| w | n |\n|---|---|\n| 日本 | 1 |", "```\nw    | n\n-----+--\n日本 | 1\n```"},
		{"table escaped", "| op |\n|----|\n| a<b & c |", "```\nop\n-------\na&lt;b &amp; c\n```"},
		{"no delimiter row", "a | b\nc | d", "a | b\nc | d"},
		{"column count mismatch", "a | b\n|---|", "a | b\n|---|"},

		// Whitespace and bytes.
		{"blank lines collapse", "\n\na\n\n\n\nb\n\n", "a\n\nb"},
		{"trailing spaces", "a  \nb\t", "a\nb"},
		{"crlf", "a\r\nb\rc", "a\nb\nc"},
		{"invalid utf8", "a\xffb", "a\uFFFDb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := toMrkdwn(tt.in); got != tt.want {
				t.Errorf("toMrkdwn(%q)\n got: %q\nwant: %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestToMrkdwnGolden converts each testdata/mrkdwn/*.md and compares the
// result with the .golden file beside it; go test -update rewrites them.
func TestToMrkdwnGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "mrkdwn", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/mrkdwn/*.md")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			in, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			got := toMrkdwn(string(in)) + "\n"
			path := strings.TrimSuffix(file, ".md") + ".golden"
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
			}
		})
	}
}

// mrkdwnInvariants checks what holds for any output of toMrkdwn.
func mrkdwnInvariants(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("toMrkdwn(%q) = %q, not valid UTF-8", in, out)
	}
	fences := 0
	for line := range strings.SplitSeq(out, "\n") {
		if strings.HasPrefix(line, "```") {
			if line != "```" {
				t.Fatalf("toMrkdwn(%q) has fence line %q", in, line)
			}
			fences++
		}
	}
	if fences%2 != 0 {
		t.Fatalf("toMrkdwn(%q) = %q, with %d fences", in, out, fences)
	}
}

func FuzzToMrkdwn(f *testing.F) {
	for _, s := range []string{
		"", "**a** _b_ ***c*** ~~d~~ `e` [f](https://g.io) <https://h.io> ![i](https://j.io)",
		"# h\n- a\n  - b\n1. c\n- [ ] d\n> e\n---\n| a | b |\n|---|:-:|\n| 1 | 2 |",
		"```go\nx\n```\n~~~\n```\n~~~\n````\n", "2 * 3 * 4 snake_case_words https://x.io/a_b*c*",
		"*a **b* c** [[x]](y) [a`]`](b) \\`\\`\\` <@U1> <!here|x> <a@b.co>", "\xff\xfe`\x80`",
	} {
		f.Add(s)
	}
	if files, _ := filepath.Glob(filepath.Join("testdata", "mrkdwn", "*.md")); len(files) > 0 {
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(string(b))
			}
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		mrkdwnInvariants(t, in, toMrkdwn(in))
	})
}

package shell

import (
	"path"
	"strings"
)

// Denied reports the first of patterns that matches command, or ok = false
// when none does. It needs no executor, so the runtime can call it wherever
// a command is about to be asked about or run.
//
// Patterns are opencode-style wildcards matched against the whole string:
// `*` matches any run of characters (newlines included), `?` one character,
// everything else itself; a pattern ending in " *" also matches without the
// trailing part, so "git push *" refuses a bare "git push". A pattern is
// tried against the whole command and against every simple command inside
// it: the parts of `;`, `&`, `&&`, `||`, `|` and newline lists, the bodies of
// `$(...)`, backticks and `(...)` subshells, and the argument of `bash -c`,
// `sh -c` and `eval`. Each is also tried with whitespace collapsed, quotes
// removed, leading variable assignments and keywords (`if`, `then`, `do`,
// `!`, `{`...) dropped, wrappers such as `sudo`, `env`, `command`, `exec`,
// `nohup`, `time` and `nice` dropped, and the program's directory dropped
// (`/usr/bin/git push` is `git push`).
//
// This is a guard against mistakes, not a security boundary: a command can
// build another at run time (variables, base64, a script file written first)
// that no pattern sees. Isolation and approval are the boundary.
func Denied(patterns []string, command string) (pattern string, ok bool) {
	if len(patterns) == 0 {
		return "", false
	}
	cands := candidates(command)
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		for _, c := range cands {
			if Match(p, c) {
				return p, true
			}
		}
	}
	return "", false
}

// Match reports whether s matches the wildcard pattern p (see Denied).
func Match(p, s string) bool {
	if wildcard(p, s) {
		return true
	}
	if base, ok := strings.CutSuffix(p, " *"); ok {
		return wildcard(base, s)
	}
	return false
}

// wildcard matches s against p, where '*' matches any run of bytes and '?'
// one character. It backtracks only to the last star, so it runs in
// O(len(p)·len(s)) at worst.
func wildcard(p, s string) bool {
	pr, sr := []rune(p), []rune(s)
	pi, si := 0, 0
	star, mark := -1, 0
	for si < len(sr) {
		switch {
		case pi < len(pr) && (pr[pi] == '?' || pr[pi] == sr[si]):
			pi++
			si++
		case pi < len(pr) && pr[pi] == '*':
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(pr) && pr[pi] == '*' {
		pi++
	}
	return pi == len(pr)
}

// candidates returns the strings a pattern is tried against: the whole
// command and the normalised forms of each simple command in it.
func candidates(command string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	add(command)
	for _, seg := range simpleCommands(command, 0) {
		add(seg)
		for _, v := range normalise(seg, 0) {
			add(v)
		}
	}
	return out
}

// maxDepth bounds the recursion into substitutions and nested shells.
const maxDepth = 8

// simpleCommands splits a command line at unquoted list and pipeline
// operators and returns the pieces, plus the pieces of every command
// substitution, backtick and subshell inside it.
func simpleCommands(s string, depth int) []string {
	if depth > maxDepth {
		return nil
	}
	var out []string
	var cur strings.Builder
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			out = append(out, t)
		}
		cur.Reset()
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			cur.WriteByte(c)
			cur.WriteByte(s[i+1])
			i++
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				cur.WriteString(s[i:])
				i = len(s)
				continue
			}
			cur.WriteString(s[i : i+j+2])
			i += j + 1
		case c == '"':
			end := closeDouble(s, i+1)
			inner := s[i+1 : end]
			// Substitutions still run inside double quotes.
			out = append(out, substitutions(inner, depth)...)
			cur.WriteString(s[i:min(end+1, len(s))])
			i = end
		case c == '`':
			j := strings.IndexByte(s[i+1:], '`')
			if j < 0 {
				j = len(s) - i - 1
			}
			out = append(out, simpleCommands(s[i+1:i+1+j], depth+1)...)
			cur.WriteString(s[i:min(i+j+2, len(s))])
			i += j + 1
		case c == '(' && (i > 0 && strings.IndexByte("$<>", s[i-1]) >= 0 || strings.TrimSpace(cur.String()) == ""):
			end := closeParen(s, i+1)
			out = append(out, simpleCommands(s[i+1:end], depth+1)...)
			cur.WriteString(s[i:min(end+1, len(s))])
			i = end
		case c == '&' && (i > 0 && (s[i-1] == '>' || s[i-1] == '<') || i+1 < len(s) && s[i+1] == '>'):
			// A redirection such as 2>&1 or &>file, not a list operator.
			cur.WriteByte(c)
		case c == ';' || c == '&' || c == '|' || c == '\n':
			flush()
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	return out
}

// substitutions returns the simple commands of every $(...) and backtick
// inside the body of a double-quoted string.
func substitutions(s string, depth int) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\':
			i++
		case s[i] == '$' && i+1 < len(s) && s[i+1] == '(':
			end := closeParen(s, i+2)
			out = append(out, simpleCommands(s[i+2:end], depth+1)...)
			i = end
		case s[i] == '`':
			j := strings.IndexByte(s[i+1:], '`')
			if j < 0 {
				j = len(s) - i - 1
			}
			out = append(out, simpleCommands(s[i+1:i+1+j], depth+1)...)
			i += j + 1
		}
	}
	return out
}

// closeDouble returns the index of the double quote closing a string that
// starts at i, or len(s).
func closeDouble(s string, i int) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(s)
}

// closeParen returns the index of the parenthesis closing one opened just
// before i, skipping quoted text, or len(s).
func closeParen(s string, i int) int {
	depth := 1
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return len(s)
			}
			i += j + 1
		case '"':
			i = closeDouble(s, i+1)
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(s)
}

// keywords are shell words that may precede a command.
var keywords = map[string]bool{
	"!": true, "{": true, "(": true, "if": true, "then": true, "elif": true,
	"else": true, "do": true, "while": true, "until": true,
}

// wrappers run their arguments as a command.
var wrappers = map[string]bool{
	"sudo": true, "env": true, "command": true, "exec": true, "nohup": true,
	"time": true, "nice": true, "builtin": true, "doas": true, "stdbuf": true,
}

// normalise returns the forms of one simple command that patterns are tried
// against: its words joined by single spaces, then the same with keywords,
// assignments, wrappers (and their options) and the program's directory
// dropped, and the commands run by `sh -c` or `eval`.
func normalise(seg string, depth int) []string {
	w := words(seg)
	out := []string{strings.Join(w, " ")}
	for len(w) > 0 {
		switch {
		case keywords[w[0]] || isAssignment(w[0]):
			w = w[1:]
			continue
		case wrappers[path.Base(w[0])]:
			w = w[1:]
			for len(w) > 0 && (strings.HasPrefix(w[0], "-") || isAssignment(w[0])) {
				w = w[1:]
			}
			continue
		}
		break
	}
	if len(w) == 0 {
		return out
	}
	w[0] = path.Base(w[0])
	out = append(out, strings.Join(w, " "))
	if depth >= maxDepth {
		return out
	}
	switch w[0] {
	case "bash", "sh", "dash", "zsh", "ksh":
		for i := 1; i+1 < len(w); i++ {
			if strings.HasPrefix(w[i], "-") && strings.Contains(w[i], "c") {
				out = append(out, nested(w[i+1], depth)...)
				break
			}
		}
	case "eval":
		out = append(out, nested(strings.Join(w[1:], " "), depth)...)
	}
	return out
}

// nested returns the candidates of a command string run by another shell.
func nested(s string, depth int) []string {
	out := []string{strings.TrimSpace(s)}
	for _, seg := range simpleCommands(s, depth+1) {
		out = append(out, seg)
		out = append(out, normalise(seg, depth+1)...)
	}
	return out
}

// isAssignment reports whether w is NAME=value.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// words splits a simple command into words the way the shell does for
// quoting: unquoted blanks separate words; single quotes, double quotes and
// backslashes are removed. Expansions are left as written.
func words(s string) []string {
	var out []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\' && i+1 < len(s):
			cur.WriteByte(s[i+1])
			i++
			inWord = true
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				j = len(s) - i - 1
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			end := closeDouble(s, i+1)
			cur.WriteString(unescapeDouble(s[i+1 : end]))
			i = end
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

// unescapeDouble removes the backslashes that escape characters inside a
// double-quoted string.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

package script

import (
	"regexp"
	"strings"
)

// docstring is what a Python docstring says about a function.
type docstring struct {
	// Summary is the first paragraph, its lines joined by spaces.
	Summary string
	// Params maps parameter names to their descriptions.
	Params map[string]string
	// Returns describes the return value.
	Returns string
}

var (
	googleParams  = regexp.MustCompile(`(?i)^(args|arguments|parameters|params|keyword args|keyword arguments|other parameters):$`)
	googleReturns = regexp.MustCompile(`(?i)^(returns?|yields?):$`)
	googleEntry   = regexp.MustCompile(`^\*{0,2}([A-Za-z_][A-Za-z0-9_]*)\s*(\([^)]*\))?\s*:\s*(.*)$`)
	numpyRule     = regexp.MustCompile(`^-{3,}$`)
	numpyEntry    = regexp.MustCompile(`^\*{0,2}([A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*\*{0,2}[A-Za-z_][A-Za-z0-9_]*)*)\s*(?::.*)?$`)
	sphinxParam   = regexp.MustCompile(`^:param\s+(?:[^:]*\s)?\*{0,2}([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*)$`)
	sphinxReturns = regexp.MustCompile(`^:returns?:\s*(.*)$`)
	returnType    = regexp.MustCompile(`^[A-Za-z_][\w\[\]., |]*:\s+`)
)

// parseDocstring reads a docstring as inspect.getdoc returns it (common
// indentation removed): the first paragraph, then parameter and return
// sections in Google ("Args:"), NumPy ("Parameters" over a dashed rule) or
// Sphinx (":param x:") style.
func parseDocstring(doc string) docstring {
	d := docstring{Params: map[string]string{}}
	lines := strings.Split(strings.ReplaceAll(doc, "\r\n", "\n"), "\n")
	var summary []string
	i := 0
	for ; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if t == "" || isHeader(lines, i) || strings.HasPrefix(t, ":") {
			break
		}
		summary = append(summary, t)
	}
	d.Summary = strings.Join(summary, " ")
	for i < len(lines) {
		t := strings.TrimSpace(lines[i])
		switch {
		case googleParams.MatchString(t):
			i = d.googleParams(lines, i)
		case googleReturns.MatchString(t):
			var block []string
			block, i = indentedBlock(lines, i)
			d.Returns = returnType.ReplaceAllString(strings.Join(block, " "), "")
		case i+1 < len(lines) && numpyRule.MatchString(strings.TrimSpace(lines[i+1])):
			i = d.numpySection(lines, i)
		case sphinxParam.MatchString(t):
			m := sphinxParam.FindStringSubmatch(t)
			var more []string
			more, i = continuation(lines, i)
			d.Params[m[1]] = join(m[2], more)
		case sphinxReturns.MatchString(t):
			m := sphinxReturns.FindStringSubmatch(t)
			var more []string
			more, i = continuation(lines, i)
			d.Returns = join(m[1], more)
		default:
			i++
		}
	}
	return d
}

// isHeader reports whether line i starts a Google or NumPy section.
func isHeader(lines []string, i int) bool {
	t := strings.TrimSpace(lines[i])
	if googleParams.MatchString(t) || googleReturns.MatchString(t) {
		return true
	}
	return i+1 < len(lines) && numpyRule.MatchString(strings.TrimSpace(lines[i+1]))
}

// googleParams reads the entries of an "Args:" section starting at the
// header line i and returns the index after it.
func (d *docstring) googleParams(lines []string, i int) int {
	block, next := indentedLines(lines, i)
	entryIndent := -1
	name := ""
	for _, l := range block {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ind := indent(l)
		if entryIndent < 0 {
			entryIndent = ind
		}
		t := strings.TrimSpace(l)
		if ind <= entryIndent {
			if m := googleEntry.FindStringSubmatch(t); m != nil {
				name = m[1]
				d.Params[name] = m[3]
				continue
			}
		}
		if name != "" {
			d.Params[name] = join(d.Params[name], []string{t})
		}
	}
	return next
}

// numpySection reads a NumPy section whose title is line i (the rule is
// line i+1) and returns the index of the next section's title.
func (d *docstring) numpySection(lines []string, i int) int {
	title := strings.ToLower(strings.TrimSpace(lines[i]))
	base := indent(lines[i])
	i += 2
	var names []string
	var desc []string
	flush := func() {
		for _, n := range names {
			if title == "returns" || title == "yields" {
				continue
			}
			d.Params[n] = strings.Join(desc, " ")
		}
		if (title == "returns" || title == "yields") && len(desc) > 0 {
			d.Returns = join(d.Returns, desc)
		}
		names, desc = nil, nil
	}
	for ; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l)
		if i+1 < len(lines) && t != "" && numpyRule.MatchString(strings.TrimSpace(lines[i+1])) {
			break
		}
		if t == "" {
			continue
		}
		if indent(l) <= base {
			flush()
			if m := numpyEntry.FindStringSubmatch(t); m != nil && title != "returns" && title != "yields" {
				for _, n := range strings.Split(m[1], ",") {
					names = append(names, strings.TrimLeft(strings.TrimSpace(n), "*"))
				}
			} else if title == "returns" || title == "yields" {
				// "int" or "name : int" introduces the description below.
				names = []string{""}
			}
			continue
		}
		desc = append(desc, t)
	}
	flush()
	return i
}

// indentedBlock returns the trimmed non-blank lines indented under line i
// and the index after them.
func indentedBlock(lines []string, i int) ([]string, int) {
	block, next := indentedLines(lines, i)
	var out []string
	for _, l := range block {
		if t := strings.TrimSpace(l); t != "" {
			out = append(out, t)
		}
	}
	return out, next
}

// indentedLines returns the lines after line i that are blank or indented
// deeper than it, and the index of the first line that is not.
func indentedLines(lines []string, i int) ([]string, int) {
	base := indent(lines[i])
	j := i + 1
	for j < len(lines) && (strings.TrimSpace(lines[j]) == "" || indent(lines[j]) > base) {
		j++
	}
	return lines[i+1 : j], j
}

// continuation returns the trimmed lines indented under line i (a Sphinx
// field's further lines) and the index after them.
func continuation(lines []string, i int) ([]string, int) {
	var out []string
	base := indent(lines[i])
	j := i + 1
	for j < len(lines) && strings.TrimSpace(lines[j]) != "" && indent(lines[j]) > base {
		out = append(out, strings.TrimSpace(lines[j]))
		j++
	}
	return out, j
}

func indent(l string) int {
	return len(l) - len(strings.TrimLeft(l, " \t"))
}

// join appends more lines to s with single spaces.
func join(s string, more []string) string {
	parts := append([]string{s}, more...)
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " ")
}

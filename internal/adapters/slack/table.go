package slack

import (
	"regexp"
	"strings"
	"unicode"
)

// mdBreakRE matches an HTML line break, which a table cell may hold.
var mdBreakRE = regexp.MustCompile(`(?i)<br[ \t]*/?>`)

// table renders the GFM table whose header is lines[i] as a code block
// with aligned columns, and returns the index of its last row.
func (c *mdConverter) table(lines []string, i int, aligns []byte) int {
	rows := [][]string{mdCells(lines[i])}
	j := i + 2
	for ; j < len(lines) && strings.TrimSpace(lines[j]) != "" && strings.Contains(lines[j], "|"); j++ {
		rows = append(rows, mdCells(lines[j]))
	}
	widths := make([]int, len(aligns))
	for r, row := range rows {
		cells := make([]string, len(aligns))
		for k := range cells {
			if k < len(row) {
				cells[k] = mdInlineStyle(mdBreakRE.ReplaceAllString(row[k], " "), mdPlain)
			}
			widths[k] = max(widths[k], mdWidth(cells[k]))
		}
		rows[r] = cells
	}
	c.fence()
	for r, row := range rows {
		for k, cell := range row {
			row[k] = mdPad(cell, widths[k], aligns[k])
		}
		c.code(strings.TrimRight(strings.Join(row, " | "), " "))
		if r == 0 {
			rule := make([]string, len(widths))
			for k, w := range widths {
				rule[k] = strings.Repeat("-", w)
			}
			c.code(strings.Join(rule, "-+-"))
		}
	}
	c.fence()
	return j - 1
}

// mdDelimiterRow returns the column alignments ('l', 'c' or 'r') of a GFM
// table's delimiter row such as "| :-- | :-: |", or nil if line is not one.
func mdDelimiterRow(line string) []byte {
	if !strings.Contains(line, "|") {
		return nil
	}
	cells := mdCells(line)
	aligns := make([]byte, len(cells))
	for k, cell := range cells {
		d := strings.Trim(cell, ":")
		if d == "" || strings.Trim(d, "-") != "" || len(cell)-len(d) > 2 {
			return nil
		}
		left, right := strings.HasPrefix(cell, ":"), strings.HasSuffix(cell, ":")
		switch {
		case left && right:
			aligns[k] = 'c'
		case right:
			aligns[k] = 'r'
		default:
			aligns[k] = 'l'
		}
	}
	return aligns
}

// mdCells splits a table row at the pipes that are not escaped.
func mdCells(row string) []string {
	s := strings.TrimSpace(row)
	s = strings.TrimPrefix(s, "|")
	if strings.HasSuffix(s, "|") && !strings.HasSuffix(s, `\|`) {
		s = s[:len(s)-1]
	}
	var cells []string
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '|':
			b.WriteByte('|')
			i++
		case s[i] == '|':
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(s[i])
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}

// mdPad pads s to width columns, aligned as align says.
func mdPad(s string, width int, align byte) string {
	gap := width - mdWidth(s)
	switch align {
	case 'r':
		return strings.Repeat(" ", gap) + s
	case 'c':
		return strings.Repeat(" ", gap/2) + s + strings.Repeat(" ", gap-gap/2)
	}
	return s + strings.Repeat(" ", gap)
}

// mdWidth approximates how many columns s takes in a monospace font:
// wide East Asian characters and emoji take two, combining marks none.
func mdWidth(s string) int {
	w := 0
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		case r >= 0x1100 && r <= 0x115F, r >= 0x2E80 && r <= 0xA4CF, r >= 0xAC00 && r <= 0xD7A3,
			r >= 0xF900 && r <= 0xFAFF, r >= 0xFE30 && r <= 0xFE4F, r >= 0xFF00 && r <= 0xFF60,
			r >= 0xFFE0 && r <= 0xFFE6, r >= 0x1F300 && r <= 0x1F64F, r >= 0x1F900 && r <= 0x1F9FF,
			r >= 0x20000 && r <= 0x3FFFD:
			w += 2
		default:
			w++
		}
	}
	return w
}

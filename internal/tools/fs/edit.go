package fs

import (
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"slices"
	"strings"

	"github.com/threadbot/threadbot/internal/core/executor"
)

// maxDiffLines bounds the diff edit shows.
const maxDiffLines = 60

func editTool(o Options) *executor.Tool {
	return &executor.Tool{
		Name: "edit",
		Description: "Replace text in a file: old_string becomes new_string. old_string must identify one place in the file; copy it from read output without the line-number prefix. " +
			"When it does not match exactly, looser matching is tried (line-trimmed, block-anchor, whitespace-normalised, indentation-flexible, escape-normalised, trimmed-boundary, context-aware) and the result names the one that matched. " +
			"It fails when old_string is not found or matches several places; then add context or set replace_all. " +
			"An empty old_string creates a new file with new_string. The result shows a diff.",
		Parameters: schema(map[string]any{
			"path":        prop("string", "The file: relative to the sandbox, or absolute (outside the sandbox needs a person's approval).", "minLength", 1),
			"old_string":  prop("string", "The exact text to replace, with enough surrounding lines to be unique. Empty only to create a new file."),
			"new_string":  prop("string", "The text to put in its place (must differ from old_string)."),
			"replace_all": prop("boolean", "Replace every occurrence of the matched text instead of requiring a unique match (default false)."),
		}, "path", "old_string", "new_string"),
		Permission: executor.Permission{Execution: executor.AskAlways, Result: executor.Never},
		Run: func(ctx context.Context, call executor.Call, args map[string]any) (executor.Output, error) {
			return runEdit(ctx, call, args, o)
		},
	}
}

func runEdit(ctx context.Context, call executor.Call, args map[string]any, o Options) (executor.Output, error) {
	old, repl := str(args, "old_string", ""), str(args, "new_string", "")
	if old == repl {
		return executor.Output{}, errors.New("old_string and new_string are identical; there is nothing to change")
	}
	t, err := resolve(ctx, call, "edit", str(args, "path", ""))
	if err != nil {
		return executor.Output{}, err
	}
	call.Progress("Editing "+t.Show, map[string]any{"path": t.Show})
	content, exists, err := readText(t, o.MaxFileBytes)
	if err != nil {
		return executor.Output{}, err
	}
	if old == "" {
		if exists && content != "" {
			return executor.Output{}, fmt.Errorf("old_string is empty but %s already has content; give the text to replace, or use write to replace the whole file", t.Show)
		}
		if _, err := writeFile(t, []byte(repl)); err != nil {
			return executor.Output{}, err
		}
		return executor.Output{
			Data:  fmt.Sprintf("Created %s with %s.", t.Show, plural(countLines(repl), "line")),
			Title: "Created " + t.Show,
		}, nil
	}
	if !exists {
		return executor.Output{}, fmt.Errorf("%s does not exist; create it with write, or with edit and an empty old_string", t.Show)
	}
	// A CRLF file is edited as LF when old_string has no CR, then
	// converted back.
	work, crlf := content, false
	if n := strings.Count(content, "\r\n"); n > 0 && n == strings.Count(content, "\n") && !strings.Contains(old, "\r") {
		work, crlf = strings.ReplaceAll(content, "\r\n", "\n"), true
		repl = strings.ReplaceAll(repl, "\r\n", "\n")
	}
	res, err := replace(work, old, repl, flag(args, "replace_all"))
	if err != nil {
		return executor.Output{}, fmt.Errorf("%s: %w", t.Show, err)
	}
	out := res.content
	if crlf {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	if out == content {
		return executor.Output{}, fmt.Errorf("%s: the %s match already reads as new_string; the file is unchanged", t.Show, res.replacer)
	}
	if _, err := writeFile(t, []byte(out)); err != nil {
		return executor.Output{}, err
	}
	diff, added, removed := renderDiff(work, res)
	var b strings.Builder
	fmt.Fprintf(&b, "Edited %s: %s, replacer %s (+%d -%d lines).\n", t.Show, plural(len(res.spans), "replacement"), res.replacer, added, removed)
	if res.replacer != rExact && res.replacer != rMulti {
		fmt.Fprintf(&b, "Note: old_string did not match the file exactly; the %s replacer matched the lines marked -. Check that they are what you meant.\n", res.replacer)
	}
	if res.unescaped {
		b.WriteString("Note: old_string matched only with its escape sequences (\\n, \\t, ...) unescaped, so new_string was unescaped too.\n")
	}
	b.WriteString(diff)
	return executor.Output{
		Data:  strings.TrimRight(b.String(), "\n"),
		Title: fmt.Sprintf("Edited %s (%s)", t.Show, res.replacer),
	}, nil
}

// readText reads t whole for editing. A missing file is not an error
// (exists is false); a directory, a file over max bytes or a binary file
// is.
func readText(t target, max int64) (content string, exists bool, err error) {
	r, name, err := t.root(false)
	if err != nil {
		return "", false, err
	}
	defer r.Close()
	f, err := openFile(r, name)
	if errors.Is(err, iofs.ErrNotExist) {
		if e := t.explain("open", err); errors.Is(e, ErrChanged) {
			return "", false, e
		}
		return "", false, nil
	}
	if err != nil {
		return "", false, t.explain("open", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", false, t.explain("open", err)
	}
	switch {
	case fi.IsDir():
		return "", false, fmt.Errorf("%s is a directory; edit changes files", t.Show)
	case !fi.Mode().IsRegular():
		return "", false, fmt.Errorf("%s is not a regular file", t.Show)
	case fi.Size() > max:
		return "", false, fmt.Errorf("%s is %s, more than the %s edit handles; use write to replace it", t.Show, humanSize(fi.Size()), humanSize(max))
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return "", false, t.explain("read", err)
	}
	if bin, kind := binaryKind(b, true); bin {
		return "", false, fmt.Errorf("%s is a binary file (%s); edit changes only text files", t.Show, kind)
	}
	return string(b), true, nil
}

// renderDiff shows each replaced place as a hunk of whole lines, "-" for
// the old file and "+" for the new, and counts the lines.
func renderDiff(old string, res replacement) (diff string, added, removed int) {
	oldStarts := lineStarts(old)
	newStarts := lineStarts(res.content)
	var b strings.Builder
	shown, hidden := 0, 0
	shift := 0 // how far the new file has moved against the old one
	for _, s := range res.spans {
		ns, ne := s.start+shift, s.start+shift+len(s.text)
		shift += len(s.text) - (s.end - s.start)
		of, ol := lineIndex(oldStarts, s.start), lineIndex(oldStarts, s.end-1)
		nf, nl := lineIndex(newStarts, ns), lineIndex(newStarts, max(ns, ne-1))
		if ne == ns && (s.start == oldStarts[of]) && strings.HasSuffix(old[s.start:s.end], "\n") {
			nl = nf - 1 // whole lines deleted
		}
		oldLines := linesOf(old, oldStarts, of, ol)
		newLines := linesOf(res.content, newStarts, nf, nl)
		removed += len(oldLines)
		added += len(newLines)
		hunk := []string{fmt.Sprintf("@@ -%d,%d +%d,%d @@", of+1, len(oldLines), nf+1, len(newLines))}
		for _, l := range oldLines {
			hunk = append(hunk, "-"+cutLine(l, 200, 0))
		}
		for _, l := range newLines {
			hunk = append(hunk, "+"+cutLine(l, 200, 0))
		}
		for _, l := range hunk {
			if shown < maxDiffLines {
				b.WriteString(l)
				b.WriteByte('\n')
				shown++
			} else {
				hidden++
			}
		}
	}
	if hidden > 0 {
		fmt.Fprintf(&b, "… (%d more diff lines not shown)\n", hidden)
	}
	return b.String(), added, removed
}

func lineStarts(s string) []int {
	starts := []int{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineIndex returns the 0-based line holding byte off.
func lineIndex(starts []int, off int) int {
	i, found := slices.BinarySearch(starts, off)
	if !found {
		i--
	}
	return max(i, 0)
}

// linesOf returns lines first..last (0-based, inclusive) of s without
// their newlines and carriage returns.
func linesOf(s string, starts []int, first, last int) []string {
	var out []string
	for i := first; i <= last && i < len(starts); i++ {
		end := len(s)
		if i+1 < len(starts) {
			end = starts[i+1] - 1
		}
		out = append(out, strings.TrimSuffix(s[starts[i]:end], "\r"))
	}
	return out
}

package fs

import (
	"context"
	"fmt"
	iofs "io/fs"
	"strings"

	"github.com/threadbot/threadbot/internal/core/executor"
)

// listLimit is list's output limit in characters.
const listLimit = 30000

// maxListDepth is the deepest list goes.
const maxListDepth = 10

func listTool(o Options) *executor.Tool {
	return &executor.Tool{
		Name: "list",
		Description: fmt.Sprintf("List a directory: one entry per line, directories with a trailing /, files with their size, symbolic links with their target. "+
			"depth > 1 also lists subdirectories, indented. At most %d entries; skips what .gitignore files exclude, and .git.", o.ListMaxEntries),
		Parameters: schema(map[string]any{
			"path":  prop("string", "The directory to list (default \".\", the sandbox)."),
			"depth": prop("integer", fmt.Sprintf("How many levels to list (default 1, at most %d).", maxListDepth), "minimum", 1, "maximum", maxListDepth),
		}),
		Permission: executor.Permission{Execution: executor.Auto, Result: executor.Never},
		Limit:      listLimit,
		Run: func(ctx context.Context, call executor.Call, args map[string]any) (executor.Output, error) {
			return runList(ctx, call, args, o)
		},
	}
}

func runList(ctx context.Context, call executor.Call, args map[string]any, o Options) (executor.Output, error) {
	depth := min(max(num(args, "depth", 1), 1), maxListDepth)
	t, err := resolve(ctx, call, "list", dirArg(args))
	if err != nil {
		return executor.Output{}, err
	}
	call.Progress("Listing "+t.Show, map[string]any{"path": t.Show})
	r, start, err := dirRoot(t, "use read to see it")
	if err != nil {
		return executor.Output{}, err
	}
	defer r.Close()
	fsys := r.FS()
	w := &walker{fsys: fsys, max: o.MaxWalk}
	var lines []string
	total := 0
	err = w.walk(ctx, start, depth, func(e entry, d int) error {
		total++
		if len(lines) >= o.ListMaxEntries {
			return nil
		}
		indent := strings.Repeat("  ", d-1)
		name := e.d.Name()
		switch {
		case e.d.IsDir():
			lines = append(lines, indent+name+"/")
		case e.d.Type()&iofs.ModeSymlink != 0:
			dest, err := iofs.ReadLink(fsys, e.path)
			if err != nil {
				dest = "?"
			}
			lines = append(lines, indent+name+" -> "+dest)
		default:
			size := ""
			if info, err := e.d.Info(); err == nil {
				size = "  " + humanSize(info.Size())
			}
			lines = append(lines, indent+name+size)
		}
		return nil
	})
	if err != nil {
		return executor.Output{}, t.explain("list", err)
	}
	var b strings.Builder
	head := t.Show
	if !strings.HasSuffix(head, "/") {
		head += "/"
	}
	fmt.Fprintf(&b, "%s (%s)\n", head, plural(total, "entry"))
	if total == 0 {
		b.WriteString("(empty directory)\n")
	}
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if total > len(lines) {
		fmt.Fprintf(&b, "(%d more entries not shown; list a subdirectory)\n", total-len(lines))
	}
	stoppedNote(&b, w)
	return executor.Output{
		Data:  strings.TrimRight(b.String(), "\n"),
		Title: fmt.Sprintf("List %s: %s", t.Show, plural(total, "entry")),
	}, nil
}

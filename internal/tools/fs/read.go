package fs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/threadbot/threadbot/internal/core/executor"
)

// readLimit is read's output limit in characters: above the 50 KB cap, so
// that the cap (which tells the model where to continue) governs.
const readLimit = 60000

func readTool(o Options) *executor.Tool {
	return &executor.Tool{
		Name: "read",
		Description: fmt.Sprintf("Read a text file. Output has one numbered line per file line (number, tab, text). "+
			"Reads %d lines from offset (1-based) by default; lines longer than %d characters are cut; output stops at %d KB and says where to continue. "+
			"Binary files are refused; for a directory use list.",
			o.ReadMaxLines, o.ReadMaxLineChars, o.ReadMaxBytes>>10),
		Parameters: schema(map[string]any{
			"path":   prop("string", "The file: relative to the sandbox, or absolute (outside the sandbox needs a person's approval).", "minLength", 1),
			"offset": prop("integer", "First line to read, 1-based (default 1).", "minimum", 1),
			"limit":  prop("integer", fmt.Sprintf("How many lines to read (default and maximum %d).", o.ReadMaxLines), "minimum", 1),
		}, "path"),
		Permission: executor.Permission{Execution: executor.Auto, Result: executor.Never},
		Limit:      readLimit,
		Run: func(ctx context.Context, call executor.Call, args map[string]any) (executor.Output, error) {
			return runRead(ctx, call, args, o)
		},
	}
}

func runRead(ctx context.Context, call executor.Call, args map[string]any, o Options) (executor.Output, error) {
	offset := max(num(args, "offset", 1), 1)
	limit := min(max(num(args, "limit", o.ReadMaxLines), 1), o.ReadMaxLines)
	t, err := resolve(ctx, call, "read", str(args, "path", ""))
	if err != nil {
		return executor.Output{}, err
	}
	call.Progress("Reading "+t.Show, map[string]any{"path": t.Show})
	r, name, err := t.root(false)
	if err != nil {
		return executor.Output{}, err
	}
	defer r.Close()
	f, err := openFile(r, name)
	if err != nil {
		if errors.Is(err, iofs.ErrNotExist) {
			return executor.Output{}, notFound(t, r, name)
		}
		return executor.Output{}, t.explain("read", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return executor.Output{}, t.explain("read", err)
	}
	if fi.IsDir() {
		return executor.Output{}, fmt.Errorf("%s is a directory; use list to see its entries", t.Show)
	}
	if !fi.Mode().IsRegular() {
		return executor.Output{}, fmt.Errorf("%s is not a regular file (%s); read shows only text files", t.Show, fi.Mode().Type())
	}
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(sniffLen)
	if bin, kind := binaryKind(head, len(head) < sniffLen); bin {
		return executor.Output{}, fmt.Errorf("%s is a binary file (%s, %s); read shows only text files", t.Show, kind, humanSize(fi.Size()))
	}
	text, err := numberLines(br, offset, limit, o, fi.Size() <= countLimit)
	if err != nil {
		return executor.Output{}, t.explain("read", err)
	}
	if text.total == 0 && fi.Size() == 0 {
		return executor.Output{Data: fmt.Sprintf("(%s is empty.)", t.Show), Title: "Read " + t.Show}, nil
	}
	if text.total >= 0 && offset > text.total {
		return executor.Output{}, fmt.Errorf("offset %d is past the end of %s, which has %s", offset, t.Show, plural(text.total, "line"))
	}
	last := offset + text.shown - 1
	var b strings.Builder
	b.WriteString(text.body)
	switch {
	case text.total < 0:
		if text.shown == 0 {
			return executor.Output{}, fmt.Errorf("offset %d is past the end of %s", offset, t.Show)
		}
		fmt.Fprintf(&b, "\n(Lines %d-%d shown of a %s file whose lines were not counted. Use offset=%d to read more.)", offset, last, humanSize(fi.Size()), last+1)
		return executor.Output{Data: b.String(), Title: fmt.Sprintf("Read %s (lines %d-%d)", t.Show, offset, last)}, nil
	case text.capped:
		fmt.Fprintf(&b, "\n(Output capped at %d KB: lines %d-%d of %d shown. Use offset=%d to continue.)", o.ReadMaxBytes>>10, offset, last, text.total, last+1)
	case last < text.total:
		fmt.Fprintf(&b, "\n(Lines %d-%d of %d shown. Use offset=%d to read more.)", offset, last, text.total, last+1)
	default:
		fmt.Fprintf(&b, "\n(End of file: %s.)", plural(text.total, "line"))
	}
	return executor.Output{
		Data:  b.String(),
		Title: fmt.Sprintf("Read %s (lines %d-%d of %d)", t.Show, offset, last, text.total),
	}, nil
}

// openFile opens a file for reading without blocking on a FIFO.
func openFile(r *os.Root, name string) (*os.File, error) {
	return r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// countLimit is the largest file whose lines read counts to the end; a
// variable so that tests can lower it.
var countLimit int64 = 256 << 20

// numbered is the result of numberLines.
type numbered struct {
	body   string
	shown  int  // lines in body
	total  int  // lines in the file; -1 when not counted
	capped bool // body stopped at the byte cap
}

// numberLines renders lines offset..offset+limit-1 of br as "%6d\t%s" and,
// with count, counts the file's lines.
func numberLines(br *bufio.Reader, offset, limit int, o Options, count bool) (numbered, error) {
	var res numbered
	var b strings.Builder
	keep := o.ReadMaxLineChars * utf8.UTFMax
	n := 0
	for {
		line, extra, err := nextLine(br, keep)
		if err != nil && err != io.EOF {
			return res, err
		}
		if line == nil && err == io.EOF {
			res.total, res.body = n, b.String()
			return res, nil
		}
		n++
		if n >= offset {
			s := cutLine(strings.TrimSuffix(string(line), "\r"), o.ReadMaxLineChars, extra)
			entry := fmt.Sprintf("%6d\t%s\n", n, s)
			if b.Len()+len(entry) > o.ReadMaxBytes && res.shown > 0 {
				res.capped = true
			} else {
				b.WriteString(entry)
				res.shown++
			}
		}
		if err == io.EOF {
			res.total = n
			res.body = b.String()
			return res, nil
		}
		if res.capped || res.shown == limit {
			break
		}
	}
	res.body = b.String()
	if _, err := br.Peek(1); err == io.EOF {
		res.total = n
		return res, nil
	}
	if !count {
		res.total = -1
		return res, nil
	}
	rest, err := countRest(br)
	res.total = n + rest
	return res, err
}

// nextLine reads one line without its newline. It keeps at most keep bytes
// and returns how many characters it dropped beyond them. At the end of the
// input it returns io.EOF, with a nil line when nothing was left.
func nextLine(br *bufio.Reader, keep int) ([]byte, int, error) {
	var line []byte
	extra := 0
	for {
		frag, err := br.ReadSlice('\n')
		frag = bytes.TrimSuffix(frag, []byte("\n"))
		if room := keep - len(line); room > 0 {
			take := min(room, len(frag))
			line = append(line, frag[:take]...)
			frag = frag[take:]
		}
		extra += utf8.RuneCount(frag)
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil:
			if line == nil {
				line = []byte{}
			}
			return line, extra, nil
		case io.EOF:
			if line == nil && extra == 0 {
				return nil, 0, io.EOF
			}
			if line == nil {
				line = []byte{}
			}
			return line, extra, io.EOF
		default:
			return nil, 0, err
		}
	}
}

// countRest counts the lines left in br.
func countRest(br *bufio.Reader) (int, error) {
	buf := make([]byte, 64<<10)
	n, last := 0, byte('\n')
	for {
		k, err := br.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte("\n"))
			last = buf[k-1]
		}
		if err == io.EOF {
			if last != '\n' {
				n++
			}
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// notFound says that t does not exist and names up to three entries of its
// directory with similar names.
func notFound(t target, r interface{ FS() iofs.FS }, name string) error {
	dir, base := path.Split(name)
	if dir == "" {
		dir = "."
	}
	entries, _ := iofs.ReadDir(r.FS(), strings.TrimSuffix(dir, "/"))
	var near []string
	lb := strings.ToLower(base)
	for _, e := range entries {
		ln := strings.ToLower(e.Name())
		if strings.Contains(ln, lb) || strings.Contains(lb, ln) || levenshtein(ln, lb) <= 2 {
			near = append(near, strings.TrimSuffix(t.Show, base)+e.Name())
			if len(near) == 3 {
				break
			}
		}
	}
	if len(near) > 0 {
		return fmt.Errorf("%s does not exist; did you mean %s?", t.Show, strings.Join(near, ", "))
	}
	return fmt.Errorf("%s does not exist; use glob or list to find the file", t.Show)
}

package mcp

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
)

// stderrTail is how much of a server's stderr is kept for error messages.
const stderrTail = 1024

// stderrLog receives a stdio server's stderr: each line is logged at Debug
// (redacted), and the last stderrTail bytes are kept so that a server that
// fails to start can say why.
type stderrLog struct {
	lg     *slog.Logger
	redact *redactor

	mu   sync.Mutex
	line []byte
	tail []byte
}

func (w *stderrLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.tail = append(w.tail, p...)
	if over := len(w.tail) - stderrTail; over > 0 {
		w.tail = w.tail[over:]
	}
	w.line = append(w.line, p...)
	for {
		i := bytes.IndexByte(w.line, '\n')
		if i < 0 {
			break
		}
		w.emit(w.line[:i])
		w.line = w.line[i+1:]
	}
	if len(w.line) > stderrTail {
		w.emit(w.line)
		w.line = w.line[:0]
	}
	return len(p), nil
}

func (w *stderrLog) emit(line []byte) {
	if s := strings.TrimSpace(string(line)); s != "" {
		w.lg.Debug("mcp server stderr", "line", w.redact.text(s))
	}
}

// String returns the kept tail of stderr, redacted, starting at a line.
func (w *stderrLog) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.tail
	if len(t) == stderrTail {
		if i := bytes.IndexByte(t, '\n'); i >= 0 {
			t = t[i+1:]
		}
	}
	return w.redact.text(strings.TrimSpace(strings.ToValidUTF8(string(t), "")))
}

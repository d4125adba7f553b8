package shell

import (
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// captureLimit bounds the bytes of output kept in memory: half from the
// start, half from the end. The executor then cuts what the model sees to
// the tool's Limit and caches the kept output in a variable, so a runaway
// command cannot exhaust memory while a long log stays readable.
const captureLimit = 1 << 20

// progressEvery is the least time between two progress reports.
const progressEvery = time.Second

// capture keeps the head and the tail of a stream and reports progress.
// Write is called by one goroutine; String may be called by another.
type capture struct {
	mu    sync.Mutex
	max   int
	head  []byte
	tail  []byte // ring buffer of the last max/2 bytes once head is full
	pos   int    // next write position in tail once it is full
	total int64

	progress func(tail string)
	last     time.Time
}

func newCapture(max int, progress func(tail string)) *capture {
	return &capture{max: max, progress: progress}
}

// Write keeps p's bytes and never fails.
func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	n := len(p)
	c.total += int64(n)
	half := c.max / 2
	if room := half - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 {
		if len(c.tail) < c.max-half {
			k := min(c.max-half-len(c.tail), len(p))
			c.tail = append(c.tail, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(c.tail[c.pos:], p)
		c.pos = (c.pos + k) % len(c.tail)
		p = p[k:]
	}
	report := c.progress != nil && time.Since(c.last) >= progressEvery
	if report {
		c.last = time.Now()
	}
	c.mu.Unlock()
	if report {
		c.progress(lastChars(c.String(), 1000))
	}
	return n, nil
}

// String returns the kept output as valid UTF-8, with a marker where bytes
// were dropped.
func (c *capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	tail := append(append([]byte(nil), c.tail[c.pos:]...), c.tail[:c.pos]...)
	kept := int64(len(c.head) + len(tail))
	if kept == c.total {
		return strings.ToValidUTF8(string(c.head)+string(tail), "\uFFFD")
	}
	head := trimPartialEnd(c.head)
	tail = trimPartialStart(tail)
	dropped := c.total - int64(len(head)+len(tail))
	return strings.ToValidUTF8(string(head), "\uFFFD") +
		fmt.Sprintf("\n\n... [%d bytes of output dropped by the shell tool] ...\n\n", dropped) +
		strings.ToValidUTF8(string(tail), "\uFFFD")
}

// trimPartialEnd drops an incomplete UTF-8 sequence at the end of b.
func trimPartialEnd(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}

// trimPartialStart drops continuation bytes at the start of b.
func trimPartialStart(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && i < len(b); i++ {
		if utf8.RuneStart(b[i]) {
			return b[i:]
		}
	}
	return b
}

// lastChars returns at most n characters from the end of s.
func lastChars(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[len(r)-n:])
}

package shell

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCapture(t *testing.T) {
	c := newCapture(16, nil)
	c.Write([]byte("0123"))
	c.Write([]byte("4567"))
	if got := c.String(); got != "01234567" {
		t.Errorf("under the limit: %q", got)
	}
	c.Write([]byte("89abcdefghij"))
	c.Write([]byte("klmnopq"))
	want := "01234567" + "\n\n... [11 bytes of output dropped by the shell tool] ...\n\n" + "jklmnopq"
	if got := c.String(); got != want {
		t.Errorf("over the limit:\n got %q\nwant %q", got, want)
	}
}

func TestCaptureKeepsUTF8(t *testing.T) {
	c := newCapture(10, nil)
	// Each "é" is two bytes; the halves cut through them.
	c.Write([]byte(strings.Repeat("é", 20)))
	got := c.String()
	if !utf8.ValidString(got) || strings.Contains(got, "\uFFFD") {
		t.Errorf("cut inside a character: %q", got)
	}
	if !strings.HasPrefix(got, "éé") || !strings.HasSuffix(got, "\n\néé") {
		t.Errorf("head or tail lost: %q", got)
	}
}

func TestCaptureProgress(t *testing.T) {
	var seen []string
	c := newCapture(1<<10, func(tail string) { seen = append(seen, tail) })
	c.Write([]byte("first"))
	c.Write([]byte("second")) // within a second of the first report
	if len(seen) != 1 || seen[0] != "first" {
		t.Errorf("progress reports = %q, want one report of \"first\"", seen)
	}
}

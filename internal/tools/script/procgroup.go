package script

import (
	"context"
	"io"
	"os"
	"os/exec"

	"github.com/threadbot/threadbot/internal/procgroup"
)

// outputLimit bounds the bytes of stdout and of stderr kept from one call.
const outputLimit = 1 << 20

// runGroup runs cmd in its own process group (see procgroup.Run), feeding
// it stdin from an unlinked temporary file so that a script that never
// reads it cannot block anything.
func runGroup(ctx context.Context, cmd *exec.Cmd, stdin []byte, stdout, stderr io.Writer) error {
	in, err := os.CreateTemp("", "threadbot-script-stdin-*")
	if err != nil {
		return err
	}
	os.Remove(in.Name())
	defer in.Close()
	if _, err := in.Write(stdin); err != nil {
		return err
	}
	if _, err := in.Seek(0, io.SeekStart); err != nil {
		return err
	}
	return procgroup.Run(ctx, cmd, in, stdout, stderr)
}

// limitBuffer keeps the first max bytes written to it and counts the rest.
type limitBuffer struct {
	max     int
	buf     []byte
	dropped int64
}

// Write keeps what fits and never fails.
func (b *limitBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if room := b.max - len(b.buf); room > 0 {
		k := min(room, len(p))
		b.buf = append(b.buf, p[:k]...)
		p = p[k:]
	}
	b.dropped += int64(len(p))
	return n, nil
}

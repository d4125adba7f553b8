package script

import (
	"context"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// drainDelay is how long output is still read after the process group was
// killed; only a process that left the group can hold a pipe longer.
const drainDelay = 2 * time.Second

// outputLimit bounds the bytes of stdout and of stderr kept from one call.
const outputLimit = 1 << 20

// runGroup runs cmd as the leader of a new process group, feeding it stdin
// from an unlinked temporary file (so a script that never reads it cannot
// block anything) and copying stdout and stderr. The whole group is killed
// with SIGKILL when ctx ends and again when the leader exits, so no child
// outlives the call. It returns cmd.Wait's error.
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
	outR, outW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer outR.Close()
	errR, errW, err := os.Pipe()
	if err != nil {
		outW.Close()
		return err
	}
	defer errR.Close()

	// *os.File values go to the child as they are: Wait returns when the
	// process exits, not when every holder of a pipe has closed it.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, outW, errW
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		return err
	}
	pgid := cmd.Process.Pid

	copied := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(stdout, outR); copied <- struct{}{} }()
	go func() { _, _ = io.Copy(stderr, errR); copied <- struct{}{} }()
	exited := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-ctx.Done():
			killGroup(pgid)
		case <-exited:
		}
	}()

	err = cmd.Wait()
	close(exited)
	<-watched
	killGroup(pgid)
	deadline := time.After(drainDelay)
	for n := 0; n < 2; n++ {
		select {
		case <-copied:
		case <-deadline:
			outR.Close()
			errR.Close()
			<-copied
		}
	}
	return err
}

// killGroup sends SIGKILL to every process of the group pgid; a group that
// is already gone (ESRCH) needs nothing more.
func killGroup(pgid int) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
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

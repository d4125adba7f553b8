// Package procgroup runs a command as the leader of its own process group
// and kills the whole group when the context ends or the leader exits, so
// no child or grandchild outlives the call. The shell and script tools use
// it. It imports the standard library only.
package procgroup

import (
	"context"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// DrainDelay is how long output is still read after the group was killed;
// only a process that left the group (setsid) can hold a pipe longer, and
// its output is then abandoned.
const DrainDelay = 2 * time.Second

// Run starts cmd in a new process group with stdin (nil: none) and copies
// its stdout and stderr to the writers; when stdout and stderr are the same
// writer they share one pipe, so output keeps the order it came in. The
// group gets SIGKILL when ctx ends and again when the leader exits. It
// returns cmd.Wait's error.
func Run(ctx context.Context, cmd *exec.Cmd, stdin *os.File, stdout, stderr io.Writer) error {
	var readers []*os.File
	var writers []*os.File
	defer func() {
		for _, r := range readers {
			r.Close()
		}
	}()
	pipe := func() (*os.File, error) {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		readers, writers = append(readers, r), append(writers, w)
		return w, nil
	}
	outW, err := pipe()
	if err != nil {
		return err
	}
	errW := outW
	if stderr != stdout {
		if errW, err = pipe(); err != nil {
			closeAll(writers)
			return err
		}
	}
	// *os.File values go to the child as they are: Wait returns when the
	// process exits, not when every holder of a pipe has closed it.
	if stdin != nil {
		cmd.Stdin = stdin
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	err = cmd.Start()
	closeAll(writers)
	if err != nil {
		return err
	}
	pgid := cmd.Process.Pid

	dst := []io.Writer{stdout, stderr}
	copied := make(chan struct{}, len(readers))
	for i, r := range readers {
		go func() { _, _ = io.Copy(dst[i], r); copied <- struct{}{} }()
	}
	exited := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-ctx.Done():
			Kill(pgid)
		case <-exited:
		}
	}()

	err = cmd.Wait()
	close(exited)
	<-watched
	// Background children still hold the pipes; end them with the leader.
	Kill(pgid)
	deadline := time.After(DrainDelay)
	for range readers {
		select {
		case <-copied:
		case <-deadline:
			closeAll(readers)
			<-copied
		}
	}
	return err
}

// Kill sends SIGKILL to every process of the group pgid. A group that is
// already gone (ESRCH) needs nothing more.
func Kill(pgid int) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

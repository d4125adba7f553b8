package shell

import (
	"context"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// drainDelay is how long output is still read after the process group was
// killed. Only a process that left the group (setsid) can keep the pipe
// open longer; its output is then abandoned.
const drainDelay = 2 * time.Second

// runGroup runs cmd as the leader of a new process group with stdout and
// stderr joined into one pipe copied to out, in the order the output comes.
// The whole group is killed with SIGKILL when ctx ends and again when the
// leader exits, so neither children nor grandchildren (`sleep 1000 &`)
// outlive the command. It returns cmd.Wait's error.
func runGroup(ctx context.Context, cmd *exec.Cmd, out io.Writer) error {
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	defer pr.Close()
	// An *os.File is handed to the child as is, so Wait returns when the
	// process exits rather than when every holder of the pipe has closed it.
	cmd.Stdout, cmd.Stderr = pw, pw
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	err = cmd.Start()
	pw.Close()
	if err != nil {
		return err
	}
	pgid := cmd.Process.Pid

	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(out, pr)
	}()
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
	// Background children still hold the pipe; end them with the leader.
	killGroup(pgid)
	select {
	case <-copied:
	case <-time.After(drainDelay):
		pr.Close()
		<-copied
	}
	return err
}

// killGroup sends SIGKILL to every process of the group pgid. A group that
// is already gone (ESRCH) needs nothing more.
func killGroup(pgid int) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the server in its own process group, so that
// killGroup reaches the helpers it starts (npx, uvx and shells do).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the server's process group. It is safe to call when the
// process never started or has exited.
func killGroup(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	// The group id is the leader's pid; the group lives on while any member
	// does, even after the leader was reaped.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

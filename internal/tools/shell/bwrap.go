package shell

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Bubblewrap modes for Options.Bubblewrap.
const (
	// BwrapAuto uses bubblewrap when `bwrap` is on PATH (the default).
	BwrapAuto = "auto"
	// BwrapOn requires bubblewrap: every command fails while it is missing.
	BwrapOn = "on"
	// BwrapOff never uses bubblewrap: commands run unisolated.
	BwrapOff = "off"
)

// DefaultReadOnly are the host paths visible, read-only, inside the
// sandbox when Options.ReadOnly is nil: the system's programs, libraries and
// configuration. Paths that do not exist are skipped; symbolic links (such
// as /bin -> usr/bin) are recreated as links. Home directories, /var, /srv,
// /mnt and the bot's own files are not visible.
var DefaultReadOnly = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"}

// resolveBwrap returns the bwrap binary to use ("" for none) or an error
// naming the problem for a bad mode or a missing binary in mode "on".
func resolveBwrap(mode string, lookPath func(string) (string, error)) (string, error) {
	switch mode {
	case "", BwrapAuto:
		p, err := lookPath("bwrap")
		if err != nil {
			return "", nil
		}
		return p, nil
	case BwrapOn:
		p, err := lookPath("bwrap")
		if err != nil {
			return "", fmt.Errorf("the shell requires bubblewrap (bubblewrap: on) but bwrap is not installed; install the bubblewrap package or set bubblewrap: off to run commands unisolated")
		}
		return p, nil
	case BwrapOff:
		return "", nil
	}
	return "", fmt.Errorf("bubblewrap mode %q is not one of auto, on, off", mode)
}

// bwrapArgs returns the arguments that make bwrap run argv inside a sandbox
// in which only dir (bound at its own path, and the working directory) is
// writable and no other session's directory (dir's siblings) is visible:
// the read-only host paths, a fresh /proc, /dev and /tmp, new PID,
// IPC, UTS and cgroup namespaces, no network unless network is set, and a
// new session (no terminal injection). --die-with-parent ends the sandbox
// when bwrap is killed; since the command is PID 1's child in its own PID
// namespace, every process in it dies with it.
func bwrapArgs(dir string, readOnly []string, network bool, argv []string) []string {
	args := []string{
		"--die-with-parent", "--new-session",
		"--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--hostname", "threadbot",
	}
	if !network {
		args = append(args, "--unshare-net")
	}
	paths := readOnly
	if paths == nil {
		paths = DefaultReadOnly
	}
	if network {
		// /etc/resolv.conf often points here.
		paths = append(paths[:len(paths):len(paths)], "/run/systemd/resolve")
	}
	for _, p := range paths {
		p = filepath.Clean(p)
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if fi.Mode()&os.ModeSymlink != 0 && p != "/" {
			if target, err := os.Readlink(p); err == nil {
				args = append(args, "--symlink", target, p)
				continue
			}
		}
		args = append(args, "--ro-bind", p, p)
	}
	args = append(args,
		"--proc", "/proc",
		"--dev", "/dev",
		"--tmpfs", "/tmp",
		"--tmpfs", "/var/tmp",
	)
	// The parent is the workspace root, which holds the other sessions'
	// directories: hide them, in case a read-only path contains it.
	if parent := filepath.Dir(dir); parent != "/" && parent != "/tmp" {
		args = append(args, "--tmpfs", parent)
	}
	args = append(args,
		"--bind", dir, dir,
		"--chdir", dir,
		"--",
	)
	return append(args, argv...)
}

// sandboxedCommand returns the command that runs argv in dir, inside
// bubblewrap when bwrap is set.
func sandboxedCommand(bwrap, dir string, readOnly []string, network bool, argv []string) *exec.Cmd {
	if bwrap == "" {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		return cmd
	}
	cmd := exec.Command(bwrap, bwrapArgs(dir, readOnly, network, argv)...)
	cmd.Dir = dir
	return cmd
}

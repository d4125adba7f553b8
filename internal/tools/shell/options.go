package shell

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Defaults of Options.
const (
	// GroupName is the name of the tool group.
	GroupName = "shell"
	// DefaultTimeout is a command's time limit when the call gives none.
	DefaultTimeout = 2 * time.Minute
	// DefaultMaxTimeout is the largest time limit a call may ask for.
	DefaultMaxTimeout = 10 * time.Minute
	// DefaultLimit is how many characters of output the model sees.
	DefaultLimit = 30000
	// defaultPath is PATH when the bot has none.
	defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
)

// Sentinel errors; the tool's errors wrap them.
var (
	// ErrDenied marks a command refused by a deny pattern.
	ErrDenied = errors.New("command refused")
	// ErrTimeout marks a command killed at its time limit.
	ErrTimeout = errors.New("command timed out")
)

// Options configures the shell group. The zero value is usable: 2-minute
// default and 10-minute maximum time limits, 30,000 characters of output,
// bubblewrap when installed, no network inside it, no deny patterns.
type Options struct {
	// Timeout is the time limit of a call without timeout_ms; 0 means
	// DefaultTimeout.
	Timeout time.Duration
	// MaxTimeout is the largest timeout_ms a call may ask for; 0 means
	// DefaultMaxTimeout.
	MaxTimeout time.Duration
	// Limit is how many characters of output the model sees (head and
	// tail); 0 means DefaultLimit.
	Limit int
	// Bubblewrap is "auto" (or ""): isolate with bwrap when it is on PATH;
	// "on": require it (every command fails while it is missing); "off":
	// never isolate.
	Bubblewrap string
	// Network lets isolated commands use the network; without it they
	// run in an empty network namespace. Unisolated commands always have
	// the host's network.
	Network bool
	// ReadOnly lists the host paths visible read-only inside bubblewrap;
	// nil means DefaultReadOnly, []string{"/"} the whole filesystem.
	ReadOnly []string
	// Deny lists wildcard patterns of refused commands, such as
	// "git push *" or "rm -rf /*" (see Denied).
	Deny []string
	// Path is the PATH of commands; "" means the bot's own PATH.
	Path string
	// Env lists extra KEY=VALUE variables for every command. Nothing else
	// of the bot's environment is passed on.
	Env []string
}

// Check reports a configuration problem: an unknown bubblewrap mode,
// bubblewrap required but missing, or a default time limit above the
// maximum. Group accepts any Options; Check lets a caller fail at start.
func Check(opts Options) error {
	if _, err := resolveBwrap(opts.Bubblewrap, exec.LookPath); err != nil {
		return fmt.Errorf("shell: %w", err)
	}
	if opts.Timeout < 0 || opts.MaxTimeout < 0 {
		return errors.New("shell: time limits must not be negative")
	}
	if most := withDefaults(Options{MaxTimeout: opts.MaxTimeout}).MaxTimeout; opts.Timeout > most {
		return fmt.Errorf("shell: timeout %s is above the maximum %s", opts.Timeout, most)
	}
	for _, kv := range opts.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return fmt.Errorf("shell: env entry %q is not KEY=VALUE", kv)
		}
	}
	return nil
}

func withDefaults(o Options) Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxTimeout <= 0 {
		o.MaxTimeout = DefaultMaxTimeout
	}
	o.Timeout = min(o.Timeout, o.MaxTimeout)
	if o.Limit == 0 {
		o.Limit = DefaultLimit
	}
	if o.Path == "" {
		o.Path = os.Getenv("PATH")
	}
	if o.Path == "" {
		o.Path = defaultPath
	}
	return o
}

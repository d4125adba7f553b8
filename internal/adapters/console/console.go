// Package console is the terminal chat adapter: one thread on standard
// input and output, with the tool log printed as it happens, approvals as a
// prompt, and the commands /tools, /stop, /new, /help and /quit. It is what
// `threadbot` runs when no chat platform is configured. It imports
// core/session and core/executor only.
package console

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/core/session"
)

// Name is the platform name of the console.
const Name = "console"

// Options configures the console.
type Options struct {
	// User is the console user's id [the OS user is not consulted: "you"].
	User string
	// Thread names the first thread ["1"].
	Thread string
}

// Adapter is the console. Create it with New, register it with
// Manager.AddPlatform, then call Run.
type Adapter struct {
	lg   *slog.Logger
	in   io.Reader
	out  io.Writer
	user string

	mu      sync.Mutex
	n       int
	thread  string
	lines   map[session.Ref]string // tool-log lines shown so far, to print only changes
	pending []session.ApprovalPrompt
	m       *session.Manager
}

// New returns a console on in and out.
func New(lg *slog.Logger, in io.Reader, out io.Writer, opts Options) *Adapter {
	if lg == nil {
		lg = slog.New(slog.DiscardHandler)
	}
	if opts.User == "" {
		opts.User = "you"
	}
	if opts.Thread == "" {
		opts.Thread = "1"
	}
	return &Adapter{lg: lg, in: in, out: out, user: opts.User, thread: opts.Thread, lines: map[session.Ref]string{}}
}

// Name implements session.Platform.
func (a *Adapter) Name() string { return Name }

// Key returns the key of the console's current thread.
func (a *Adapter) Key() session.Key {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.keyLocked()
}

func (a *Adapter) keyLocked() session.Key {
	return session.Key{Platform: Name, Workspace: "local", Channel: "console", Thread: a.thread}
}

func (a *Adapter) printf(format string, args ...any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	fmt.Fprintf(a.out, format, args...)
}

func (a *Adapter) ref() session.Ref {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.n++
	return session.Ref(fmt.Sprint(a.n))
}

// Post implements session.Platform.
func (a *Adapter) Post(_ context.Context, _ session.Key, m session.Out) (session.Ref, error) {
	ref := a.ref()
	a.show(ref, m)
	return ref, nil
}

// Edit implements session.Platform.
func (a *Adapter) Edit(_ context.Context, _ session.Key, ref session.Ref, m session.Out) error {
	a.show(ref, m)
	return nil
}

// show prints what a person needs to see: answers and statuses when final,
// tool-log lines when they change.
func (a *Adapter) show(ref session.Ref, m session.Out) {
	switch m.Kind {
	case session.OutAnswer:
		if m.Final {
			a.printf("bot> %s\n", indent(m.Text, "     "))
		}
	case session.OutToolLog:
		a.mu.Lock()
		changed := a.lines[ref] != m.Text
		a.lines[ref] = m.Text
		a.mu.Unlock()
		if changed {
			a.printf("  %s\n", indent(m.Text, "  "))
		}
	case session.OutStatus:
		if m.Final {
			a.printf("  %s\n", m.Text)
		}
	default:
		a.printf("! %s\n", m.Text)
	}
}

// PostApproval implements session.Platform: it prints a prompt; the next
// input line answers it.
func (a *Adapter) PostApproval(_ context.Context, _ session.Key, p session.ApprovalPrompt) (session.Ref, error) {
	a.mu.Lock()
	a.pending = append(a.pending, p)
	a.mu.Unlock()
	a.prompt(p)
	return session.Ref("approval-" + p.ID), nil
}

func (a *Adapter) prompt(p session.ApprovalPrompt) {
	what := "run"
	switch p.Kind {
	case string(executor.KindResult):
		what = "show the model the result of"
	case string(executor.KindPermission):
		what = "allow"
	}
	msg := fmt.Sprintf("? Approve: %s `%s` %s", what, p.Tool, p.Args)
	if p.Title != "" && p.Kind == string(executor.KindPermission) {
		msg += "\n  " + p.Title
	}
	if p.Detail != "" {
		msg += "\n  " + indent(p.Detail, "  ")
	}
	a.printf("%s\n? [y]es / [a]lways in this thread / [n]o [reason]: ", msg)
}

// ResolveApproval implements session.Platform.
func (a *Adapter) ResolveApproval(_ context.Context, _ session.Key, _ session.Ref, p session.ApprovalPrompt, o session.Outcome) error {
	a.mu.Lock()
	for i, q := range a.pending {
		if q.ID == p.ID {
			a.pending = append(a.pending[:i], a.pending[i+1:]...)
			break
		}
	}
	a.mu.Unlock()
	switch {
	case o.Expired:
		a.printf("  ⌛ %s: approval expired (%s)\n", p.Tool, o.Reason)
	case o.Approved:
		a.printf("  ✔ %s approved by %s\n", p.Tool, o.By)
	default:
		reason := ""
		if o.Reason != "" {
			reason = ": " + o.Reason
		}
		by := o.By
		if by == "" {
			by = "the bot"
		}
		a.printf("  ✘ %s rejected by %s%s\n", p.Tool, by, reason)
	}
	return nil
}

// Upload implements session.Platform: the file is described, not dumped.
func (a *Adapter) Upload(_ context.Context, _ session.Key, f session.File) error {
	a.printf("  📎 %s (%d bytes)\n", f.Name, len(f.Data))
	return nil
}

// React implements session.Platform.
func (a *Adapter) React(context.Context, session.Key, session.Ref, string) error { return nil }

func indent(s, pad string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+pad)
}

const help = `Commands:
  /tools                      list tool groups and tools for this thread
  /tools enable|disable NAME  switch a group or tool on or off (this channel)
  /tools reload               re-read the custom script tools
  /stop                       stop the running turn
  /new                        start a new thread
  /quit                       leave (also Ctrl-D)
Anything else is a message to the bot.
`

// Run reads lines until EOF, /quit or ctx's end. Pending approvals from
// before a restart are shown first. At EOF it waits for running turns.
func (a *Adapter) Run(ctx context.Context, m *session.Manager) error {
	a.mu.Lock()
	a.m = m
	a.mu.Unlock()
	for _, p := range m.Recovered(Name) {
		a.mu.Lock()
		dup := false
		for _, q := range a.pending {
			dup = dup || q.ID == p.ID
		}
		if !dup {
			a.pending = append(a.pending, p)
		}
		a.mu.Unlock()
		if dup {
			continue
		}
		a.printf("(waiting from before the restart)\n")
		a.prompt(p)
	}
	lines := make(chan string)
	errc := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(a.in)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
		errc <- sc.Err()
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-errc:
			if err != nil {
				return fmt.Errorf("read input: %w", err)
			}
			return m.Drain(ctx)
		case line := <-lines:
			if quit := a.handle(ctx, m, strings.TrimSpace(line)); quit {
				return m.Drain(ctx)
			}
		}
	}
}

// handle acts on one input line; it reports whether to quit.
func (a *Adapter) handle(ctx context.Context, m *session.Manager, line string) bool {
	a.mu.Lock()
	var p *session.ApprovalPrompt
	if len(a.pending) > 0 {
		p = &a.pending[0]
	}
	a.mu.Unlock()
	if p != nil && !strings.HasPrefix(line, "/") {
		a.decide(ctx, m, *p, line)
		return false
	}
	key := a.Key()
	switch {
	case line == "":
		return false
	case line == "/quit" || line == "/exit":
		return true
	case line == "/help":
		a.printf("%s", help)
	case line == "/stop":
		if ok, err := m.Stop(key, a.user, true); err != nil || !ok {
			a.printf("  nothing is running\n")
		}
	case line == "/new":
		a.mu.Lock()
		a.n++
		a.thread = fmt.Sprint("t", a.n)
		a.mu.Unlock()
		a.printf("  (new thread)\n")
	case line == "/tools reload":
		if err := m.ReloadTools(a.user, true); err != nil {
			a.printf("  %v\n", err)
		} else {
			a.printf("  tools reloaded\n")
		}
	case line == "/tools":
		a.listTools(ctx, m, key)
	case strings.HasPrefix(line, "/tools "):
		f := strings.Fields(line)
		if len(f) != 3 || (f[1] != "enable" && f[1] != "disable") {
			a.printf("  usage: /tools enable|disable NAME\n")
			return false
		}
		kind, err := m.SetTool(ctx, key, session.ScopeChannel, f[2], f[1] == "enable", a.user, true)
		if err != nil {
			a.printf("  %v\n", err)
			return false
		}
		a.printf("  %s %s %sd for this channel (from the next message)\n", kind, f[2], f[1])
	case strings.HasPrefix(line, "/"):
		a.printf("  unknown command %s; try /help\n", strings.Fields(line)[0])
	default:
		if _, err := m.Handle(ctx, session.Inbound{Key: key, User: a.user, Text: line}); err != nil {
			a.printf("! %v\n", err)
		}
	}
	return false
}

func (a *Adapter) decide(ctx context.Context, m *session.Manager, p session.ApprovalPrompt, line string) {
	answer, reason, _ := strings.Cut(line, " ")
	var d executor.Decision
	switch strings.ToLower(answer) {
	case "y", "yes":
		d.Approved = true
	case "a", "always":
		d.Approved, d.Always = true, true
	case "n", "no":
		d.Reason = strings.TrimSpace(reason)
	default:
		a.printf("? please answer y, a or n [reason]: ")
		return
	}
	if err := m.Decide(ctx, p.ID, a.user, true, d); err != nil {
		a.printf("  %v\n", err)
		a.mu.Lock()
		if len(a.pending) > 0 && a.pending[0].ID == p.ID {
			a.pending = a.pending[1:]
		}
		a.mu.Unlock()
	}
}

func (a *Adapter) listTools(ctx context.Context, m *session.Manager, key session.Key) {
	groups, err := m.Tools(ctx, key)
	if err != nil {
		a.printf("  %v\n", err)
		return
	}
	var b strings.Builder
	for _, g := range groups {
		state := "on"
		if !g.Enabled {
			state = "off"
		}
		fmt.Fprintf(&b, "  %s [%s]\n", g.Name, state)
		for _, t := range g.Tools {
			ts := "on"
			if !t.Enabled {
				ts = "off"
			}
			fmt.Fprintf(&b, "    %-14s %-3s %s\n", t.Name, ts, t.Permission.Execution)
		}
	}
	a.printf("%s", b.String())
}

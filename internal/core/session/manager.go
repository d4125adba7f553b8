package session

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/threadbot/threadbot/internal/core/chain"
	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/core/llm"
	"github.com/threadbot/threadbot/internal/core/vars"
)

// History modes.
const (
	HistoryCompressed = "compressed"
	HistoryNative     = "native"
)

// ChannelSettings are the settings in force for a channel.
type ChannelSettings struct {
	SystemPrompt  string
	MaxRounds     int
	History       string // HistoryCompressed or HistoryNative
	EnabledGroups []string
}

// Options configures a Manager. Zero values get the defaults in brackets.
type Options struct {
	// Groups returns the tool groups every session registers (shared
	// values). It is called for each new executor, so a reload takes
	// effect for sessions loaded afterwards.
	Groups func() []*executor.Group
	// Reload re-reads reloadable tools (custom scripts); nil means there
	// is nothing to reload. See Manager.ReloadTools.
	Reload func() error
	// Channel returns the settings for a channel [a default prompt, 10
	// rounds, compressed history, every group enabled].
	Channel func(k Key) ChannelSettings
	// Policies override tools' permissions.
	Policies map[string]executor.Permission
	// Admins are user ids that may decide any approval and change tools.
	Admins []string
	// Request carries model parameters (model name, temperature).
	Request llm.Request
	// WorkspaceRoot holds one sandbox directory per session [./data/workspaces].
	WorkspaceRoot string
	// ApprovalTimeout is how long an approval waits [10m].
	ApprovalTimeout time.Duration
	// IdleTimeout is how long an idle session stays in memory [30m].
	IdleTimeout time.Duration
	// MaxConcurrentRequests bounds model requests in flight [8].
	MaxConcurrentRequests int
	// HistoryLimit is how many stored messages a turn sends [50].
	HistoryLimit int
	// EditInterval is the least time between two edits of a streamed
	// message [1s]; negative streams no intermediate edits.
	EditInterval time.Duration
	// Vars configures each session's variable store.
	Vars    vars.Options
	Metrics Metrics
	// Now is the clock [time.Now].
	Now func() time.Time
}

func (o *Options) setDefaults() {
	if o.Groups == nil {
		o.Groups = func() []*executor.Group { return nil }
	}
	if o.Channel == nil {
		o.Channel = func(Key) ChannelSettings { return ChannelSettings{} }
	}
	o.WorkspaceRoot = cmp.Or(o.WorkspaceRoot, filepath.Join("data", "workspaces"))
	o.ApprovalTimeout = cmp.Or(o.ApprovalTimeout, 10*time.Minute)
	o.IdleTimeout = cmp.Or(o.IdleTimeout, 30*time.Minute)
	o.MaxConcurrentRequests = cmp.Or(o.MaxConcurrentRequests, 8)
	o.HistoryLimit = cmp.Or(o.HistoryLimit, 50)
	o.EditInterval = cmp.Or(o.EditInterval, time.Second)
	if o.Metrics == nil {
		o.Metrics = noMetrics{}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Inbound is a message from a person, normalised by an adapter.
type Inbound struct {
	Key Key
	// EventID is the platform's id of the event; a redelivered event with
	// the same id never runs twice.
	EventID  string
	User     string
	UserName string
	Text     string
	// IsAdmin is set when the platform says the user is an admin.
	IsAdmin bool
	// Ref is the platform's reference of the person's message; when set,
	// a message that has to wait behind a running turn gets a 👀 reaction
	// so the person sees it arrived.
	Ref Ref
	// Files are attached to the message. Handle saves them in the thread's
	// sandbox under uploads/ and tells the model where they are; they are
	// not kept in the Inbound afterwards.
	Files []File
}

// Manager runs sessions.
type Manager struct {
	lg    *slog.Logger
	store Store
	model *limitedModel
	opts  Options

	mu        sync.Mutex
	sessions  map[string]*session
	platforms map[string]Platform
	inflight  map[string]bool    // platform/event ids queued or running
	waiters   map[string]*waiter // approval id -> live waiter
	recovered map[string]Pending // approval id -> pending from before a restart
	closed    bool
	wg        sync.WaitGroup
	shutdown  context.CancelCauseFunc
	base      context.Context
}

// New returns a Manager. Call AddPlatform for each adapter, then Recover,
// then feed it with Handle.
func New(lg *slog.Logger, store Store, model chain.Model, opts Options) *Manager {
	if lg == nil {
		lg = slog.New(slog.DiscardHandler)
	}
	opts.setDefaults()
	base, cancel := context.WithCancelCause(context.Background())
	return &Manager{
		lg:        lg,
		store:     store,
		model:     &limitedModel{m: model, sem: make(chan struct{}, opts.MaxConcurrentRequests), metrics: opts.Metrics},
		opts:      opts,
		sessions:  map[string]*session{},
		platforms: map[string]Platform{},
		inflight:  map[string]bool{},
		waiters:   map[string]*waiter{},
		recovered: map[string]Pending{},
		base:      base,
		shutdown:  cancel,
	}
}

// AddPlatform registers an adapter under its Name.
func (m *Manager) AddPlatform(p Platform) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.platforms[p.Name()] = p
}

func (m *Manager) platform(name string) (Platform, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.platforms[name]
	if !ok {
		return nil, fmt.Errorf("no platform %q registered", name)
	}
	return p, nil
}

// IsAdmin reports whether a user is a configured admin.
func (m *Manager) IsAdmin(user string) bool { return slices.Contains(m.opts.Admins, user) }

// Handle queues a message for its session and returns once it is queued.
// A message whose event was seen before (queued, running or stored) is
// dropped: Handle returns false, nil. A message with an event id is also
// stored in the inbox before Handle returns, so a crash or a restart does
// not lose it (see Recover).
func (m *Manager) Handle(ctx context.Context, in Inbound) (bool, error) {
	if in.EventID != "" {
		if ok, err := m.admit(in); !ok {
			return false, err
		}
		seen, err := m.store.EventSeen(ctx, in.Key.Platform, in.EventID)
		if err != nil || seen {
			m.doneEvent(in)
			if err != nil {
				return false, fmt.Errorf("check event %s: %w", in.EventID, err)
			}
			return false, nil
		}
	}
	stored := false
	if in.EventID != "" {
		first, err := m.store.AddInbound(ctx, in, m.opts.Now())
		switch {
		case err != nil:
			// The message is still answered; it just would not survive a
			// crash before its turn is stored.
			m.lg.Error("store inbound message", "platform", in.Key.Platform, "event", in.EventID, "err", err)
		case !first:
			// Stored before: a turn waiting for an approval since a
			// restart, or a report not yet made. It is not run again.
			m.doneEvent(in)
			return false, nil
		default:
			stored = true
		}
	}
	if len(in.Files) > 0 {
		// Saved once the message is known to be new, so a redelivery
		// never saves its files twice.
		in.Text = m.saveUploads(in.Key, in.Files, in.Text)
		in.Files = nil
		if stored {
			if err := m.store.SetInboundText(ctx, in.Key.Platform, in.EventID, in.Text); err != nil {
				m.lg.Error("store inbound message", "platform", in.Key.Platform, "event", in.EventID, "err", err)
			}
		}
	}
	behind, err := m.enqueue(in.Key, job{msg: &in})
	if err == nil && behind && in.Ref != "" {
		if p, perr := m.platform(in.Key.Platform); perr == nil {
			go func() {
				if err := p.React(context.WithoutCancel(ctx), in.Key, in.Ref, "eyes"); err != nil {
					m.lg.Debug("react to a queued message", "err", err)
				}
			}()
		}
	}
	return true, err
}

// admit marks an event in flight; false when it already is, or when the
// Manager is closed (ErrClosed).
func (m *Manager) admit(in Inbound) (bool, error) {
	ev := in.Key.Platform + "/" + in.EventID
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false, ErrClosed
	}
	if m.inflight[ev] {
		return false, nil
	}
	m.inflight[ev] = true
	return true, nil
}

func (m *Manager) doneEvent(in Inbound) {
	if in.EventID == "" {
		return
	}
	m.mu.Lock()
	delete(m.inflight, in.Key.Platform+"/"+in.EventID)
	m.mu.Unlock()
}

// enqueue adds a job to the session's queue, starts its worker, and
// reports whether the job waits behind a running one.
func (m *Manager) enqueue(k Key, j job) (behind bool, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false, ErrClosed
	}
	s := m.sessions[k.ID()]
	if s == nil {
		s = &session{key: k, id: k.ID()}
		m.sessions[s.id] = s
	}
	s.queue = append(s.queue, j)
	s.lastActive = m.opts.Now()
	if s.running {
		return true, nil
	}
	s.running = true
	m.wg.Add(1)
	go m.work(s)
	return false, nil
}

// work runs a session's queued jobs in order, one at a time.
func (m *Manager) work(s *session) {
	defer m.wg.Done()
	for {
		m.mu.Lock()
		if len(s.queue) == 0 {
			s.running = false
			s.lastActive = m.opts.Now()
			m.mu.Unlock()
			return
		}
		j := s.queue[0]
		s.queue = s.queue[1:]
		if m.base.Err() != nil {
			// Shutting down: a job that has not started stays stored (the
			// inbox, a decided approval) and runs after the restart.
			m.mu.Unlock()
			if j.msg != nil {
				m.doneEvent(*j.msg)
			}
			continue
		}
		ctx, cancel := context.WithCancelCause(m.base)
		s.cancel = cancel
		m.mu.Unlock()

		m.runJob(ctx, s, j)

		m.mu.Lock()
		s.cancel = nil
		m.mu.Unlock()
		cancel(nil)
	}
}

// Stop cancels the running turn of a thread. Only the user who started it
// or an admin may stop it (ErrNotAllowed). It reports whether a turn was
// running.
func (m *Manager) Stop(k Key, user string, isAdmin bool) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessions[k.ID()]
	if s == nil || s.cancel == nil {
		return false, nil
	}
	if user != s.requester && !isAdmin && !slices.Contains(m.opts.Admins, user) {
		return false, ErrNotAllowed
	}
	s.cancel(ErrStopped)
	return true, nil
}

// Running reports whether a thread has a turn running and how many
// messages wait behind it.
func (m *Manager) Running(k Key) (running bool, queued int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessions[k.ID()]
	if s == nil {
		return false, 0
	}
	return s.cancel != nil, len(s.queue)
}

// Loaded returns how many sessions are in memory.
func (m *Manager) Loaded() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}

// EvictIdle drops from memory the sessions idle since before now minus the
// idle timeout (no turn running, nothing queued); they come back from
// storage on their next message. It returns how many it dropped.
func (m *Manager) EvictIdle(now time.Time) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for id, s := range m.sessions {
		if !s.running && len(s.queue) == 0 && now.Sub(s.lastActive) >= m.opts.IdleTimeout {
			delete(m.sessions, id)
			n++
		}
	}
	return n
}

// RunJanitor evicts idle sessions periodically until ctx ends.
func (m *Manager) RunJanitor(ctx context.Context) {
	t := time.NewTicker(min(m.opts.IdleTimeout/2, time.Minute))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if n := m.EvictIdle(m.opts.Now()); n > 0 {
				m.lg.Debug("evicted idle sessions", "count", n)
			}
		}
	}
}

// Drain waits until no session has a turn running or queued, or for ctx.
func (m *Manager) Drain(ctx context.Context) error {
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for {
		m.mu.Lock()
		busy := false
		for _, s := range m.sessions {
			if s.running {
				busy = true
				break
			}
		}
		m.mu.Unlock()
		if !busy {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("drain: %w", context.Cause(ctx))
		case <-t.C:
		}
	}
}

// Quiesce begins a shutdown: running turns are cut as by Shutdown and no
// queued job starts any more, while Handle still accepts messages and
// stores them, to run after the restart. Call it as soon as the process is
// asked to stop, before the adapters hand over the messages they hold;
// then call Shutdown.
func (m *Manager) Quiesce() { m.shutdown(ErrShutdown) }

// Shutdown stops accepting messages, cancels running turns with
// ErrShutdown (a turn waiting for an approval stays stored and resumes
// after a restart) and waits for them, or for ctx.
func (m *Manager) Shutdown(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.shutdown(ErrShutdown)
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("shutdown: %w", context.Cause(ctx))
	}
}

// job is a unit of a session's queue: a message, or a resumed turn.
type job struct {
	msg    *Inbound
	resume *resumeJob
}

type resumeJob struct {
	pending  Pending
	decision executor.Decision
}

var errNoPlatform = errors.New("no platform")

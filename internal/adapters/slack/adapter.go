package slack

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	slackapi "github.com/slack-go/slack"

	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/core/session"
)

// Name is the platform name of Slack in session keys.
const Name = "slack"

// Options configures the adapter. Zero values get the defaults in brackets.
type Options struct {
	// BotToken is the bot user OAuth token ("xoxb-…"). Required.
	BotToken string
	// AppToken is the app-level token ("xapp-…") that selects Socket Mode.
	AppToken string
	// SigningSecret verifies HTTP-mode requests (Handler).
	SigningSecret string
	// APIURL is the Web API base [https://slack.com/api/]; a missing
	// trailing slash is added.
	APIURL string
	// Command is the slash command [/threadbot].
	Command string
	// AllowBots lets other bots' messages start turns.
	AllowBots bool
	// HTTPClient makes the Web API calls [a client with a 30s timeout].
	HTTPClient *http.Client
	// Limits are the calls per second allowed per method and channel
	// before Slack is asked [see defaultLimits]; a 429 always waits for
	// Retry-After whatever the limits say.
	Limits map[string]Limit
	// MaxAttempts is how often a rate-limited call is tried before it is
	// given up [8].
	MaxAttempts int
	// AdminCacheTTL is how long a users.info answer about admins is
	// trusted [5m].
	AdminCacheTTL time.Duration
	// MaxFileBytes is the largest attached file downloaded into a
	// thread's sandbox [10 MiB].
	MaxFileBytes int
	// DrainTimeout is how long, once Run's context ends, the handlers of
	// messages already taken may run before they are cancelled [15s].
	DrainTimeout time.Duration
	// Journal keeps each message's raw event from before it is
	// acknowledged until the runtime has taken it, so a crash in between
	// loses none: Run reads the kept ones again. Nil keeps nothing.
	Journal Journal
}

// Journal is durable storage for raw events, for one platform.
type Journal interface {
	Put(ctx context.Context, id string, payload []byte) error
	Delete(ctx context.Context, id string) error
	// All returns the kept events in the order they were put.
	All(ctx context.Context) (ids []string, payloads [][]byte, err error)
}

// Runtime is what the adapter needs from the session runtime;
// *session.Manager implements it.
type Runtime interface {
	Handle(ctx context.Context, in session.Inbound) (bool, error)
	DecideFrom(ctx context.Context, approvalID string, ref session.Ref, user string, isAdmin bool, d executor.Decision) error
	CanDecide(ctx context.Context, approvalID, user string, isAdmin bool) error
	Stop(k session.Key, user string, isAdmin bool) (bool, error)
	Known(ctx context.Context, k session.Key) (bool, error)
	Active(k session.Key) []session.Activity
	Tools(ctx context.Context, k session.Key) ([]executor.GroupInfo, error)
	SetTool(ctx context.Context, k session.Key, scope, name string, enabled bool, user string, isAdmin bool) (string, error)
	IsAdmin(user string) bool
}

var _ Runtime = (*session.Manager)(nil)

// identity is who the bot is, from auth.test.
type identity struct {
	UserID, BotID, TeamID, URL string
}

// Adapter is the Slack adapter. Create it with New, register it with the
// runtime (session.Manager.AddPlatform), then Connect and Run.
type Adapter struct {
	lg   *slog.Logger
	opts Options
	api  *slackapi.Client
	lim  *limiter

	mu      sync.Mutex
	rt      Runtime
	me      identity
	threads map[session.Key]bool // threads the bot takes part in
	handed  map[string]bool      // event ids of messages handled lately
	admins  map[string]adminEntry

	// Inbound messages wait in per-worker queues: the messages of one
	// thread always go to the same worker, so they reach the runtime in
	// order, while a slow message (a file download, a rate-limited call)
	// holds up only the threads that share its worker. Queueing never
	// blocks the socket reader or an HTTP request.
	qmu     sync.Mutex
	queues  [eventWorkers]*eventQueue
	queued  int  // messages in all queues
	closing bool // shutting down: no message is queued any more
}

// eventQueue is one worker's queue, guarded by Adapter.qmu.
type eventQueue struct {
	items []func(context.Context)
	ready chan struct{} // a wake-up for the worker, 1-buffered
}

// maxQueued bounds the messages waiting for the workers; past it Slack is
// asked to send them again later.
const maxQueued = 10_000

// eventWorkers is how many workers route inbound messages.
const eventWorkers = 8

// New returns an adapter; it contacts Slack only in Connect.
func New(lg *slog.Logger, opts Options) *Adapter {
	if lg == nil {
		lg = slog.New(slog.DiscardHandler)
	}
	lg = lg.With("platform", Name)
	opts.Command = cmp.Or(opts.Command, "/threadbot")
	opts.MaxAttempts = cmp.Or(opts.MaxAttempts, 8)
	opts.AdminCacheTTL = cmp.Or(opts.AdminCacheTTL, 5*time.Minute)
	opts.MaxFileBytes = cmp.Or(opts.MaxFileBytes, defaultMaxFileBytes)
	opts.DrainTimeout = cmp.Or(opts.DrainTimeout, 15*time.Second)
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	apiOpts := []slackapi.Option{slackapi.OptionHTTPClient(opts.HTTPClient), slackapi.OptionLog(slogLogger{lg})}
	if opts.APIURL != "" {
		if !strings.HasSuffix(opts.APIURL, "/") {
			opts.APIURL += "/"
		}
		apiOpts = append(apiOpts, slackapi.OptionAPIURL(opts.APIURL))
	}
	if opts.AppToken != "" {
		apiOpts = append(apiOpts, slackapi.OptionAppLevelToken(opts.AppToken))
	}
	a := &Adapter{
		lg:      lg,
		opts:    opts,
		api:     slackapi.New(opts.BotToken, apiOpts...),
		lim:     newLimiter(opts.Limits),
		threads: map[session.Key]bool{},
		handed:  map[string]bool{},
		admins:  map[string]adminEntry{},
	}
	for i := range a.queues {
		a.queues[i] = &eventQueue{ready: make(chan struct{}, 1)}
	}
	return a
}

// Name implements session.Platform.
func (a *Adapter) Name() string { return Name }

// SocketMode reports whether the adapter receives events over Socket Mode.
func (a *Adapter) SocketMode() bool { return a.opts.AppToken != "" }

// Connect checks the bot token with auth.test, learns the bot's identity
// and attaches the runtime. It returns an error naming what Slack refused.
func (a *Adapter) Connect(ctx context.Context, rt Runtime) error {
	if a.opts.BotToken == "" {
		return errors.New("slack: no bot token (set SLACK_BOT_TOKEN)")
	}
	var res *slackapi.AuthTestResponse
	err := a.call(ctx, "auth.test", "", func(ctx context.Context) error {
		var err error
		res, err = a.api.AuthTestContext(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("slack: auth.test with the bot token: %w", err)
	}
	a.mu.Lock()
	a.rt = rt
	a.me = identity{UserID: res.UserID, BotID: res.BotID, TeamID: res.TeamID, URL: res.URL}
	a.mu.Unlock()
	a.lg.Info("connected to Slack", "team", res.Team, "team_id", res.TeamID, "bot_user", res.UserID, "socket_mode", a.SocketMode())
	return nil
}

func (a *Adapter) runtime() Runtime {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.rt
}

func (a *Adapter) identity() identity {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.me
}

// Run processes events until ctx ends: in Socket Mode it also holds the
// connection (reconnecting as needed); in HTTP mode events come through
// Handler. It returns nil when ctx ends, or an error Slack will not
// recover from (a revoked app token).
//
// A message is acknowledged to Slack only once it is queued, and queued
// messages are always handed to the runtime (which stores them): when ctx
// ends, queueing stops (Slack gets 503 or no ack, and sends again later),
// the workers empty their queues, and handlers still running after
// Options.DrainTimeout are cancelled.
func (a *Adapter) Run(ctx context.Context) error {
	if a.runtime() == nil {
		return errors.New("slack: Run before Connect")
	}
	hctx, hcancel := context.WithCancel(context.WithoutCancel(ctx))
	defer hcancel()
	stop := a.startWorkers(hctx)
	a.replayJournal(ctx)
	defer func() {
		bound := time.AfterFunc(a.opts.DrainTimeout, hcancel)
		defer bound.Stop()
		stop()
	}()
	if !a.SocketMode() {
		<-ctx.Done()
		return nil
	}
	return a.runSocket(ctx)
}

// startWorkers starts a worker per queue, running handlers with ctx. The
// returned stop ends queueing (offer refuses from then on), lets the
// workers empty their queues, and waits for them.
func (a *Adapter) startWorkers(ctx context.Context) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for _, q := range a.queues {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.processEvents(ctx, q, done)
		}()
	}
	return func() {
		a.qmu.Lock()
		a.closing = true
		a.qmu.Unlock()
		close(done)
		wg.Wait()
	}
}

// processEvents runs one worker's message handlers one at a time, in the
// order Slack sent them. When done is closed no message is queued any
// more; it runs the ones left and returns.
func (a *Adapter) processEvents(ctx context.Context, q *eventQueue, done <-chan struct{}) {
	for {
		if f := a.next(q); f != nil {
			f(ctx)
			continue
		}
		select {
		case <-q.ready:
		case <-done:
			for f := a.next(q); f != nil; f = a.next(q) {
				f(ctx)
			}
			return
		}
	}
}

// offer queues a message handler on the worker of thread. It reports false
// when the adapter is shutting down or too many messages wait: the caller
// must then not acknowledge the message, so Slack sends it again.
func (a *Adapter) offer(thread string, f func(context.Context)) bool {
	a.qmu.Lock()
	defer a.qmu.Unlock()
	if a.closing || a.queued >= maxQueued {
		return false
	}
	q := a.queues[fnv32(thread)%eventWorkers]
	q.items = append(q.items, f)
	a.queued++
	select {
	case q.ready <- struct{}{}:
	default:
	}
	return true
}

// next takes the first handler of a queue, or nil.
func (a *Adapter) next(q *eventQueue) func(context.Context) {
	a.qmu.Lock()
	defer a.qmu.Unlock()
	if len(q.items) == 0 {
		return nil
	}
	f := q.items[0]
	q.items[0] = nil
	q.items = q.items[1:]
	a.queued--
	return f
}

// fnv32 is the FNV-1a hash of s.
func fnv32(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// slogLogger lets slack-go log through slog at debug level.
type slogLogger struct{ lg *slog.Logger }

func (l slogLogger) Output(_ int, s string) error {
	l.lg.Debug(strings.TrimSpace(s))
	return nil
}

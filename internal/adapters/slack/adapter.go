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
	current map[string]string    // channel+" "+thread -> ts of the message the turn answers
	handed  map[string]bool      // event ids handed to the runtime lately (route's goroutine only)
	admins  map[string]adminEntry

	events chan func(context.Context) // ordered inbound messages
}

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
	return &Adapter{
		lg:      lg,
		opts:    opts,
		api:     slackapi.New(opts.BotToken, apiOpts...),
		lim:     newLimiter(opts.Limits),
		threads: map[session.Key]bool{},
		current: map[string]string{},
		handed:  map[string]bool{},
		admins:  map[string]adminEntry{},
		events:  make(chan func(context.Context), 1024),
	}
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
func (a *Adapter) Run(ctx context.Context) error {
	if a.runtime() == nil {
		return errors.New("slack: Run before Connect")
	}
	go a.processEvents(ctx)
	if !a.SocketMode() {
		<-ctx.Done()
		return nil
	}
	return a.runSocket(ctx)
}

// processEvents runs queued message handlers one at a time, so messages
// reach the runtime in the order Slack sent them.
func (a *Adapter) processEvents(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case f := <-a.events:
			f(ctx)
		}
	}
}

// enqueue queues an inbound message handler; it blocks when the queue is
// full, which slows the acknowledgements rather than losing messages.
func (a *Adapter) enqueue(ctx context.Context, f func(context.Context)) {
	select {
	case a.events <- f:
	case <-ctx.Done():
	}
}

// slogLogger lets slack-go log through slog at debug level.
type slogLogger struct{ lg *slog.Logger }

func (l slogLogger) Output(_ int, s string) error {
	l.lg.Debug(strings.TrimSpace(s))
	return nil
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/threadbot/threadbot/config"
	"github.com/threadbot/threadbot/internal/adapters/console"
	slackadapter "github.com/threadbot/threadbot/internal/adapters/slack"
	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/core/session"
	"github.com/threadbot/threadbot/internal/core/vars"
	"github.com/threadbot/threadbot/internal/metrics"
	"github.com/threadbot/threadbot/internal/storage"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

const usage = `threadbot — an LLM assistant for Slack and Discord threads

Usage:
  threadbot [-config FILE] [command]

Commands:
  run (default)        run every adapter whose credentials are configured;
                       with none, the console
  console              chat in this terminal
  migrate              apply database migrations and exit
  tools                list tool groups and tools with their policies
  tools import FILE.py generate a custom tool descriptor from a Python module
  config               print the effective configuration (secrets masked)
  version              print the version

The configuration file defaults to $THREADBOT_CONFIG; without one the
defaults and environment variables apply (see config/threadbot.example.yaml).
`

// run is the whole program; main only wires the process to it.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("threadbot", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() { fmt.Fprint(stderr, usage) }
	cfgPath := fl.String("config", "", "configuration file")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	cmd, rest := "run", fl.Args()
	if len(rest) > 0 {
		cmd, rest = rest[0], rest[1:]
	}
	switch cmd {
	case "version":
		fmt.Fprintln(stdout, "threadbot", version)
		return nil
	case "help":
		fmt.Fprint(stdout, usage)
		return nil
	case "run", "console", "migrate", "tools", "config":
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
	path := *cfgPath
	if path == "" {
		path = config.PathFromEnv(getenv)
	}
	cfg, err := config.Load(path, getenv)
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	lg := newLogger(stderr, cfg)
	switch cmd {
	case "config":
		return cfg.Redacted().Encode(stdout)
	case "migrate":
		return migrate(ctx, cfg, stdout)
	case "tools":
		if len(rest) == 2 && rest[0] == "import" {
			return importTool(rest[1], stdout)
		}
		if len(rest) > 0 {
			return fmt.Errorf("usage: threadbot tools [import FILE.py]")
		}
		return listTools(ctx, lg, cfg, stdout)
	}
	return serve(ctx, lg, cfg, cmd == "console", stdin, stdout)
}

func migrate(ctx context.Context, cfg config.Config, stdout io.Writer) error {
	db, err := storage.Open(ctx, cfg.Storage.DB, storage.Options{NoMigrate: true})
	if err != nil {
		return err
	}
	defer db.Close()
	n, err := db.Migrate(ctx)
	if err != nil {
		return err
	}
	cur, _, err := db.Version(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: applied %d migrations; schema version %d\n", cfg.Storage.DB, n, cur)
	return nil
}

func listTools(ctx context.Context, lg *slog.Logger, cfg config.Config, stdout io.Writer) error {
	tg, err := buildTools(ctx, lg, cfg)
	if err != nil {
		return err
	}
	defer tg.Close()
	x := executor.New(lg, executor.Options{Vars: vars.New(vars.Options{})})
	for _, g := range tg.Groups() {
		if err := x.Register(g); err != nil {
			fmt.Fprintf(stdout, "%s: %v\n", g.Name, err)
		}
	}
	for tool, p := range policies(cfg) {
		_ = x.SetPermission(tool, p)
	}
	enabled := map[string]bool{}
	for _, g := range cfg.Tools.EnabledGroups {
		enabled[g] = true
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "GROUP\tTOOL\tEXECUTION\tRESULT\tDEFAULT")
	for _, g := range x.Groups() {
		state := "off"
		if enabled[g.Name] {
			state = "on"
		}
		for _, t := range g.Tools {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", g.Name, t.Name, t.Permission.Execution, t.Permission.Result, state)
		}
	}
	fmt.Fprintln(w, "(any)\tReadVar, ListVars\tauto\tnever\toffered whenever a group is on")
	return w.Flush()
}

func policies(cfg config.Config) map[string]executor.Permission {
	out := map[string]executor.Permission{}
	for tool, p := range cfg.Tools.Policies {
		out[tool] = executor.Permission{Execution: executor.ExecutionPolicy(p.Execution), Result: executor.ResultPolicy(p.Result)}
	}
	return out
}

// serve runs the bot until ctx ends (or, for the console, until its input
// ends).
func serve(ctx context.Context, lg *slog.Logger, cfg config.Config, consoleOnly bool, stdin io.Reader, stdout io.Writer) error {
	db, err := storage.Open(ctx, cfg.Storage.DB, storage.Options{Logger: lg})
	if err != nil {
		return fmt.Errorf("open storage %s: %w", cfg.Storage.DB, err)
	}
	defer db.Close()
	go prune(ctx, lg, db, cfg)

	tg, err := buildTools(ctx, lg, cfg)
	if err != nil {
		return err
	}
	defer tg.Close()

	met := metrics.New()
	mgr := session.New(lg, storage.ForSessions(db), newModel(lg, cfg), sessionOptions(cfg, tg, met))
	var plats platforms
	if !consoleOnly {
		if plats, err = startPlatforms(ctx, lg, cfg, mgr, tg, db); err != nil {
			return err
		}
	}
	var con *console.Adapter
	if consoleOnly || !plats.any() {
		con = console.New(lg, stdin, stdout, console.Options{User: "you"})
		mgr.AddPlatform(con)
	}
	if err := mgr.Recover(ctx); err != nil {
		return err
	}
	// On a signal, turns stop at once and nothing new starts, while the
	// adapters still hand over (and the runtime stores) what they hold.
	stopTurns := context.AfterFunc(ctx, mgr.Quiesce)
	defer stopTurns()
	janitorCtx, stopJanitor := context.WithCancel(ctx)
	defer stopJanitor()
	go mgr.RunJanitor(janitorCtx)

	stopHTTP, err := serveHTTP(ctx, lg, cfg, met, db, plats.http(ctx))
	if err != nil {
		return err
	}
	defer stopHTTP()

	if con != nil {
		banner(stdout, cfg, plats.notes)
		err = con.Run(ctx, mgr)
	} else {
		lg.Info("threadbot running", "version", version)
		err = plats.run(ctx)
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if serr := mgr.Shutdown(shutdownCtx); serr != nil {
		lg.Warn("shutdown", "err", serr)
	}
	return err
}

// platforms are the chat adapters that run, and how to wait for them.
type platforms struct {
	// notes are lines for the console banner about what is not running.
	notes []string
	// slack is the Slack adapter when configured.
	slack *slackadapter.Adapter
}

// startPlatforms connects the chat adapters whose credentials are set and
// registers them with the runtime and the chat tools. A platform that is
// configured but refuses to connect stops the start with its reason.
func startPlatforms(ctx context.Context, lg *slog.Logger, cfg config.Config, mgr *session.Manager, tg *toolGroups, db storage.Store) (platforms, error) {
	var p platforms
	if cfg.SlackEnabled() {
		a := slackadapter.New(lg, slackadapter.Options{
			BotToken:      cfg.Slack.BotToken,
			AppToken:      cfg.Slack.AppToken,
			SigningSecret: cfg.Slack.SigningSecret,
			APIURL:        cfg.Slack.APIURL,
			Command:       cfg.Slack.Command,
			AllowBots:     cfg.Slack.AllowBots,
			MaxFileBytes:  cfg.Slack.MaxFileMB << 20,
			Journal:       storage.JournalOf(db, slackadapter.Name),
		})
		mgr.AddPlatform(a)
		tg.chat.Register(slackadapter.Name, a)
		if err := a.Connect(ctx, mgr); err != nil {
			return p, err
		}
		p.slack = a
	} else {
		p.notes = append(p.notes, "Slack: not configured (set SLACK_BOT_TOKEN, and SLACK_APP_TOKEN for Socket Mode or SLACK_SIGNING_SECRET with THREADBOT_HTTP_ADDR for HTTP mode)")
	}
	if cfg.DiscordEnabled() {
		lg.Error("Discord credentials are set, but this build has no Discord adapter yet")
		p.notes = append(p.notes, "Discord: credentials set, but the Discord adapter is not in this build yet")
	} else {
		p.notes = append(p.notes, "Discord: not configured (set DISCORD_BOT_TOKEN)")
	}
	return p, nil
}

// any reports whether a chat platform runs.
func (p platforms) any() bool { return p.slack != nil }

// run runs the adapters until ctx ends or one fails for good.
func (p platforms) run(ctx context.Context) error {
	if p.slack == nil {
		<-ctx.Done()
		return nil
	}
	return p.slack.Run(ctx)
}

// http returns the adapters' HTTP endpoints (Slack's HTTP mode), or nil.
func (p platforms) http(ctx context.Context) http.Handler {
	if p.slack == nil || p.slack.SocketMode() {
		return nil
	}
	return p.slack.Handler(ctx)
}

func banner(w io.Writer, cfg config.Config, notes []string) {
	fmt.Fprintf(w, "threadbot %s — console. Type a message, or /help.\n", version)
	if cfg.ModelConfigured() {
		base := cfg.Model.BaseURL
		if base == "" {
			base = "api.openai.com"
		}
		fmt.Fprintf(w, "Model: %s at %s\n", cfg.Model.Name, base)
	} else {
		fmt.Fprintf(w, "Model: not configured. %s\n", strings.TrimSpace(cfg.MissingModelHelp()))
	}
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	fmt.Fprintf(w, "Database: %s\n\n", cfg.Storage.DB)
}

func sessionOptions(cfg config.Config, tg *toolGroups, met *metrics.Metrics) session.Options {
	req := sessionRequest(cfg)
	return session.Options{
		Groups: tg.Groups,
		Reload: tg.Reload,
		Channel: func(k session.Key) session.ChannelSettings {
			cs := cfg.Channel(k.Channel)
			return session.ChannelSettings{SystemPrompt: cs.SystemPrompt, MaxRounds: cs.MaxRounds, History: cs.History, EnabledGroups: cs.EnabledGroups}
		},
		Policies:              policies(cfg),
		Admins:                cfg.Bot.Admins,
		Request:               req,
		WorkspaceRoot:         cfg.Bot.WorkspaceRoot,
		ApprovalTimeout:       cfg.Bot.ApprovalTimeout,
		IdleTimeout:           cfg.Bot.SessionIdleTimeout,
		MaxConcurrentRequests: cfg.Model.MaxConcurrentRequests,
		Vars:                  vars.Options{Capacity: cfg.Vars.Capacity, MaxBytes: cfg.Vars.MaxBytes},
		Metrics:               met,
	}
}

// prune deletes old audit rows and event ids at start and daily.
func prune(ctx context.Context, lg *slog.Logger, db *storage.SQLite, cfg config.Config) {
	t := time.NewTicker(24 * time.Hour)
	defer t.Stop()
	for {
		a, e, err := db.Prune(ctx, time.Now(), cfg.Storage.AuditRetention, cfg.Storage.EventRetention)
		if err != nil && ctx.Err() == nil {
			lg.Warn("prune storage", "err", err)
		} else if a+e > 0 {
			lg.Info("pruned storage", "audit", a, "events", e)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// serveHTTP starts /healthz and /metrics on cfg.HTTP.Addr (if set).
// With Slack in HTTP mode it also serves /slack/events,
// /slack/interactivity and /slack/commands (chat).
func serveHTTP(ctx context.Context, lg *slog.Logger, cfg config.Config, met *metrics.Metrics, db *storage.SQLite, chat http.Handler) (func(), error) {
	if cfg.HTTP.Addr == "" {
		return func() {}, nil
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if _, _, err := db.Version(r.Context()); err != nil {
			http.Error(w, "storage unavailable", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.Handle("GET /metrics", met.Handler())
	if chat != nil {
		mux.Handle("/slack/", chat)
	}
	ln, err := net.Listen("tcp", cfg.HTTP.Addr)
	if err != nil {
		return nil, fmt.Errorf("http.addr %s: %w", cfg.HTTP.Addr, err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			lg.Error("http server", "err", err)
		}
	}()
	lg.Info("http server listening", "addr", ln.Addr().String())
	return func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}, nil
}

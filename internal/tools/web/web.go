package web

import (
	"context"
	"embed"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/threadbot/threadbot/internal/core/executor"
)

// Tool and group names.
const (
	GroupName   = "web"
	ToolFetch   = "fetch"
	ToolExtract = "extract"
	ToolSearch  = "search"
)

// Defaults for a zero Options.
const (
	DefaultTimeout      = 30 * time.Second
	DefaultMaxBytes     = 5 << 20
	DefaultMaxRedirects = 5
	DefaultUserAgent    = "Mozilla/5.0 (compatible; threadbot/1.0; +https://github.com/threadbot/threadbot)"
)

// Options configures the web group. The zero value is usable: no allow
// list, 30-second timeout, 5 MiB read limit, 5 redirects, the system
// resolver, fetch and extract ask-once with result approval, and no search
// tool.
type Options struct {
	// AllowHosts opens hosts that the guard would refuse: exact host names
	// or IP addresses ("wiki.corp.example", "10.1.2.3", "::1"), "*.domain"
	// for every subdomain of domain, each optionally with ":port" to open
	// that port only ("intranet:8080", "[fd00::1]:443").
	AllowHosts []string
	// Timeout bounds one fetch, redirects and reading the body included,
	// and one search request; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxBytes is the most bytes read from one response; the rest is
	// dropped with a note. 0 means DefaultMaxBytes.
	MaxBytes int64
	// MaxRedirects is the most redirects followed; 0 means
	// DefaultMaxRedirects and a negative value follows none.
	MaxRedirects int
	// UserAgent is sent with every request; "" means DefaultUserAgent.
	UserAgent string
	// LookupIP resolves a host name to its addresses; nil means the system
	// resolver. Tests use it to make a name resolve to any address without
	// DNS.
	LookupIP func(ctx context.Context, host string) ([]net.IP, error)
	// FetchPermission is the policy of fetch and extract; the zero value
	// means ask-once with result approval always.
	FetchPermission executor.Permission
	// SearchPermission is the policy of search; the zero value means auto.
	SearchPermission executor.Permission
	// Search configures the search provider; without one the group has no
	// search tool.
	Search SearchOptions
	// Logger receives refused destinations and provider failures (never
	// API keys); nil discards.
	Logger *slog.Logger
}

// SearchOptions selects and configures the search provider.
type SearchOptions struct {
	// Provider is ProviderSearXNG, ProviderTavily, ProviderBrave or ""
	// (no search tool unless Searcher is set).
	Provider string
	// URL is the SearXNG instance ("https://searx.example.org"); for
	// Tavily and Brave it overrides the API endpoint (for proxies and
	// tests), "" meaning the public one.
	URL string
	// APIKey is the Tavily or Brave key. It is sent only to the provider
	// and never logged or shown.
	APIKey string
	// Searcher, when set, is used instead of Provider.
	Searcher Searcher
}

//go:embed rules/*.md
var rulesFS embed.FS

func rule(name string) string {
	b, err := rulesFS.ReadFile("rules/" + name)
	if err != nil {
		panic(err) // embedded at build time
	}
	return strings.TrimSpace(string(b))
}

// Group returns the web group: fetch and extract, and search when a
// provider is configured (an unusable search configuration leaves search
// out; Options.Validate reports why). The tools keep no per-session state,
// so one group can be registered in every session's executor.
func Group(opts Options) *executor.Group {
	w := newTools(opts)
	tools := []*executor.Tool{w.fetchTool(), w.extractTool()}
	if w.searcher != nil {
		tools = append(tools, w.searchTool())
	}
	return &executor.Group{Name: GroupName, Tools: tools, RuleFunc: rules}
}

// rules builds the group's prompt from its enabled tools.
func rules(enabled []string) string {
	var parts []string
	if slices.Contains(enabled, ToolSearch) {
		parts = append(parts, rule("search.md"))
	}
	if slices.Contains(enabled, ToolFetch) || slices.Contains(enabled, ToolExtract) {
		parts = append(parts, rule("fetch.md"))
	}
	if len(parts) == 0 {
		return ""
	}
	parts = append(parts, rule("web.md"))
	return strings.Join(parts, "\n")
}

// tools holds what the web tools share: the guarded client, the search
// client and provider, and the settings.
type tools struct {
	lg        *slog.Logger
	opts      Options
	guard     *guard
	client    *http.Client // guarded: fetch and extract
	searcher  Searcher
	converter *markdown
}

func newTools(opts Options) *tools {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxRedirects == 0 {
		opts.MaxRedirects = DefaultMaxRedirects
	}
	if opts.MaxRedirects < 0 {
		opts.MaxRedirects = 0
	}
	if opts.UserAgent == "" {
		opts.UserAgent = DefaultUserAgent
	}
	if opts.FetchPermission == (executor.Permission{}) {
		opts.FetchPermission = executor.Permission{Execution: executor.AskOnce, Result: executor.Always}
	}
	if opts.SearchPermission == (executor.Permission{}) {
		opts.SearchPermission = executor.Permission{Execution: executor.Auto, Result: executor.Never}
	}
	lg := opts.Logger
	if lg == nil {
		lg = slog.New(slog.DiscardHandler)
	}
	g := newGuard(opts.AllowHosts, opts.LookupIP)
	w := &tools{
		lg:        lg,
		opts:      opts,
		guard:     g,
		client:    g.client(opts.MaxRedirects),
		converter: newMarkdown(),
	}
	s, err := newSearcher(opts.Search, &http.Client{Timeout: opts.Timeout})
	if err != nil {
		lg.Warn("web: no search tool", "err", err)
	}
	w.searcher = s
	return w
}

// Validate reports problems in opts that Group would otherwise work
// around silently: allow-list entries that are not host names, addresses
// or "*.domain" (optionally with a port), and a search configuration that
// names an unknown provider or lacks its URL or key.
func (o Options) Validate() error {
	var errs []error
	for _, h := range o.AllowHosts {
		if _, err := parseAllowEntry(h); err != nil {
			errs = append(errs, err)
		}
	}
	if _, err := newSearcher(o.Search, http.DefaultClient); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

package config

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// problem is one thing wrong with a configuration, at one key.
type problem struct {
	key string // such as "bot.history" or "tools.mcp[1].url"
	msg string
}

func (p problem) Error() string { return p.key + ": " + p.msg }

// Validate reports every problem in c, each as "key: what is wrong", joined
// with errors.Join; nil means c can be used as it is.
func (c Config) Validate() error {
	ps := c.problems()
	errs := make([]error, len(ps))
	for i, p := range ps {
		errs[i] = p
	}
	return errors.Join(errs...)
}

// builtinGroups are the tool groups threadbot ships (internal/tools); an
// MCP server may not take their names.
var builtinGroups = []string{"basic", "chat", "fs", "mcp", "script", "shell", "vars", "web"}

var (
	mcpName   = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)
	snowflake = regexp.MustCompile(`^[0-9]{1,20}$`)
)

func (c Config) problems() []problem {
	var v validator

	m := c.Model
	v.url("model.base_url", m.BaseURL)
	v.nonEmpty("model.model", m.Name)
	v.positive("model.request_timeout", m.RequestTimeout)
	v.between("model.max_retries", m.MaxRetries, 0, 10)
	if m.Temperature != nil && (*m.Temperature < 0 || *m.Temperature > 2) {
		v.add("model.temperature", "must be between 0 and 2, got %g", *m.Temperature)
	}
	v.between("model.max_concurrent_requests", m.MaxConcurrentRequests, 1, 1000)

	b := c.Bot
	for i, id := range b.Admins {
		v.word(fmt.Sprintf("bot.admins[%d]", i), id)
	}
	v.between("bot.max_rounds", b.MaxRounds, 1, 100)
	v.oneOf("bot.history", b.History, HistoryCompressed, HistoryNative)
	v.positive("bot.approval_timeout", b.ApprovalTimeout)
	v.positive("bot.session_idle_timeout", b.SessionIdleTimeout)
	v.nonEmpty("bot.workspace_root", b.WorkspaceRoot)

	if c.Vars.Capacity < 1 {
		v.add("vars.capacity", "must be at least 1, got %d", c.Vars.Capacity)
	}
	if c.Vars.MaxBytes < 1 {
		v.add("vars.max_bytes", "must be at least 1, got %d", c.Vars.MaxBytes)
	}

	v.nonEmpty("storage.db", c.Storage.DB)
	v.notNegative("storage.audit_retention", c.Storage.AuditRetention)
	v.notNegative("storage.event_retention", c.Storage.EventRetention)

	if a := c.HTTP.Addr; a != "" {
		_, port, err := net.SplitHostPort(a)
		if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 0 || n > 65535 {
			v.add("http.addr", `must be host:port such as ":8080" or "127.0.0.1:8080", got %q`, a)
		}
	}

	v.oneOf("log.level", strings.ToLower(c.Log.Level), "debug", "info", "warn", "error")
	v.oneOf("log.format", c.Log.Format, "text", "json")

	c.validateSlack(&v)
	c.validateDiscord(&v)
	c.validateTools(&v)
	c.validateChannels(&v)
	return v.problems
}

func (c Config) validateSlack(v *validator) {
	s := c.Slack
	v.between("slack.max_file_mb", s.MaxFileMB, 1, 1024)
	switch {
	case s.BotToken == "" && (s.AppToken != "" || s.SigningSecret != ""):
		v.add("slack.bot_token", "is required when app_token or signing_secret is set")
	case s.BotToken != "" && s.AppToken == "" && s.SigningSecret == "":
		v.add("slack", "app_token (SLACK_APP_TOKEN, Socket Mode) or signing_secret (SLACK_SIGNING_SECRET, HTTP mode) is required when bot_token is set")
	}
	if strings.HasPrefix(s.BotToken, "xapp-") {
		v.add("slack.bot_token", `holds an app-level token ("xapp-…"); it belongs in app_token, and bot_token takes the bot token ("xoxb-…")`)
	}
	if strings.HasPrefix(s.AppToken, "xoxb-") {
		v.add("slack.app_token", `holds a bot token ("xoxb-…"); it belongs in bot_token, and app_token takes the app-level token ("xapp-…")`)
	}
	if s.SigningSecret != "" && s.AppToken == "" && c.HTTP.Addr == "" {
		v.add("slack.signing_secret", "HTTP mode needs http.addr (THREADBOT_HTTP_ADDR) so Slack can reach /slack/events")
	}
	v.url("slack.api_url", s.APIURL)
	if cmd := s.Command; !strings.HasPrefix(cmd, "/") || len(cmd) < 2 || len(cmd) > 32 || strings.ContainsFunc(cmd, isSpace) {
		v.add("slack.command", `must be "/" and a name without spaces, at most 32 characters, got %q`, cmd)
	}
}

func (c Config) validateDiscord(v *validator) {
	d := c.Discord
	if v.url("discord.api_url", d.APIURL) {
		if u, _ := url.Parse(d.APIURL); (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			v.add("discord.api_url", `must be an origin such as "https://discord.com", without a path, got %q`, d.APIURL)
		}
	}
	if d.ApplicationID != "" && !snowflake.MatchString(d.ApplicationID) {
		v.add("discord.application_id", "must be a numeric id, got %q", d.ApplicationID)
	}
}

func (c Config) validateTools(v *validator) {
	t := c.Tools
	v.groups("tools.enabled_groups", t.EnabledGroups, t.Shell.Enabled)

	for _, name := range sortedKeys(t.Policies) {
		key := "tools.policies." + name
		p := t.Policies[name]
		if strings.TrimSpace(name) == "" {
			v.add("tools.policies", "tool names must not be empty")
		}
		if p.Execution != "" {
			v.oneOf(key+".execution", p.Execution, "auto", "ask-once", "ask-always")
		}
		if p.Result != "" {
			v.oneOf(key+".result", p.Result, "never", "on-error", "always")
		}
	}

	sh := t.Shell
	v.oneOf("tools.shell.bubblewrap", sh.Bubblewrap, BubblewrapAuto, BubblewrapOn, BubblewrapOff)
	v.positive("tools.shell.timeout", sh.Timeout)
	v.positive("tools.shell.max_timeout", sh.MaxTimeout)
	if sh.Timeout > sh.MaxTimeout && sh.MaxTimeout > 0 {
		v.add("tools.shell.timeout", "must not exceed tools.shell.max_timeout (%s), got %s", sh.MaxTimeout, sh.Timeout)
	}
	for i, p := range sh.Deny {
		v.nonEmpty(fmt.Sprintf("tools.shell.deny[%d]", i), strings.TrimSpace(p))
	}

	w := t.Web
	for i, h := range w.AllowHosts {
		if h == "" || strings.ContainsAny(h, "/?#@") || strings.ContainsFunc(h, isSpace) {
			v.add(fmt.Sprintf("tools.web.allow_hosts[%d]", i), `must be a host name, "*.domain" or IP address, optionally with ":port", got %q`, h)
		}
	}
	if w.MaxBytes < 1 {
		v.add("tools.web.max_bytes", "must be at least 1, got %d", w.MaxBytes)
	}
	v.positive("tools.web.timeout", w.Timeout)
	s := w.Search
	v.oneOf("tools.web.search.provider", s.Provider, "", SearchSearXNG, SearchTavily, SearchBrave)
	v.url("tools.web.search.url", s.URL)
	switch s.Provider {
	case "":
		if s.URL != "" || s.APIKey != "" {
			v.add("tools.web.search.provider", "is required when url or api_key is set")
		}
	case SearchSearXNG:
		if s.URL == "" {
			v.add("tools.web.search.url", "is required for provider %q (the SearXNG instance)", s.Provider)
		}
	case SearchTavily, SearchBrave:
		if s.APIKey == "" {
			v.add("tools.web.search.api_key", "is required for provider %q", s.Provider)
		}
	}

	v.positive("tools.scripts.timeout", t.Scripts.Timeout)

	seen := make(map[string]int)
	for i, srv := range t.MCP {
		key := fmt.Sprintf("tools.mcp[%d]", i)
		switch {
		case !mcpName.MatchString(srv.Name):
			v.add(key+".name", "must be 1 to 32 letters, digits, '_' or '-', got %q", srv.Name)
		case slices.Contains(builtinGroups, srv.Name):
			v.add(key+".name", "%q is the name of a built-in tool group", srv.Name)
		default:
			if j, dup := seen[srv.Name]; dup {
				v.add(key+".name", "%q is already the name of tools.mcp[%d]", srv.Name, j)
			} else {
				seen[srv.Name] = i
			}
		}
		hasCmd, hasURL := len(srv.Command) > 0, srv.URL != ""
		if hasCmd == hasURL {
			v.add(key, "needs exactly one of command (stdio) or url (streamable HTTP)")
		}
		if hasCmd && srv.Command[0] == "" {
			v.add(key+".command", "the first item must name the program")
		}
		v.url(key+".url", srv.URL)
		if len(srv.Env) > 0 && !hasCmd {
			v.add(key+".env", "only applies to a stdio server (command)")
		}
		if len(srv.Headers) > 0 && !hasURL {
			v.add(key+".headers", "only applies to an HTTP server (url)")
		}
	}
}

func (c Config) validateChannels(v *validator) {
	for _, id := range sortedKeys(c.Channels) {
		o := c.Channels[id]
		key := "channels." + id
		if strings.TrimSpace(id) == "" {
			v.add("channels", "channel ids must not be empty")
		}
		if o.MaxRounds != 0 {
			v.between(key+".max_rounds", o.MaxRounds, 1, 100)
		}
		if o.History != "" {
			v.oneOf(key+".history", o.History, HistoryCompressed, HistoryNative)
		}
		v.groups(key+".enabled_groups", o.EnabledGroups, c.Tools.Shell.Enabled)
	}
}

// validator collects problems.
type validator struct {
	problems []problem
}

func (v *validator) add(key, format string, args ...any) {
	v.problems = append(v.problems, problem{key, fmt.Sprintf(format, args...)})
}

func (v *validator) nonEmpty(key, s string) {
	if s == "" {
		v.add(key, "must not be empty")
	}
}

// word checks an identifier such as a user id: not empty, no spaces.
func (v *validator) word(key, s string) {
	if s == "" || strings.ContainsFunc(s, isSpace) {
		v.add(key, "must be a non-empty id without spaces, got %q", s)
	}
}

func (v *validator) positive(key string, d time.Duration) {
	if d <= 0 {
		v.add(key, `must be a positive duration such as "30s" or "10m", got %s`, d)
	}
}

func (v *validator) notNegative(key string, d time.Duration) {
	if d < 0 {
		v.add(key, "must not be negative (0 keeps everything), got %s", d)
	}
}

func (v *validator) between(key string, n, lo, hi int) {
	if n < lo || n > hi {
		v.add(key, "must be between %d and %d, got %d", lo, hi, n)
	}
}

func (v *validator) oneOf(key, s string, allowed ...string) {
	if slices.Contains(allowed, s) {
		return
	}
	quoted := make([]string, 0, len(allowed))
	for _, a := range allowed {
		if a != "" {
			quoted = append(quoted, strconv.Quote(a))
		}
	}
	list := strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1]
	if len(quoted) == 1 {
		list = quoted[0]
	}
	if slices.Contains(allowed, "") {
		list += " (or empty)"
	}
	v.add(key, "must be %s, got %q", list, s)
}

// url checks that s, when set, is an absolute http or https URL, and
// reports whether it is set and valid.
func (v *validator) url(key, s string) bool {
	if s == "" {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		v.add(key, `must be an absolute http or https URL such as "https://example.com/v1", got %q`, redactURL(s))
		return false
	}
	return true
}

// groups checks a list of tool group names.
func (v *validator) groups(key string, groups []string, shellEnabled bool) {
	seen := make(map[string]bool)
	for i, g := range groups {
		switch {
		case g == "" || strings.ContainsFunc(g, isSpace):
			v.add(fmt.Sprintf("%s[%d]", key, i), "must be a group name without spaces, got %q", g)
		case seen[g]:
			v.add(fmt.Sprintf("%s[%d]", key, i), "%q is listed twice", g)
		case g == "shell" && !shellEnabled:
			v.add(fmt.Sprintf("%s[%d]", key, i), `"shell" needs tools.shell.enabled: true`)
		}
		seen[g] = true
	}
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

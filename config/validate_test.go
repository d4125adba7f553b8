package config

import (
	"strings"
	"testing"
	"time"
)

func TestValidateAccepts(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
	}{
		{"defaults", func(*Config) {}},
		{"slack socket mode", func(c *Config) { c.Slack.BotToken, c.Slack.AppToken = "xoxb-1", "xapp-1" }},
		{"slack http mode", func(c *Config) {
			c.Slack.BotToken, c.Slack.SigningSecret, c.HTTP.Addr = "xoxb-1", "s", ":8080"
		}},
		{"slack both modes without addr", func(c *Config) {
			c.Slack.BotToken, c.Slack.AppToken, c.Slack.SigningSecret = "xoxb-1", "xapp-1", "s"
		}},
		{"discord with origin", func(c *Config) {
			c.Discord.BotToken, c.Discord.APIURL, c.Discord.ApplicationID = "t", "http://127.0.0.1:9/", "1234"
		}},
		{"model everything", func(c *Config) {
			temp := 2.0
			c.Model.BaseURL, c.Model.Temperature, c.Model.MaxRetries = "https://openrouter.ai/api/v1", &temp, 0
		}},
		{"zero retention keeps forever", func(c *Config) { c.Storage.AuditRetention, c.Storage.EventRetention = 0, 0 }},
		{"shell enabled and on", func(c *Config) {
			c.Tools.Shell.Enabled = true
			c.Tools.EnabledGroups = append(c.Tools.EnabledGroups, "shell")
		}},
		{"searxng", func(c *Config) { c.Tools.Web.Search = Search{Provider: SearchSearXNG, URL: "http://searx:8080"} }},
		{"brave", func(c *Config) { c.Tools.Web.Search = Search{Provider: SearchBrave, APIKey: "k"} }},
		{"mcp both kinds", func(c *Config) {
			c.Tools.MCP = []MCPServer{
				{Name: "a", Command: []string{"srv"}, Env: map[string]string{"K": "v"}},
				{Name: "b-2", URL: "https://x/mcp", Headers: map[string]string{"Authorization": "Bearer x"}},
			}
		}},
		{"policies", func(c *Config) {
			c.Tools.Policies = map[string]Policy{"bash": {Execution: "ask-once"}, "read": {Result: "always"}}
		}},
		{"uppercase log level", func(c *Config) { c.Log.Level = "DEBUG" }},
		{"channel override", func(c *Config) {
			c.Channels = map[string]ChannelOverride{"C1": {MaxRounds: 100, History: HistoryNative, EnabledGroups: []string{}}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			tt.edit(&c)
			if err := c.Validate(); err != nil {
				t.Errorf("Validate() = %v, want nil", err)
			}
		})
	}
}

func TestValidateNamesTheKey(t *testing.T) {
	tests := []struct {
		edit func(*Config)
		want string // the start of the one problem's line: "key: message"
	}{
		{func(c *Config) { c.Model.BaseURL = "localhost:11434" }, "model.base_url: must be an absolute http or https URL"},
		{func(c *Config) { c.Model.BaseURL = "ftp://x" }, "model.base_url: must be an absolute"},
		{func(c *Config) { c.Model.Name = "" }, "model.model: must not be empty"},
		{func(c *Config) { c.Model.RequestTimeout = 0 }, "model.request_timeout: must be a positive duration"},
		{func(c *Config) { c.Model.MaxRetries = -1 }, "model.max_retries: must be between 0 and 10, got -1"},
		{func(c *Config) { x := 2.5; c.Model.Temperature = &x }, "model.temperature: must be between 0 and 2, got 2.5"},
		{func(c *Config) { c.Model.MaxConcurrentRequests = 0 }, "model.max_concurrent_requests: must be between 1"},
		{func(c *Config) { c.Bot.Admins = []string{"U1", "U 2"} }, `bot.admins[1]: must be a non-empty id without spaces, got "U 2"`},
		{func(c *Config) { c.Bot.MaxRounds = 0 }, "bot.max_rounds: must be between 1 and 100, got 0"},
		{func(c *Config) { c.Bot.MaxRounds = 101 }, "bot.max_rounds: must be between 1 and 100, got 101"},
		{func(c *Config) { c.Bot.History = "x" }, `bot.history: must be "compressed" or "native", got "x"`},
		{func(c *Config) { c.Bot.ApprovalTimeout = -time.Second }, "bot.approval_timeout: must be a positive duration"},
		{func(c *Config) { c.Bot.SessionIdleTimeout = 0 }, "bot.session_idle_timeout: must be a positive duration"},
		{func(c *Config) { c.Bot.WorkspaceRoot = "" }, "bot.workspace_root: must not be empty"},
		{func(c *Config) { c.Vars.Capacity = 0 }, "vars.capacity: must be at least 1"},
		{func(c *Config) { c.Vars.MaxBytes = -1 }, "vars.max_bytes: must be at least 1"},
		{func(c *Config) { c.Storage.DB = "" }, "storage.db: must not be empty"},
		{func(c *Config) { c.Storage.AuditRetention = -time.Hour }, "storage.audit_retention: must not be negative"},
		{func(c *Config) { c.Storage.EventRetention = -time.Hour }, "storage.event_retention: must not be negative"},
		{func(c *Config) { c.HTTP.Addr = "8080" }, "http.addr: must be host:port"},
		{func(c *Config) { c.HTTP.Addr = ":99999" }, "http.addr: must be host:port"},
		{func(c *Config) { c.Log.Level = "verbose" }, `log.level: must be "debug", "info", "warn" or "error", got "verbose"`},
		{func(c *Config) { c.Log.Format = "xml" }, `log.format: must be "text" or "json", got "xml"`},
		{func(c *Config) { c.Slack.BotToken = "xoxb-1" }, "slack: app_token (SLACK_APP_TOKEN, Socket Mode) or signing_secret (SLACK_SIGNING_SECRET, HTTP mode) is required when bot_token is set"},
		{func(c *Config) { c.Slack.AppToken = "xapp-1" }, "slack.bot_token: is required when app_token or signing_secret is set"},
		{func(c *Config) { c.Slack.BotToken, c.Slack.SigningSecret = "xoxb-1", "s" }, "slack.signing_secret: HTTP mode needs http.addr"},
		{func(c *Config) { c.Slack.BotToken, c.Slack.AppToken = "xoxb-1", "xoxb-2" }, "slack.app_token: holds a bot token"},
		{func(c *Config) { c.Slack.BotToken, c.Slack.AppToken = "xapp-1", "xapp-2" }, "slack.bot_token: holds an app-level token"},
		{func(c *Config) { c.Slack.APIURL = "slack.com/api" }, "slack.api_url: must be an absolute"},
		{func(c *Config) { c.Slack.Command = "threadbot" }, `slack.command: must be "/" and a name`},
		{func(c *Config) { c.Slack.MaxFileMB = 0 }, `slack.max_file_mb: must be between 1 and 1024, got 0`},
		{func(c *Config) { c.Slack.Command = "/thread bot" }, `slack.command: must be "/" and a name`},
		{func(c *Config) { c.Discord.APIURL = "https://discord.com/api/v9" }, "discord.api_url: must be an origin"},
		{func(c *Config) { c.Discord.APIURL = "discord.com" }, "discord.api_url: must be an absolute"},
		{func(c *Config) { c.Discord.ApplicationID = "abc" }, "discord.application_id: must be a numeric id"},
		{func(c *Config) { c.Tools.EnabledGroups = []string{"web", "web"} }, `tools.enabled_groups[1]: "web" is listed twice`},
		{func(c *Config) { c.Tools.EnabledGroups = []string{""} }, "tools.enabled_groups[0]: must be a group name"},
		{func(c *Config) { c.Tools.EnabledGroups = []string{"shell"} }, `tools.enabled_groups[0]: "shell" needs tools.shell.enabled: true`},
		{func(c *Config) { c.Tools.Policies = map[string]Policy{"bash": {Execution: "never"}} }, `tools.policies.bash.execution: must be "auto", "ask-once" or "ask-always", got "never"`},
		{func(c *Config) { c.Tools.Policies = map[string]Policy{"bash": {Result: "sometimes"}} }, `tools.policies.bash.result: must be "never", "on-error" or "always"`},
		{func(c *Config) { c.Tools.Shell.Bubblewrap = "yes" }, `tools.shell.bubblewrap: must be "auto", "on" or "off", got "yes"`},
		{func(c *Config) { c.Tools.Shell.Timeout = 0 }, "tools.shell.timeout: must be a positive duration"},
		{func(c *Config) { c.Tools.Shell.MaxTimeout = 0 }, "tools.shell.max_timeout: must be a positive duration"},
		{func(c *Config) { c.Tools.Shell.Timeout = time.Hour }, "tools.shell.timeout: must not exceed tools.shell.max_timeout"},
		{func(c *Config) { c.Tools.Shell.Deny = []string{"rm *", " "} }, "tools.shell.deny[1]: must not be empty"},
		{func(c *Config) { c.Tools.Web.AllowHosts = []string{"https://x.example"} }, "tools.web.allow_hosts[0]: must be a host name"},
		{func(c *Config) { c.Tools.Web.MaxBytes = 0 }, "tools.web.max_bytes: must be at least 1"},
		{func(c *Config) { c.Tools.Web.Timeout = 0 }, "tools.web.timeout: must be a positive duration"},
		{func(c *Config) { c.Tools.Web.Search.Provider = "google" }, `tools.web.search.provider: must be "searxng", "tavily" or "brave" (or empty), got "google"`},
		{func(c *Config) { c.Tools.Web.Search.Provider = SearchSearXNG }, `tools.web.search.url: is required for provider "searxng"`},
		{func(c *Config) { c.Tools.Web.Search.Provider = SearchTavily }, `tools.web.search.api_key: is required for provider "tavily"`},
		{func(c *Config) { c.Tools.Web.Search.APIKey = "k" }, "tools.web.search.provider: is required when url or api_key is set"},
		{func(c *Config) { c.Tools.Web.Search = Search{Provider: SearchSearXNG, URL: "searx"} }, "tools.web.search.url: must be an absolute"},
		{func(c *Config) { c.Tools.Scripts.Timeout = 0 }, "tools.scripts.timeout: must be a positive duration"},
		{func(c *Config) { c.Tools.MCP = []MCPServer{{Name: "a"}} }, "tools.mcp[0]: needs exactly one of command (stdio) or url (streamable HTTP)"},
		{func(c *Config) { c.Tools.MCP = []MCPServer{{Name: "a", Command: []string{"x"}, URL: "http://x"}} }, "tools.mcp[0]: needs exactly one of"},
		{func(c *Config) { c.Tools.MCP = []MCPServer{{Command: []string{"x"}}} }, `tools.mcp[0].name: must be 1 to 32 letters, digits, '_' or '-', got ""`},
		{func(c *Config) { c.Tools.MCP = []MCPServer{{Name: "my server", Command: []string{"x"}}} }, "tools.mcp[0].name: must be 1 to 32"},
		{func(c *Config) { c.Tools.MCP = []MCPServer{{Name: "web", Command: []string{"x"}}} }, `tools.mcp[0].name: "web" is the name of a built-in tool group`},
		{func(c *Config) {
			c.Tools.MCP = []MCPServer{{Name: "a", Command: []string{"x"}}, {Name: "a", URL: "http://x"}}
		}, `tools.mcp[1].name: "a" is already the name of tools.mcp[0]`},
		{func(c *Config) { c.Tools.MCP = []MCPServer{{Name: "a", Command: []string{""}}} }, "tools.mcp[0].command: the first item must name the program"},
		{func(c *Config) { c.Tools.MCP = []MCPServer{{Name: "a", URL: "x"}} }, "tools.mcp[0].url: must be an absolute"},
		{func(c *Config) {
			c.Tools.MCP = []MCPServer{{Name: "a", URL: "http://x", Env: map[string]string{"K": "v"}}}
		}, "tools.mcp[0].env: only applies to a stdio server"},
		{func(c *Config) {
			c.Tools.MCP = []MCPServer{{Name: "a", Command: []string{"x"}, Headers: map[string]string{"K": "v"}}}
		}, "tools.mcp[0].headers: only applies to an HTTP server"},
		{func(c *Config) { c.Channels = map[string]ChannelOverride{"C1": {MaxRounds: -1}} }, "channels.C1.max_rounds: must be between 1 and 100, got -1"},
		{func(c *Config) { c.Channels = map[string]ChannelOverride{"C1": {History: "raw"}} }, `channels.C1.history: must be "compressed" or "native", got "raw"`},
		{func(c *Config) { c.Channels = map[string]ChannelOverride{"C1": {EnabledGroups: []string{"shell"}}} }, `channels.C1.enabled_groups[0]: "shell" needs tools.shell.enabled: true`},
		{func(c *Config) { c.Channels = map[string]ChannelOverride{"": {}} }, "channels: channel ids must not be empty"},
	}
	for _, tt := range tests {
		key, _, _ := strings.Cut(tt.want, ": ")
		t.Run(key, func(t *testing.T) {
			c := Default()
			tt.edit(&c)
			err := c.Validate()
			if err == nil {
				t.Fatalf("Validate() = nil, want %q", tt.want)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], tt.want) {
				t.Errorf("Validate() =\n%v\nwant exactly one problem starting with\n%s", err, tt.want)
			}
		})
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	c := Default()
	c.Bot.MaxRounds = 0
	c.Log.Format = "xml"
	c.Tools.Shell.Bubblewrap = "maybe"
	c.Channels = map[string]ChannelOverride{"C2": {History: "x"}, "C1": {History: "y"}}
	err := c.Validate()
	want := []string{"bot.max_rounds: ", "log.format: ", "tools.shell.bubblewrap: ", "channels.C1.history: ", "channels.C2.history: "}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Fatalf("Validate() =\n%v\nwant %d problems", err, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("problem %d = %q, want it to start with %q", i, lines[i], w)
		}
	}
}

func TestValidateHidesURLPasswords(t *testing.T) {
	c := Default()
	c.Model.BaseURL = "ftp://user:hunter2@example.com"
	err := c.Validate()
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("Validate() = %v, want an error without the password", err)
	}
}

package config

import (
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// envOf returns a getenv that reads from m.
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// writeFile writes a config file in a fresh directory and returns its path.
func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "threadbot.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDefault(t *testing.T) {
	d := Default()
	if err := d.Validate(); err != nil {
		t.Fatalf("Default().Validate() = %v, want nil", err)
	}
	tests := []struct {
		key       string
		got, want any
	}{
		{"model.model", d.Model.Name, "gpt-4o-mini"},
		{"model.max_concurrent_requests", d.Model.MaxConcurrentRequests, 8},
		{"model.temperature", d.Model.Temperature, (*float64)(nil)},
		{"bot.max_rounds", d.Bot.MaxRounds, 10},
		{"bot.history", d.Bot.History, HistoryCompressed},
		{"bot.approval_timeout", d.Bot.ApprovalTimeout, 10 * time.Minute},
		{"bot.session_idle_timeout", d.Bot.SessionIdleTimeout, 30 * time.Minute},
		{"bot.workspace_root", d.Bot.WorkspaceRoot, "./data/workspaces"},
		{"vars.capacity", d.Vars.Capacity, 1000},
		{"vars.max_bytes", d.Vars.MaxBytes, int64(32 << 20)},
		{"storage.db", d.Storage.DB, "./data/threadbot.db"},
		{"storage.audit_retention", d.Storage.AuditRetention, 90 * 24 * time.Hour},
		{"storage.event_retention", d.Storage.EventRetention, 7 * 24 * time.Hour},
		{"http.addr", d.HTTP.Addr, ""},
		{"log.level", d.Log.Level, "info"},
		{"log.format", d.Log.Format, "text"},
		{"slack.command", d.Slack.Command, "/threadbot"},
		{"slack.allow_bots", d.Slack.AllowBots, false},
		{"slack.max_file_mb", d.Slack.MaxFileMB, 10},
		{"tools.enabled_groups", d.Tools.EnabledGroups, []string{"basic", "chat", "fs", "vars", "web"}},
		{"tools.shell.enabled", d.Tools.Shell.Enabled, false},
		{"tools.shell.bubblewrap", d.Tools.Shell.Bubblewrap, BubblewrapAuto},
		{"tools.shell.timeout", d.Tools.Shell.Timeout, 2 * time.Minute},
		{"tools.shell.max_timeout", d.Tools.Shell.MaxTimeout, 10 * time.Minute},
		{"tools.scripts.timeout", d.Tools.Scripts.Timeout, 30 * time.Second},
	}
	for _, tt := range tests {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("Default() %s = %v, want %v", tt.key, tt.got, tt.want)
		}
	}
	if !strings.Contains(d.Bot.SystemPrompt, "threadbot") || !strings.HasSuffix(d.Bot.SystemPrompt, ".\n") {
		t.Errorf("Default() system prompt = %q, want the embedded prompt", d.Bot.SystemPrompt)
	}
	if d.SlackEnabled() || d.DiscordEnabled() || d.ModelConfigured() {
		t.Errorf("Default() enables an adapter or model; want nothing enabled")
	}
}

func TestDefaultIsFresh(t *testing.T) {
	a := Default()
	a.Tools.EnabledGroups[0] = "changed"
	a.Tools.Shell.Deny[0] = "changed"
	b := Default()
	if b.Tools.EnabledGroups[0] == "changed" || b.Tools.Shell.Deny[0] == "changed" {
		t.Fatal("Default() shares slices between calls")
	}
}

func TestEnabled(t *testing.T) {
	tests := []struct {
		name                string
		edit                func(*Config)
		slack, discord, mdl bool
	}{
		{"nothing", func(*Config) {}, false, false, false},
		{"slack", func(c *Config) { c.Slack.BotToken = "xoxb-1" }, true, false, false},
		{"discord", func(c *Config) { c.Discord.BotToken = "d" }, false, true, false},
		{"api key", func(c *Config) { c.Model.APIKey = "sk" }, false, false, true},
		{"base url", func(c *Config) { c.Model.BaseURL = "http://localhost:11434/v1" }, false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			tt.edit(&c)
			if got := c.SlackEnabled(); got != tt.slack {
				t.Errorf("SlackEnabled() = %v, want %v", got, tt.slack)
			}
			if got := c.DiscordEnabled(); got != tt.discord {
				t.Errorf("DiscordEnabled() = %v, want %v", got, tt.discord)
			}
			if got := c.ModelConfigured(); got != tt.mdl {
				t.Errorf("ModelConfigured() = %v, want %v", got, tt.mdl)
			}
		})
	}
}

func TestSocketMode(t *testing.T) {
	if (Slack{SigningSecret: "s"}).SocketMode() {
		t.Error("SocketMode() with only a signing secret = true, want false")
	}
	if !(Slack{AppToken: "xapp-1", SigningSecret: "s"}).SocketMode() {
		t.Error("SocketMode() with an app token = false, want true")
	}
}

func TestMissingModelHelp(t *testing.T) {
	c := Default()
	c.Model.Name = "llama3.2"
	help := c.MissingModelHelp()
	for _, want := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "THREADBOT_MODEL", "Ollama", "vLLM", "OpenRouter", `"llama3.2"`} {
		if !strings.Contains(help, want) {
			t.Errorf("MissingModelHelp() lacks %q:\n%s", want, help)
		}
	}
}

func TestIsAdmin(t *testing.T) {
	c := Default()
	c.Bot.Admins = []string{"U1", "123"}
	tests := []struct {
		id   string
		want bool
	}{{"U1", true}, {"123", true}, {"U2", false}, {"u1", false}, {"", false}}
	for _, tt := range tests {
		if got := c.IsAdmin(tt.id); got != tt.want {
			t.Errorf("IsAdmin(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestSlogLevel(t *testing.T) {
	tests := []struct {
		level string
		want  slog.Level
	}{{"debug", slog.LevelDebug}, {"info", slog.LevelInfo}, {"WARN", slog.LevelWarn}, {"error", slog.LevelError}, {"bogus", slog.LevelInfo}}
	for _, tt := range tests {
		if got := (Log{Level: tt.level}).SlogLevel(); got != tt.want {
			t.Errorf("SlogLevel(%q) = %v, want %v", tt.level, got, tt.want)
		}
	}
}

func TestChannel(t *testing.T) {
	c := Default()
	c.Channels = map[string]ChannelOverride{
		"Cfull":   {SystemPrompt: "custom", MaxRounds: 20, History: HistoryNative, EnabledGroups: []string{"web"}},
		"Cprompt": {SystemPrompt: "only prompt"},
		"Cnone":   {EnabledGroups: []string{}},
	}
	def := ChannelSettings{
		SystemPrompt:  c.Bot.SystemPrompt,
		MaxRounds:     10,
		History:       HistoryCompressed,
		EnabledGroups: []string{"basic", "chat", "fs", "vars", "web"},
	}
	tests := []struct {
		id   string
		want ChannelSettings
	}{
		{"Cunknown", def},
		{"Cfull", ChannelSettings{"custom", 20, HistoryNative, []string{"web"}}},
		{"Cprompt", ChannelSettings{"only prompt", def.MaxRounds, def.History, def.EnabledGroups}},
		{"Cnone", ChannelSettings{def.SystemPrompt, def.MaxRounds, def.History, []string{}}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			got := c.Channel(tt.id)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Channel(%q) = %+v, want %+v", tt.id, got, tt.want)
			}
		})
	}

	got := c.Channel("Cunknown")
	got.EnabledGroups[0] = "changed"
	if slices.Contains(c.Tools.EnabledGroups, "changed") {
		t.Error("Channel() returned the config's own slice")
	}
}

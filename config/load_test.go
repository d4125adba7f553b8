package config

import (
	"bytes"
	"errors"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestLoad(t *testing.T) {
	tests := []struct {
		name string
		file string // "" means no file
		env  map[string]string
		want func(*Config) // edits Default() into the expected config
	}{
		{
			name: "no file, no environment",
			want: func(*Config) {},
		},
		{
			name: "empty file",
			file: "\n",
			want: func(*Config) {},
		},
		{
			name: "only comments",
			file: "# nothing here\n",
			want: func(*Config) {},
		},
		{
			name: "null sections keep their defaults",
			file: "model:\nbot:\ntools:\n",
			want: func(*Config) {},
		},
		{
			name: "file overrides",
			file: `
model:
  base_url: http://localhost:11434/v1
  model: llama3.2
  temperature: 0
  request_timeout: 90s
bot:
  admins: [U1, U2]
  max_rounds: 25
  history: native
  approval_timeout: 1h30m
tools:
  enabled_groups: [basic]
  policies:
    write: {execution: ask-once}
  shell:
    enabled: true
    deny: []
  mcp:
    - name: docs
      command: [docs-server, --stdio]
channels:
  C1:
    max_rounds: 3
`,
			want: func(c *Config) {
				zero := 0.0
				c.Model.BaseURL = "http://localhost:11434/v1"
				c.Model.Name = "llama3.2"
				c.Model.Temperature = &zero
				c.Model.RequestTimeout = 90 * time.Second
				c.Bot.Admins = []string{"U1", "U2"}
				c.Bot.MaxRounds = 25
				c.Bot.History = HistoryNative
				c.Bot.ApprovalTimeout = 90 * time.Minute
				c.Tools.EnabledGroups = []string{"basic"}
				c.Tools.Policies = map[string]Policy{"write": {Execution: "ask-once"}}
				c.Tools.Shell.Enabled = true
				c.Tools.Shell.Deny = []string{}
				c.Tools.MCP = []MCPServer{{Name: "docs", Command: []string{"docs-server", "--stdio"}}}
				c.Channels = map[string]ChannelOverride{"C1": {MaxRounds: 3}}
			},
		},
		{
			name: "environment wins over the file",
			file: `
model: {api_key: from-file, base_url: "http://file/v1", model: file-model}
slack: {bot_token: xoxb-file, app_token: xapp-file}
bot: {admins: [Ufile], workspace_root: /file}
storage: {db: /file.db}
http: {addr: ":1"}
log: {level: debug}
`,
			env: map[string]string{
				"OPENAI_API_KEY":           "sk-env",
				"OPENAI_BASE_URL":          "http://env/v1",
				"THREADBOT_MODEL":          "env-model",
				"SLACK_BOT_TOKEN":          "xoxb-env",
				"SLACK_APP_TOKEN":          "xapp-env",
				"THREADBOT_ADMINS":         " U1 , ,U2,",
				"THREADBOT_WORKSPACE_ROOT": "/env",
				"THREADBOT_DB":             "/env.db",
				"THREADBOT_HTTP_ADDR":      ":2",
				"THREADBOT_LOG_LEVEL":      "warn",
				"THREADBOT_LOG_FORMAT":     "json",
			},
			want: func(c *Config) {
				c.Model.APIKey = "sk-env"
				c.Model.BaseURL = "http://env/v1"
				c.Model.Name = "env-model"
				c.Slack.BotToken = "xoxb-env"
				c.Slack.AppToken = "xapp-env"
				c.Bot.Admins = []string{"U1", "U2"}
				c.Bot.WorkspaceRoot = "/env"
				c.Storage.DB = "/env.db"
				c.HTTP.Addr = ":2"
				c.Log.Level = "warn"
				c.Log.Format = "json"
			},
		},
		{
			name: "a number where a string is wanted",
			file: "discord:\n  application_id: 123456789012345678\n",
			want: func(c *Config) { c.Discord.ApplicationID = "123456789012345678" },
		},
		{
			name: "unset or empty variables leave the file alone",
			file: "model: {model: file-model}\n",
			env:  map[string]string{"THREADBOT_MODEL": "  "},
			want: func(c *Config) { c.Model.Name = "file-model" },
		},
		{
			name: "no file, environment runs every adapter",
			env: map[string]string{
				"OPENAI_API_KEY":       "sk-1\n",
				"SLACK_BOT_TOKEN":      "xoxb-1",
				"SLACK_SIGNING_SECRET": "shh",
				"SLACK_API_URL":        "http://127.0.0.1:9/api/",
				"THREADBOT_HTTP_ADDR":  "127.0.0.1:0",
				"DISCORD_BOT_TOKEN":    "d-1",
				"DISCORD_API_URL":      "http://127.0.0.1:9",
			},
			want: func(c *Config) {
				c.Model.APIKey = "sk-1"
				c.Slack.BotToken = "xoxb-1"
				c.Slack.SigningSecret = "shh"
				c.Slack.APIURL = "http://127.0.0.1:9/api/"
				c.HTTP.Addr = "127.0.0.1:0"
				c.Discord.BotToken = "d-1"
				c.Discord.APIURL = "http://127.0.0.1:9"
			},
		},
		{
			name: "YAML anchors and merge keys",
			file: `
bot:
  approval_timeout: &long 20m
tools:
  shell:
    <<: {timeout: 5m}
    max_timeout: *long
`,
			want: func(c *Config) {
				c.Bot.ApprovalTimeout = 20 * time.Minute
				c.Tools.Shell.Timeout = 5 * time.Minute
				c.Tools.Shell.MaxTimeout = 20 * time.Minute
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := ""
			if tt.file != "" {
				path = writeFile(t, tt.file)
			}
			got, err := Load(path, envOf(tt.env))
			if err != nil {
				t.Fatalf("Load() error = %v", err)
			}
			want := Default()
			tt.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Load() =\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.yaml")
	_, err := Load(path, envOf(nil))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Load(missing) error = %v, want fs.ErrNotExist", err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("Load(missing) error %q does not name the file", err)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		file string
		env  map[string]string
		want []string // substrings of the error; "FILE" is the file's path
	}{
		{
			name: "unknown top-level key",
			file: "modle:\n  model: x\n",
			want: []string{`FILE:1: modle: unknown key (did you mean "model"?)`},
		},
		{
			name: "unknown nested key",
			file: "bot:\n  max_rounds: 3\n  histroy: native\n",
			want: []string{`FILE:3: bot.histroy: unknown key (did you mean "history"?)`},
		},
		{
			name: "unknown key far from any",
			file: "log:\n  colour: true\n",
			want: []string{"FILE:2: log.colour: unknown key (known keys: format, level)"},
		},
		{
			name: "unknown key in a channel",
			file: "channels:\n  C1:\n    prompt: hi\n",
			want: []string{"FILE:3: channels.C1.prompt: unknown key"},
		},
		{
			name: "unknown key in an MCP server",
			file: "tools:\n  mcp:\n    - name: a\n      cmd: [x]\n",
			want: []string{"FILE:4: tools.mcp[0].cmd: unknown key"},
		},
		{
			name: "every unknown key at once",
			file: "a: 1\nbot:\n  b: 2\n",
			want: []string{"FILE:1: a: unknown key", "FILE:3: bot.b: unknown key"},
		},
		{
			name: "key twice",
			file: "model:\n  model: a\nbot: {}\nmodel:\n  model: b\n",
			want: []string{"FILE:4: model: appears twice (first on line 1)"},
		},
		{
			name: "channel twice",
			file: "channels:\n  C1: {}\n  C1: {}\n",
			want: []string{"FILE:3: channels.C1: appears twice (first on line 2)"},
		},
		{
			name: "text for a temperature",
			file: "model:\n  temperature: warm\n",
			want: []string{`FILE:2: model.temperature: want a number, got "warm"`},
		},
		{
			name: "number for a duration",
			file: "bot:\n  approval_timeout: 10\n",
			want: []string{`FILE:2: bot.approval_timeout: want a duration such as`, `got "10"`},
		},
		{
			name: "days for a duration",
			file: "storage:\n  audit_retention: 90d\n",
			want: []string{"FILE:2: storage.audit_retention:", "no day unit"},
		},
		{
			name: "text for a number",
			file: "bot:\n  max_rounds: ten\n",
			want: []string{`FILE:2: bot.max_rounds: want a whole number, got "ten"`},
		},
		{
			name: "text for a bool",
			file: "slack:\n  allow_bots: sometimes\n",
			want: []string{`FILE:2: slack.allow_bots: want true or false, got "sometimes"`},
		},
		{
			name: "scalar for a list",
			file: "tools:\n  enabled_groups: basic\n",
			want: []string{`FILE:2: tools.enabled_groups: want a list, got "basic"`},
		},
		{
			name: "list for a section",
			file: "model: [a]\n",
			want: []string{"FILE:1: model: want a mapping of keys, got a list"},
		},
		{
			name: "list at the top",
			file: "- a\n",
			want: []string{"FILE:1: (top level): want a mapping of keys"},
		},
		{
			name: "two documents",
			file: "bot: {}\n---\nlog: {}\n",
			want: []string{"FILE:2: only one YAML document is allowed"},
		},
		{
			name: "broken YAML",
			file: "bot:\n  max_rounds: [\n",
			want: []string{"FILE: yaml:"},
		},
		{
			name: "invalid value in the file",
			file: "bot:\n  history: full\n",
			want: []string{"invalid config (FILE):", `bot.history: must be "compressed" or "native", got "full"`},
		},
		{
			name: "invalid value from the environment names the variable",
			env:  map[string]string{"OPENAI_BASE_URL": "localhost:11434"},
			want: []string{"invalid config (defaults and environment):", "model.base_url (from OPENAI_BASE_URL): must be an absolute http or https URL"},
		},
		{
			name: "slack token without a mode",
			env:  map[string]string{"SLACK_BOT_TOKEN": "xoxb-1"},
			want: []string{"slack: app_token (SLACK_APP_TOKEN, Socket Mode) or signing_secret (SLACK_SIGNING_SECRET, HTTP mode) is required when bot_token is set"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := ""
			if tt.file != "" {
				path = writeFile(t, tt.file)
			}
			_, err := Load(path, envOf(tt.env))
			if err == nil {
				t.Fatal("Load() error = nil, want one")
			}
			for _, w := range tt.want {
				if w = strings.ReplaceAll(w, "FILE", path); !strings.Contains(err.Error(), w) {
					t.Errorf("Load() error =\n%v\nwant it to contain\n%s", err, w)
				}
			}
		})
	}
}

func TestLoadReturnsInvalidConfig(t *testing.T) {
	path := writeFile(t, "bot:\n  max_rounds: 0\n  history: x\n")
	got, err := Load(path, envOf(nil))
	if err == nil {
		t.Fatal("Load() error = nil, want the validation problems")
	}
	if got.Bot.History != "x" || got.Model.Name != "gpt-4o-mini" {
		t.Errorf("Load() returned %+v with the validation error, want the loaded config", got.Bot)
	}
	if n := strings.Count(err.Error(), "\n"); n != 2 {
		t.Errorf("Load() error has %d lines after the header, want 2:\n%v", n, err)
	}
}

func TestPathFromEnv(t *testing.T) {
	if got := PathFromEnv(envOf(map[string]string{"THREADBOT_CONFIG": " /etc/threadbot.yaml\n"})); got != "/etc/threadbot.yaml" {
		t.Errorf("PathFromEnv() = %q, want /etc/threadbot.yaml", got)
	}
	if got := PathFromEnv(envOf(nil)); got != "" {
		t.Errorf("PathFromEnv(unset) = %q, want empty", got)
	}
}

func TestEnvVars(t *testing.T) {
	want := []string{
		"OPENAI_API_KEY", "OPENAI_BASE_URL", "THREADBOT_MODEL",
		"SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_API_URL",
		"DISCORD_BOT_TOKEN", "DISCORD_API_URL",
		"THREADBOT_DB", "THREADBOT_WORKSPACE_ROOT", "THREADBOT_HTTP_ADDR", "THREADBOT_ADMINS",
		"THREADBOT_LOG_LEVEL", "THREADBOT_LOG_FORMAT",
	}
	paths := keyPaths(reflectConfig(), "")
	var got []string
	for _, e := range EnvVars() {
		got = append(got, e.Name)
		if !paths[e.Key] {
			t.Errorf("EnvVars(): %s sets %q, which is not a key of Config", e.Name, e.Key)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("EnvVars() = %v, want %v", got, want)
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	temp := 0.2
	c := Default()
	c.Model.Temperature = &temp
	c.Model.APIKey = "sk-1"
	c.Tools.Policies = map[string]Policy{"bash": {Execution: "ask-always", Result: "on-error"}}
	c.Tools.MCP = []MCPServer{{Name: "t", URL: "https://mcp.example.com", Headers: map[string]string{"A": "b"}}}
	c.Channels = map[string]ChannelOverride{
		"Cinherit": {MaxRounds: 4},
		"Cnone":    {EnabledGroups: []string{}},
	}
	var buf bytes.Buffer
	if err := c.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Load(writeFile(t, buf.String()), envOf(nil))
	if err != nil {
		t.Fatalf("Load(Encode()) error = %v\n%s", err, buf.String())
	}
	var again bytes.Buffer
	if err := got.Encode(&again); err != nil {
		t.Fatal(err)
	}
	if again.String() != buf.String() {
		t.Errorf("Encode(Load(Encode(c))) =\n%s\nwant\n%s", again.String(), buf.String())
	}
	if g := got.Channel("Cinherit").EnabledGroups; !reflect.DeepEqual(g, c.Tools.EnabledGroups) {
		t.Errorf("after a round trip, an inheriting channel has groups %v, want %v", g, c.Tools.EnabledGroups)
	}
	if g := got.Channel("Cnone").EnabledGroups; len(g) != 0 {
		t.Errorf("after a round trip, a channel with no groups has %v", g)
	}
	if *got.Model.Temperature != temp {
		t.Errorf("after a round trip, temperature = %v, want %v", *got.Model.Temperature, temp)
	}
}

// Package config owns threadbot's configuration: the Config struct, its
// defaults, loading it from a YAML file plus environment variables (which
// win), and validating it with errors that name the offending key.
//
// threadbot.example.yaml in this directory documents every key; tests keep
// it in step with the struct and with Default.
//
// The package imports only the standard library and go.yaml.in/yaml/v3. No
// other threadbot package may be imported here, and only cmd/bot imports
// config: the core and the adapters receive plain values in their
// constructors.
package config

import (
	_ "embed"
	"time"
)

// Config is everything threadbot reads from its configuration file and
// environment. The zero value is not useful; start from Default or Load.
type Config struct {
	Model   Model   `yaml:"model"`
	Bot     Bot     `yaml:"bot"`
	Vars    Vars    `yaml:"vars"`
	Storage Storage `yaml:"storage"`
	HTTP    HTTP    `yaml:"http"`
	Log     Log     `yaml:"log"`
	Slack   Slack   `yaml:"slack"`
	Discord Discord `yaml:"discord"`
	Tools   Tools   `yaml:"tools"`
	// Channels holds per-channel overrides keyed by the platform's channel
	// id (Slack "C0123…", Discord snowflake). Use Config.Channel to read the
	// settings in force for a channel.
	Channels map[string]ChannelOverride `yaml:"channels"`
}

// Model configures the OpenAI-compatible language model.
type Model struct {
	// BaseURL is the API base of an OpenAI-compatible server, such as
	// "http://localhost:11434/v1" for Ollama; empty means OpenAI itself.
	BaseURL string `yaml:"base_url" redact:"url"`
	// APIKey is the bearer token sent to the server.
	APIKey string `yaml:"api_key" redact:"secret"`
	// Name is the model name passed in every request.
	Name string `yaml:"model"`
	// RequestTimeout bounds one model request, streaming included.
	RequestTimeout time.Duration `yaml:"request_timeout"`
	// MaxRetries is how often a request failing with 429 or 5xx is retried.
	MaxRetries int `yaml:"max_retries"`
	// Temperature is the sampling temperature; nil leaves it to the server.
	Temperature *float64 `yaml:"temperature"`
	// MaxConcurrentRequests limits model requests in flight across all
	// sessions.
	MaxConcurrentRequests int `yaml:"max_concurrent_requests"`
}

// Bot configures conversations.
type Bot struct {
	// SystemPrompt comes first in every request, before the tool rules.
	SystemPrompt string `yaml:"system_prompt"`
	// Admins are platform user ids allowed to change tool settings and to
	// decide any approval, in addition to the platforms' own admins.
	Admins []string `yaml:"admins"`
	// MaxRounds is the most LLM-tool rounds in one turn.
	MaxRounds int `yaml:"max_rounds"`
	// History is HistoryCompressed or HistoryNative.
	History string `yaml:"history"`
	// ApprovalTimeout is how long an approval request waits before it counts
	// as a rejection.
	ApprovalTimeout time.Duration `yaml:"approval_timeout"`
	// SessionIdleTimeout is how long an idle session stays in memory.
	SessionIdleTimeout time.Duration `yaml:"session_idle_timeout"`
	// WorkspaceRoot holds one sandbox directory per session.
	WorkspaceRoot string `yaml:"workspace_root"`
}

// History modes for Bot.History and ChannelOverride.History.
const (
	// HistoryCompressed sends earlier turns as the compressed assistant
	// message (hint plus natural flow).
	HistoryCompressed = "compressed"
	// HistoryNative replays the native tool messages of earlier turns.
	HistoryNative = "native"
)

// Vars limits each session's variable store.
type Vars struct {
	// Capacity is the most variables a session keeps.
	Capacity int `yaml:"capacity"`
	// MaxBytes is the most bytes of variable values a session keeps.
	MaxBytes int64 `yaml:"max_bytes"`
}

// Storage configures the database.
type Storage struct {
	// DB is the SQLite database file.
	DB string `yaml:"db"`
	// AuditRetention is how long audit rows are kept; 0 keeps them forever.
	AuditRetention time.Duration `yaml:"audit_retention"`
	// EventRetention is how long processed inbound event ids are kept; 0
	// keeps them forever.
	EventRetention time.Duration `yaml:"event_retention"`
}

// HTTP configures the one HTTP server (/healthz, /metrics, Slack HTTP mode).
type HTTP struct {
	// Addr is the listen address such as ":8080"; empty means no server.
	Addr string `yaml:"addr"`
}

// Log configures structured logging.
type Log struct {
	// Level is "debug", "info", "warn" or "error".
	Level string `yaml:"level"`
	// Format is "text" or "json".
	Format string `yaml:"format"`
}

// Slack configures the Slack adapter. It runs when BotToken is set.
type Slack struct {
	// BotToken is the bot user OAuth token ("xoxb-…").
	BotToken string `yaml:"bot_token" redact:"secret"`
	// AppToken is the app-level token ("xapp-…") that selects Socket Mode.
	AppToken string `yaml:"app_token" redact:"secret"`
	// SigningSecret selects HTTP mode and verifies Slack's requests.
	SigningSecret string `yaml:"signing_secret" redact:"secret"`
	// APIURL overrides the Web API base, such as "https://slack.com/api/".
	APIURL string `yaml:"api_url" redact:"url"`
	// Command is the slash command's name, with its leading slash.
	Command string `yaml:"command"`
	// AllowBots lets messages from other bots start turns.
	AllowBots bool `yaml:"allow_bots"`
	// MaxFileMB is the largest file attached to a message that is saved
	// in the thread's sandbox, in MiB.
	MaxFileMB int `yaml:"max_file_mb"`
}

// Discord configures the Discord adapter. It runs when BotToken is set.
type Discord struct {
	// BotToken is the bot token from the developer portal.
	BotToken string `yaml:"bot_token" redact:"secret"`
	// APIURL overrides the origin of every REST call and the gateway lookup,
	// such as "https://discord.com".
	APIURL string `yaml:"api_url" redact:"url"`
	// ApplicationID is the application's snowflake; empty means ask Discord.
	ApplicationID string `yaml:"application_id"`
	// AllowBots lets messages from other bots start turns.
	AllowBots bool `yaml:"allow_bots"`
}

// Tools configures the tool groups.
type Tools struct {
	// EnabledGroups are the groups switched on in every channel unless a
	// channel override or an admin says otherwise.
	EnabledGroups []string `yaml:"enabled_groups"`
	// Policies overrides the permission of single tools, keyed by tool name.
	Policies map[string]Policy `yaml:"policies"`
	Shell    Shell             `yaml:"shell"`
	Web      Web               `yaml:"web"`
	Scripts  Scripts           `yaml:"scripts"`
	// MCP lists the MCP servers; each becomes a tool group named after it.
	MCP []MCPServer `yaml:"mcp"`
}

// Policy overrides a tool's permission. An empty field keeps the tool's
// default.
type Policy struct {
	// Execution is "auto", "ask-once" or "ask-always".
	Execution string `yaml:"execution"`
	// Result is "never", "on-error" or "always".
	Result string `yaml:"result"`
}

// Shell configures the shell tool group.
type Shell struct {
	// Enabled registers the shell group at all; without it admins cannot
	// switch it on.
	Enabled bool `yaml:"enabled"`
	// Bubblewrap is BubblewrapAuto, BubblewrapOn or BubblewrapOff.
	Bubblewrap string `yaml:"bubblewrap"`
	// Network gives sandboxed commands network access.
	Network bool `yaml:"network"`
	// Timeout applies when a call names none.
	Timeout time.Duration `yaml:"timeout"`
	// MaxTimeout is the longest timeout a call may ask for.
	MaxTimeout time.Duration `yaml:"max_timeout"`
	// Deny lists command patterns ("git push *") refused before approval.
	Deny []string `yaml:"deny"`
}

// Bubblewrap modes for Shell.Bubblewrap.
const (
	// BubblewrapAuto uses bwrap when it is installed.
	BubblewrapAuto = "auto"
	// BubblewrapOn requires bwrap; without it commands are refused.
	BubblewrapOn = "on"
	// BubblewrapOff never uses bwrap.
	BubblewrapOff = "off"
)

// Web configures the web tool group.
type Web struct {
	// AllowHosts are hosts ("intranet.example.com", "*.corp.example",
	// "10.1.2.3:8080") reachable even though they resolve to private
	// addresses.
	AllowHosts []string `yaml:"allow_hosts"`
	// MaxBytes is the most bytes read from one response.
	MaxBytes int64 `yaml:"max_bytes"`
	// Timeout bounds one fetch, redirects included.
	Timeout time.Duration `yaml:"timeout"`
	Search  Search        `yaml:"search"`
}

// Search configures the web search provider.
type Search struct {
	// Provider is SearchSearXNG, SearchTavily, SearchBrave or "" (no search).
	Provider string `yaml:"provider"`
	// URL is the SearXNG instance, or overrides the API endpoint of the
	// others.
	URL string `yaml:"url" redact:"url"`
	// APIKey is the provider's key (Tavily, Brave).
	APIKey string `yaml:"api_key" redact:"secret"`
}

// Search providers for Search.Provider.
const (
	SearchSearXNG = "searxng"
	SearchTavily  = "tavily"
	SearchBrave   = "brave"
)

// Scripts configures custom script tools.
type Scripts struct {
	// Dir holds the scripts and their .tool.json descriptors; empty means
	// no script tools.
	Dir string `yaml:"dir"`
	// Timeout bounds one script call.
	Timeout time.Duration `yaml:"timeout"`
}

// MCPServer is one MCP server: exactly one of Command (stdio) or URL
// (streamable HTTP).
type MCPServer struct {
	// Name names the tool group.
	Name string `yaml:"name"`
	// Command is the program and its arguments for a stdio server.
	Command []string `yaml:"command"`
	// Env is added to the stdio server's environment.
	Env map[string]string `yaml:"env" redact:"secret"`
	// URL is the endpoint of a streamable HTTP server.
	URL string `yaml:"url" redact:"url"`
	// Headers are sent with every request to an HTTP server.
	Headers map[string]string `yaml:"headers" redact:"secret"`
}

// ChannelOverride changes settings for one channel. Zero fields inherit.
type ChannelOverride struct {
	// SystemPrompt replaces bot.system_prompt when not empty.
	SystemPrompt string `yaml:"system_prompt"`
	// MaxRounds replaces bot.max_rounds when not 0.
	MaxRounds int `yaml:"max_rounds"`
	// History replaces bot.history when not empty.
	History string `yaml:"history"`
	// EnabledGroups replaces tools.enabled_groups when present, even empty.
	EnabledGroups []string `yaml:"enabled_groups"`
}

// MarshalYAML leaves out the fields that inherit, so that Encode writes an
// absent enabled_groups (inherit) differently from an empty one (none).
func (o ChannelOverride) MarshalYAML() (any, error) {
	type out struct {
		SystemPrompt  string    `yaml:"system_prompt,omitempty"`
		MaxRounds     int       `yaml:"max_rounds,omitempty"`
		History       string    `yaml:"history,omitempty"`
		EnabledGroups *[]string `yaml:"enabled_groups,omitempty"`
	}
	v := out{SystemPrompt: o.SystemPrompt, MaxRounds: o.MaxRounds, History: o.History}
	if o.EnabledGroups != nil {
		v.EnabledGroups = &o.EnabledGroups
	}
	return v, nil
}

// ChannelSettings are the settings in force in one channel: the channel's
// override merged over the defaults.
type ChannelSettings struct {
	SystemPrompt  string
	MaxRounds     int
	History       string
	EnabledGroups []string
}

//go:embed system_prompt.md
var defaultSystemPrompt string

// Default returns the configuration used when neither a file nor the
// environment says otherwise. The slices are fresh on every call.
func Default() Config {
	return Config{
		Model: Model{
			Name:                  "gpt-4o-mini",
			RequestTimeout:        5 * time.Minute,
			MaxRetries:            3,
			MaxConcurrentRequests: 8,
		},
		Bot: Bot{
			SystemPrompt:       defaultSystemPrompt,
			MaxRounds:          10,
			History:            HistoryCompressed,
			ApprovalTimeout:    10 * time.Minute,
			SessionIdleTimeout: 30 * time.Minute,
			WorkspaceRoot:      "./data/workspaces",
		},
		Vars: Vars{
			Capacity: 1000,
			MaxBytes: 32 << 20,
		},
		Storage: Storage{
			DB:             "./data/threadbot.db",
			AuditRetention: 90 * 24 * time.Hour,
			EventRetention: 7 * 24 * time.Hour,
		},
		Log: Log{Level: "info", Format: "text"},
		Slack: Slack{
			Command:   "/threadbot",
			MaxFileMB: 10,
		},
		Tools: Tools{
			// Everything that is read-only, sandboxed or behind an approval
			// by default; shell runs code as the bot's user and is opt-in.
			EnabledGroups: []string{"basic", "chat", "fs", "vars", "web"},
			Shell: Shell{
				Bubblewrap: BubblewrapAuto,
				Timeout:    2 * time.Minute,
				MaxTimeout: 10 * time.Minute,
				Deny:       []string{"git push *", "sudo *"},
			},
			Web: Web{
				MaxBytes: 5 << 20,
				Timeout:  30 * time.Second,
			},
			Scripts: Scripts{
				Timeout: 30 * time.Second,
			},
		},
	}
}

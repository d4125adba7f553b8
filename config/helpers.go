package config

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
)

// SlackEnabled reports whether the Slack adapter should run: a bot token is
// set. Validate has checked that it comes with a connection mode.
func (c Config) SlackEnabled() bool { return c.Slack.BotToken != "" }

// SocketMode reports whether Slack connects through Socket Mode (an app
// token is set) rather than receiving HTTP requests. With both an app token
// and a signing secret, Socket Mode is used.
func (s Slack) SocketMode() bool { return s.AppToken != "" }

// DiscordEnabled reports whether the Discord adapter should run: a bot
// token is set.
func (c Config) DiscordEnabled() bool { return c.Discord.BotToken != "" }

// ModelConfigured reports whether a model can be reached: an API key (for
// OpenAI) or a base URL (for any OpenAI-compatible server) is set.
func (c Config) ModelConfigured() bool {
	return c.Model.APIKey != "" || c.Model.BaseURL != ""
}

// MissingModelHelp says, for a person at a terminal, exactly which
// variables to set when ModelConfigured is false.
func (c Config) MissingModelHelp() string {
	return fmt.Sprintf(`No language model is configured. Set one of:
  OPENAI_API_KEY=sk-...    to use the OpenAI API
  OPENAI_BASE_URL=URL      to use an OpenAI-compatible server, for example
                           http://localhost:11434/v1 (Ollama), http://localhost:8000/v1 (vLLM)
                           or https://openrouter.ai/api/v1 (OpenRouter, which also needs OPENAI_API_KEY)
and THREADBOT_MODEL=NAME to choose the model (now %q).
The same settings are model.api_key, model.base_url and model.model in the file named by THREADBOT_CONFIG.`,
		c.Model.Name)
}

// Channel returns the settings in force in the channel with the given id:
// its override in Channels merged over the defaults. The returned slice is
// the caller's to keep.
func (c Config) Channel(id string) ChannelSettings {
	s := ChannelSettings{
		SystemPrompt:  c.Bot.SystemPrompt,
		MaxRounds:     c.Bot.MaxRounds,
		History:       c.Bot.History,
		EnabledGroups: c.Tools.EnabledGroups,
	}
	if o, ok := c.Channels[id]; ok {
		if o.SystemPrompt != "" {
			s.SystemPrompt = o.SystemPrompt
		}
		if o.MaxRounds != 0 {
			s.MaxRounds = o.MaxRounds
		}
		if o.History != "" {
			s.History = o.History
		}
		if o.EnabledGroups != nil {
			s.EnabledGroups = o.EnabledGroups
		}
	}
	s.EnabledGroups = slices.Clone(s.EnabledGroups)
	if s.EnabledGroups == nil {
		s.EnabledGroups = []string{}
	}
	return s
}

// IsAdmin reports whether userID is one of the configured admins
// (bot.admins). Platform admins are the adapters' to recognise.
func (c Config) IsAdmin(userID string) bool {
	return userID != "" && slices.Contains(c.Bot.Admins, userID)
}

// SlogLevel returns the level as a slog.Level; a value Validate would
// reject reads as Info.
func (l Log) SlogLevel() slog.Level {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(strings.ToLower(l.Level))); err != nil {
		return slog.LevelInfo
	}
	return lv
}

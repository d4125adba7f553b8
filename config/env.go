package config

import "strings"

// PathEnv names the environment variable that holds the configuration
// file's path.
const PathEnv = "THREADBOT_CONFIG"

// PathFromEnv returns the configuration file's path from THREADBOT_CONFIG,
// or "" (no file) when it is unset.
func PathFromEnv(getenv func(string) string) string {
	return strings.TrimSpace(getenv(PathEnv))
}

// EnvVar is an environment variable that overrides a configuration key.
type EnvVar struct {
	// Name is the variable's name, such as "OPENAI_API_KEY".
	Name string
	// Key is the configuration key it sets, such as "model.api_key".
	Key string
}

// envOverrides are the variables Load reads, in the order of DESIGN.md §6.
// Each value is trimmed of surrounding space (secrets mounted from files
// often end in a newline); an empty or unset variable changes nothing.
var envOverrides = []struct {
	EnvVar
	set func(c *Config, v string)
}{
	{EnvVar{"OPENAI_API_KEY", "model.api_key"}, func(c *Config, v string) { c.Model.APIKey = v }},
	{EnvVar{"OPENAI_BASE_URL", "model.base_url"}, func(c *Config, v string) { c.Model.BaseURL = v }},
	{EnvVar{"THREADBOT_MODEL", "model.model"}, func(c *Config, v string) { c.Model.Name = v }},
	{EnvVar{"SLACK_BOT_TOKEN", "slack.bot_token"}, func(c *Config, v string) { c.Slack.BotToken = v }},
	{EnvVar{"SLACK_APP_TOKEN", "slack.app_token"}, func(c *Config, v string) { c.Slack.AppToken = v }},
	{EnvVar{"SLACK_SIGNING_SECRET", "slack.signing_secret"}, func(c *Config, v string) { c.Slack.SigningSecret = v }},
	{EnvVar{"SLACK_API_URL", "slack.api_url"}, func(c *Config, v string) { c.Slack.APIURL = v }},
	{EnvVar{"DISCORD_BOT_TOKEN", "discord.bot_token"}, func(c *Config, v string) { c.Discord.BotToken = v }},
	{EnvVar{"DISCORD_API_URL", "discord.api_url"}, func(c *Config, v string) { c.Discord.APIURL = v }},
	{EnvVar{"THREADBOT_DB", "storage.db"}, func(c *Config, v string) { c.Storage.DB = v }},
	{EnvVar{"THREADBOT_WORKSPACE_ROOT", "bot.workspace_root"}, func(c *Config, v string) { c.Bot.WorkspaceRoot = v }},
	{EnvVar{"THREADBOT_HTTP_ADDR", "http.addr"}, func(c *Config, v string) { c.HTTP.Addr = v }},
	{EnvVar{"THREADBOT_ADMINS", "bot.admins"}, func(c *Config, v string) { c.Bot.Admins = splitList(v) }},
	{EnvVar{"THREADBOT_LOG_LEVEL", "log.level"}, func(c *Config, v string) { c.Log.Level = v }},
	{EnvVar{"THREADBOT_LOG_FORMAT", "log.format"}, func(c *Config, v string) { c.Log.Format = v }},
}

// EnvVars returns the environment variables that Load reads and the keys
// they override, for documentation and help text. THREADBOT_CONFIG
// (PathEnv) is not among them: the caller reads it to choose the file.
func EnvVars() []EnvVar {
	vars := make([]EnvVar, len(envOverrides))
	for i, o := range envOverrides {
		vars[i] = o.EnvVar
	}
	return vars
}

// applyEnv overrides c with the set environment variables and returns the
// ones it applied.
func applyEnv(c *Config, getenv func(string) string) []EnvVar {
	var applied []EnvVar
	for _, o := range envOverrides {
		v := strings.TrimSpace(getenv(o.Name))
		if v == "" {
			continue
		}
		o.set(c, v)
		applied = append(applied, o.EnvVar)
	}
	return applied
}

// envSource returns the name of the applied variable that set key (or an
// element of it, such as "bot.admins[2]"), or "".
func envSource(key string, applied []EnvVar) string {
	for _, e := range applied {
		if key == e.Key || strings.HasPrefix(key, e.Key+"[") || strings.HasPrefix(key, e.Key+".") {
			return e.Name
		}
	}
	return ""
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var items []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	return items
}

package main

import (
	"io"
	"log/slog"
	"strings"

	"github.com/threadbot/threadbot/config"
)

// newLogger returns a slog logger that never prints a configured secret:
// attributes whose key names a secret are masked, and any configured secret
// value that appears in a message or attribute is replaced.
func newLogger(w io.Writer, cfg config.Config) *slog.Logger {
	secrets := secretValues(cfg)
	opts := &slog.HandlerOptions{
		Level: cfg.Log.SlogLevel(),
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if secretKey(a.Key) {
				return slog.String(a.Key, "***")
			}
			if a.Value.Kind() == slog.KindString || a.Value.Kind() == slog.KindAny {
				s := a.Value.String()
				masked := s
				for _, sec := range secrets {
					masked = strings.ReplaceAll(masked, sec, "***")
				}
				if masked != s {
					return slog.String(a.Key, masked)
				}
			}
			return a
		},
	}
	if cfg.Log.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

func secretKey(k string) bool {
	k = strings.ToLower(k)
	for _, s := range []string{"token", "secret", "password", "api_key", "apikey", "authorization"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// secretValues lists the configured secrets long enough to mask safely.
func secretValues(cfg config.Config) []string {
	var out []string
	for _, s := range []string{cfg.Model.APIKey, cfg.Slack.BotToken, cfg.Slack.AppToken, cfg.Slack.SigningSecret,
		cfg.Discord.BotToken, cfg.Tools.Web.Search.APIKey} {
		if len(s) >= 6 {
			out = append(out, s)
		}
	}
	for _, m := range cfg.Tools.MCP {
		for _, v := range m.Env {
			if len(v) >= 6 {
				out = append(out, v)
			}
		}
		for _, v := range m.Headers {
			if len(v) >= 6 {
				out = append(out, v)
			}
		}
	}
	return out
}

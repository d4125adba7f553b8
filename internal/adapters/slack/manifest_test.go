package slack_test

import (
	"os"
	"slices"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The shipped app manifest asks for what the adapter uses: every scope and
// event, interactivity for the buttons and the slash command.
func TestAppManifest(t *testing.T) {
	b, err := os.ReadFile("../../../config/slack-app-manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Features struct {
			AppHome struct {
				MessagesTab         bool `yaml:"messages_tab_enabled"`
				MessagesTabReadOnly bool `yaml:"messages_tab_read_only_enabled"`
			} `yaml:"app_home"`
			SlashCommands []struct {
				Command string `yaml:"command"`
			} `yaml:"slash_commands"`
		} `yaml:"features"`
		OAuth struct {
			Scopes struct {
				Bot []string `yaml:"bot"`
			} `yaml:"scopes"`
		} `yaml:"oauth_config"`
		Settings struct {
			Events struct {
				BotEvents []string `yaml:"bot_events"`
			} `yaml:"event_subscriptions"`
			Interactivity struct {
				Enabled bool `yaml:"is_enabled"`
			} `yaml:"interactivity"`
			SocketMode bool `yaml:"socket_mode_enabled"`
		} `yaml:"settings"`
	}
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"app_mentions:read", "channels:history", "groups:history", "im:history", "mpim:history", "chat:write", "commands", "files:read", "files:write", "reactions:write", "users:read"} {
		if !slices.Contains(m.OAuth.Scopes.Bot, s) {
			t.Errorf("manifest lacks the bot scope %s", s)
		}
	}
	for _, ev := range []string{"app_mention", "message.channels", "message.groups", "message.im", "message.mpim"} {
		if !slices.Contains(m.Settings.Events.BotEvents, ev) {
			t.Errorf("manifest lacks the bot event %s", ev)
		}
	}
	if !m.Settings.Interactivity.Enabled {
		t.Error("interactivity is off: the approval buttons would not work")
	}
	if !m.Settings.SocketMode {
		t.Error("socket_mode_enabled is false; the manifest documents Socket Mode as its default")
	}
	if len(m.Features.SlashCommands) != 1 || m.Features.SlashCommands[0].Command != "/threadbot" {
		t.Errorf("slash commands = %+v, want /threadbot (the default slack.command)", m.Features.SlashCommands)
	}
	if !m.Features.AppHome.MessagesTab || m.Features.AppHome.MessagesTabReadOnly {
		t.Error("the Messages tab must be enabled and writable for DMs")
	}
}

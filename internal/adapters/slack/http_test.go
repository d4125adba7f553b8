package slack_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/adapters/slack/fakeslack"
	"github.com/threadbot/threadbot/internal/core/session"
)

// HTTP mode refuses requests with a bad signature or an old timestamp,
// answers url_verification, and runs a signed event through to an answer.
func TestHTTPMode(t *testing.T) {
	e := newEnv(t, envOpts{http: true})
	challenge := []byte(`{"token":"x","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}`)
	for _, tt := range []struct {
		name string
		h    http.Header
		want int
	}{
		{"no signature", http.Header{}, http.StatusUnauthorized},
		{"wrong secret", fakeslack.Sign("not-the-secret", time.Now(), challenge), http.StatusUnauthorized},
		{"replayed after 6 minutes", fakeslack.Sign(secret, time.Now().Add(-6*time.Minute), challenge), http.StatusUnauthorized},
		{"signed for another body", fakeslack.Sign(secret, time.Now(), []byte(`{"type":"url_verification","challenge":"x"}`)), http.StatusUnauthorized},
	} {
		if res := e.post("/slack/events", challenge, tt.h); res.StatusCode != tt.want {
			t.Errorf("%s: status %d, want %d", tt.name, res.StatusCode, tt.want)
		}
	}

	req, _ := http.NewRequest(http.MethodPost, e.http.URL+"/slack/events", strings.NewReader(string(challenge)))
	for k, v := range fakeslack.Sign(secret, time.Now(), challenge) {
		req.Header[k] = v
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body strings.Builder
	_, _ = io.Copy(&body, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || body.String() != "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" {
		t.Errorf("url_verification = %d %q, want 200 and the challenge", res.StatusCode, body.String())
	}

	// Forged interactions and commands are refused before anything runs.
	e.model.Reply(call("deploy", `{"target":"prod"}`), answer("Deployed."))
	ts := e.mention(channel, alice, "deploy prod")
	msg, id := e.waitApproval(channel, ts)
	forged := []byte(fakeslack.InteractionForm(e.fs.BlockAction(alice, channel, msg.TS, ts, "threadbot_approve", id, "")).Encode())
	if res := e.post("/slack/interactivity", forged, fakeslack.Sign("forger", time.Now(), forged)); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("forged click: status %d, want 401", res.StatusCode)
	}
	if got := e.ranTools(); len(got) != 0 {
		t.Fatalf("a forged click ran the tool: %q", got)
	}
	e.send("interactive", e.fs.BlockAction(alice, channel, msg.TS, ts, "threadbot_approve", id, ""), 0)
	e.waitBot(channel, ts, "Deployed.")
	e.waitDone(channel, ts)
	fakeslack.Eventually(t, "the turn to end", func() bool {
		return len(e.mgr.Active(session.Key{Platform: "slack", Workspace: fakeslack.DefaultTeamID, Channel: channel})) == 0
	})

	e.send("slash_commands", e.fs.SlashCommand("/threadbot", "status", alice, channel), 0)
	e.response("Nothing is running in this channel.")

	// An event type the bot does not handle is acknowledged, not retried.
	unknown, _ := json.Marshal(e.fs.EventCallback("", map[string]any{"type": "reaction_added", "user": alice}))
	if res := e.post("/slack/events", unknown, fakeslack.Sign(secret, time.Now(), unknown)); res.StatusCode != http.StatusOK {
		t.Errorf("unhandled event: status %d, want 200", res.StatusCode)
	}
	big := []byte(`{"type":"event_callback","pad":"` + strings.Repeat("x", 2<<20) + `"}`)
	if res := e.post("/slack/events", big, fakeslack.Sign(secret, time.Now(), big)); res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("2 MiB body: status %d, want 413", res.StatusCode)
	}
}

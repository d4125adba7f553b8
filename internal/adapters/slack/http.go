package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"

	slackapi "github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
)

// maxBody bounds a request from Slack; real ones are a few kilobytes.
const maxBody = 1 << 20

// Handler serves Slack's HTTP mode: POST /slack/events,
// /slack/interactivity and /slack/commands. Each request's signature is
// checked against the signing secret and requests older than five minutes
// are refused (401), so a captured request cannot be replayed later. Every
// accepted request is answered at once with 200; the work runs
// afterwards, in the context given here.
func (a *Adapter) Handler(ctx context.Context) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /slack/events", a.verified(func(w http.ResponseWriter, r *http.Request, body []byte) {
		a.serveEvents(ctx, w, r, body)
	}))
	mux.HandleFunc("POST /slack/interactivity", a.verified(func(w http.ResponseWriter, _ *http.Request, body []byte) {
		form, err := url.ParseQuery(string(body))
		var cb slackapi.InteractionCallback
		if err == nil {
			err = json.Unmarshal([]byte(form.Get("payload")), &cb)
		}
		if err != nil {
			http.Error(w, "bad interaction payload", http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusOK)
		go a.onInteraction(context.WithoutCancel(ctx), cb)
	}))
	mux.HandleFunc("POST /slack/commands", a.verified(func(w http.ResponseWriter, r *http.Request, body []byte) {
		r.Body = io.NopCloser(bytes.NewReader(body))
		cmd, err := slackapi.SlashCommandParse(r)
		if err != nil {
			http.Error(w, "bad slash command", http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusOK)
		go a.onCommand(context.WithoutCancel(ctx), cmd)
	}))
	return mux
}

// verified reads the body (at most maxBody) and checks Slack's signature
// before calling h.
func (a *Adapter) verified(h func(http.ResponseWriter, *http.Request, []byte)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if a.opts.SigningSecret == "" {
			http.Error(w, "HTTP mode is not configured (no signing secret)", http.StatusNotFound)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		if err != nil {
			http.Error(w, "request too large", http.StatusRequestEntityTooLarge)
			return
		}
		sv, err := slackapi.NewSecretsVerifier(r.Header, a.opts.SigningSecret)
		if err == nil {
			_, _ = sv.Write(body)
			err = sv.Ensure()
		}
		if err != nil {
			a.lg.Warn("refused an unsigned or stale Slack request", "path", r.URL.Path, "err", err)
			http.Error(w, "invalid signature", http.StatusUnauthorized)
			return
		}
		if a.runtime() == nil {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		h(w, r, body)
	}
}

func (a *Adapter) serveEvents(ctx context.Context, w http.ResponseWriter, r *http.Request, body []byte) {
	ev, err := slackevents.ParseEvent(body, slackevents.OptionNoVerifyToken())
	if err != nil {
		var outer struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(body, &outer) == nil && outer.Type == slackevents.CallbackEvent {
			// A callback with an event type slack-go does not know: nothing
			// for the bot, but Slack must not retry it.
			w.WriteHeader(http.StatusOK)
			return
		}
		http.Error(w, "bad event", http.StatusBadRequest)
		return
	}
	switch ev.Type {
	case slackevents.URLVerification:
		var v slackevents.ChallengeResponse
		if err := json.Unmarshal(body, &v); err != nil {
			http.Error(w, "bad challenge", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte(v.Challenge))
	case slackevents.CallbackEvent:
		if n := r.Header.Get("X-Slack-Retry-Num"); n != "" {
			a.lg.Debug("redelivered event", "attempt", n, "reason", r.Header.Get("X-Slack-Retry-Reason"))
		}
		if ctx.Err() != nil || !a.onEventsAPI(ev, body) {
			// Shutting down, or too many waiting: Slack sends it again.
			http.Error(w, "not taken now; retry", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	default:
		w.WriteHeader(http.StatusOK)
	}
}

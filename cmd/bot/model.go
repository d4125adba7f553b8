package main

import (
	"context"
	"log/slog"

	"github.com/threadbot/threadbot/config"
	"github.com/threadbot/threadbot/internal/adapters/openai"
	"github.com/threadbot/threadbot/internal/core/chain"
	"github.com/threadbot/threadbot/internal/core/llm"
)

// newModel returns the model client, or, when no model is configured, a
// stand-in that answers every message with what to set.
func newModel(lg *slog.Logger, cfg config.Config) chain.Model {
	if !cfg.ModelConfigured() {
		lg.Warn("no model configured; every message is answered with setup help")
		return helpModel{text: cfg.MissingModelHelp()}
	}
	return openai.New(lg, openai.Options{
		BaseURL:        cfg.Model.BaseURL,
		APIKey:         cfg.Model.APIKey,
		Model:          cfg.Model.Name,
		RequestTimeout: cfg.Model.RequestTimeout,
		MaxRetries:     retries(cfg.Model.MaxRetries),
	})
}

// retries maps the config's "0 = none" onto the client's "-1 = none".
func retries(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

func sessionRequest(cfg config.Config) llm.Request {
	req := llm.Request{Model: cfg.Model.Name}
	if cfg.Model.Temperature != nil {
		t := float32(*cfg.Model.Temperature)
		req.Temperature = &t
	}
	return req
}

// helpModel answers with setup help instead of failing every turn.
type helpModel struct{ text string }

func (h helpModel) Complete(_ context.Context, _ llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	text := "I can't answer yet: no language model is configured.\n\n" + h.text
	if onDelta != nil {
		onDelta(llm.Delta{Content: text})
	}
	return llm.Response{Content: text}, nil
}

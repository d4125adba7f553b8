package openai

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	oai "github.com/sashabaranov/go-openai"

	"github.com/threadbot/threadbot/internal/core/llm"
)

// Defaults for the zero values of Options.
const (
	DefaultBaseURL        = "https://api.openai.com/v1"
	DefaultRequestTimeout = 2 * time.Minute
	DefaultMaxRetries     = 3
	DefaultBackoff        = 500 * time.Millisecond
	DefaultMaxBackoff     = 30 * time.Second
)

// Options configure a Client. The zero value talks to OpenAI with the
// defaults above; only APIKey and Model usually need setting.
type Options struct {
	// BaseURL is any OpenAI-compatible API base, such as
	// "http://127.0.0.1:8080/v1"; empty means DefaultBaseURL.
	BaseURL string
	// APIKey is sent as a bearer token when not empty. It is never logged.
	APIKey string
	// Model is used when a request names none.
	Model string
	// HTTPClient sends the requests; nil means a new http.Client.
	HTTPClient *http.Client
	// RequestTimeout bounds each attempt, streaming included; 0 means
	// DefaultRequestTimeout.
	RequestTimeout time.Duration
	// MaxRetries is the number of attempts after the first; 0 means
	// DefaultMaxRetries and a negative value means none.
	MaxRetries int
	// Backoff is the wait before the first retry, doubled for each further
	// one; 0 means DefaultBackoff.
	Backoff time.Duration
	// MaxBackoff caps every wait, a server's Retry-After included; 0 means
	// DefaultMaxBackoff.
	MaxBackoff time.Duration
	// Sleep waits between attempts and must return early, with an error,
	// when ctx ends; nil means a timer. Tests inject it to record waits.
	Sleep func(ctx context.Context, d time.Duration) error
	// LegacyMaxTokens sends the token limit as max_tokens instead of
	// max_completion_tokens, for older OpenAI-compatible servers.
	LegacyMaxTokens bool
}

// Client is a chat-completions model client. It is safe for concurrent use.
type Client struct {
	lg     *slog.Logger
	opts   Options
	host   string              // BaseURL's host, for logs
	now    func() time.Time    // for Retry-After dates
	jitter func(n int64) int64 // a random value in [0, n)
}

// New returns a Client. A nil logger discards logs.
func New(lg *slog.Logger, opts Options) *Client {
	if lg == nil {
		lg = slog.New(slog.DiscardHandler)
	}
	opts.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultBaseURL
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{}
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	switch {
	case opts.MaxRetries == 0:
		opts.MaxRetries = DefaultMaxRetries
	case opts.MaxRetries < 0:
		opts.MaxRetries = 0
	}
	if opts.Backoff <= 0 {
		opts.Backoff = DefaultBackoff
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = DefaultMaxBackoff
	}
	if opts.Sleep == nil {
		opts.Sleep = sleep
	}
	host := opts.BaseURL
	if u, err := url.Parse(opts.BaseURL); err == nil && u.Host != "" {
		host = u.Host // without any user:password@ the URL may hold
	}
	return &Client{
		lg:     lg.With("host", host),
		opts:   opts,
		host:   host,
		now:    time.Now,
		jitter: rand.Int64N,
	}
}

// Complete sends req and streams the answer: onDelta, if not nil, receives
// each piece of text and, once per tool call, its index and name as soon as
// the name is known. It is called on Complete's goroutine. The returned
// Response holds the whole text, the tool calls in index order, the finish
// reason, the usage and the answering model.
//
// Failed attempts are retried as the package documentation describes, but
// never once onDelta has been called. Errors wrap one of the package's
// sentinels (a *StatusError for provider statuses), with "gave up after N
// attempts" when retries ran out; when ctx ends, the error wraps
// context.Cause(ctx) and Complete returns at once, during a backoff wait too.
func (c *Client) Complete(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	creq, zeroTemperature, err := c.chatRequest(req)
	if err != nil {
		return llm.Response{}, err
	}
	delivered := false
	emit := func(d llm.Delta) {
		if onDelta != nil {
			delivered = true
			onDelta(d)
		}
	}
	for attempt := 1; ; attempt++ {
		resp, f := c.attempt(ctx, creq, zeroTemperature, attempt, emit)
		if f == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return llm.Response{}, fmt.Errorf("openai: chat completion: %w", context.Cause(ctx))
		}
		switch {
		case !f.retry && attempt == 1:
			return llm.Response{}, f.err
		case !f.retry:
			return llm.Response{}, fmt.Errorf("%w (attempt %d)", f.err, attempt)
		case delivered:
			return llm.Response{}, fmt.Errorf("%w (not retried: part of the answer was already delivered)", f.err)
		case attempt > c.opts.MaxRetries:
			return llm.Response{}, fmt.Errorf("%w (gave up after %d attempts)", f.err, attempt)
		}
		wait := c.backoff(attempt, f.hint, f.hasHint)
		c.lg.Warn("openai: retrying", "model", creq.Model, "attempt", attempt, "status", f.status, "wait", wait, "err", f.err)
		if err := c.opts.Sleep(ctx, wait); err != nil || ctx.Err() != nil {
			if ctx.Err() != nil {
				err = context.Cause(ctx)
			}
			return llm.Response{}, fmt.Errorf("openai: chat completion: backoff: %w", err)
		}
	}
}

// failure says why an attempt failed and whether another may follow.
type failure struct {
	err     error
	retry   bool
	status  int           // HTTP status, 0 if none arrived
	hint    time.Duration // the server's Retry-After
	hasHint bool
}

// attempt makes one request under its own timeout.
func (c *Client) attempt(ctx context.Context, creq oai.ChatCompletionRequest, zeroTemperature bool, n int, emit func(llm.Delta)) (llm.Response, *failure) {
	actx, cancel := context.WithTimeoutCause(ctx, c.opts.RequestTimeout, ErrTimeout)
	defer cancel()

	rec := &recorder{client: c.opts.HTTPClient, zeroTemperature: zeroTemperature}
	cfg := oai.DefaultConfig(c.opts.APIKey)
	cfg.BaseURL = c.opts.BaseURL
	cfg.HTTPClient = rec

	start := time.Now()
	resp, streaming, err := send(actx, oai.NewClientWithConfig(cfg), creq, emit)
	dur := time.Since(start)
	if err == nil {
		c.lg.Debug("openai: completion", "model", creq.Model, "attempt", n, "status", rec.status, "dur", dur,
			"finish", resp.FinishReason, "tool_calls", len(resp.ToolCalls), "tokens", resp.Usage.TotalTokens)
		return resp, nil
	}
	f := c.classify(ctx, actx, err, rec, streaming)
	c.lg.Debug("openai: attempt failed", "model", creq.Model, "attempt", n, "status", rec.status, "dur", dur, "err", f.err)
	return llm.Response{}, f
}

// send opens the stream and reads it. streaming reports whether the error,
// if any, came after the response headers.
func send(ctx context.Context, sdk *oai.Client, creq oai.ChatCompletionRequest, emit func(llm.Delta)) (resp llm.Response, streaming bool, err error) {
	stream, err := sdk.CreateChatCompletionStream(ctx, creq)
	if err != nil {
		return llm.Response{}, false, err
	}
	defer stream.Close()
	resp, err = readStream(stream, emit)
	return resp, true, err
}

// classify turns the error of an attempt into a failure.
func (c *Client) classify(ctx, actx context.Context, err error, rec *recorder, streaming bool) *failure {
	f := &failure{status: rec.status}
	if ctx.Err() != nil {
		f.err = context.Cause(ctx)
		return f
	}
	if actx.Err() != nil && errors.Is(context.Cause(actx), ErrTimeout) {
		f.err, f.retry = fmt.Errorf("%w after %v", ErrTimeout, c.opts.RequestTimeout), true
		return f
	}
	if se, ok := statusError(err); ok {
		f.err, f.retry = se, retryableStatus(se.StatusCode)
		f.hint, f.hasHint = retryAfter(rec.header, c.now())
		return f
	}
	if !streaming {
		if !rec.sent {
			// go-openai refused the request before sending it.
			f.err = fmt.Errorf("%w: %w", ErrInvalidRequest, err)
			return f
		}
		f.err, f.retry = fmt.Errorf("%w: %w", ErrConnection, err), true
		return f
	}
	var apiErr *oai.APIError
	switch {
	case errors.Is(err, ErrStream), errors.Is(err, ErrEmptyResponse):
		f.err = err
	case errors.As(err, &apiErr):
		f.err = fmt.Errorf("%w: error event: %s", ErrStream, clip(apiErr.Message))
	case errors.Is(err, oai.ErrTooManyEmptyStreamMessages):
		f.err = fmt.Errorf("%w: %w", ErrStream, err)
	default:
		// The connection broke mid-stream. Another attempt is safe as
		// long as the caller has seen nothing; Complete checks that.
		f.err, f.retry = fmt.Errorf("%w: %w", ErrStream, err), true
	}
	return f
}

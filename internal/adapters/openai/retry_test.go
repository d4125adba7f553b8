package openai

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/core/llm"
	"github.com/threadbot/threadbot/internal/fakeopenai"
)

func TestCompleteRetries(t *testing.T) {
	ok := fakeopenai.Response{Content: "ok"}
	status := func(code int, retryAfter string) fakeopenai.Response {
		return fakeopenai.Response{Status: code, RetryAfter: retryAfter}
	}
	tests := []struct {
		name         string
		opts         Options
		replies      []fakeopenai.Response
		wantErr      error  // nil: success with content "ok"
		wantMsg      string // in the error text
		wantSleeps   []time.Duration
		wantRequests int
	}{
		{
			name:         "429 with Retry-After seconds",
			replies:      []fakeopenai.Response{status(429, "2"), ok},
			wantSleeps:   []time.Duration{2 * time.Second},
			wantRequests: 2,
		},
		{
			name:         "429 with Retry-After date",
			replies:      []fakeopenai.Response{status(429, testNow.Add(5*time.Second).Format(http.TimeFormat)), ok},
			wantSleeps:   []time.Duration{5 * time.Second},
			wantRequests: 2,
		},
		{
			name:         "Retry-After capped by MaxBackoff",
			opts:         Options{MaxBackoff: 10 * time.Second},
			replies:      []fakeopenai.Response{status(429, "120"), ok},
			wantSleeps:   []time.Duration{10 * time.Second},
			wantRequests: 2,
		},
		{
			name:         "503 twice then success, exponential backoff",
			replies:      []fakeopenai.Response{status(503, ""), status(503, ""), ok},
			wantSleeps:   []time.Duration{500 * time.Millisecond, time.Second},
			wantRequests: 3,
		},
		{
			name:         "408 is retried",
			replies:      []fakeopenai.Response{status(408, ""), ok},
			wantSleeps:   []time.Duration{500 * time.Millisecond},
			wantRequests: 2,
		},
		{
			name:         "502 with an HTML body is retried",
			replies:      []fakeopenai.Response{{Status: 502, RawBody: "<html>bad gateway</html>"}, ok},
			wantSleeps:   []time.Duration{500 * time.Millisecond},
			wantRequests: 2,
		},
		{
			name:         "400 is not retried",
			replies:      []fakeopenai.Response{{Status: 400, ErrorMessage: "messages[3]: tool_call_id missing", ErrorCode: "invalid_value"}, ok},
			wantErr:      ErrInvalidRequest,
			wantMsg:      "openai: invalid request: status 400 (invalid_value): messages[3]: tool_call_id missing",
			wantRequests: 1,
		},
		{
			name:         "401 is not retried",
			replies:      []fakeopenai.Response{{Status: 401, ErrorMessage: "Incorrect API key provided"}, ok},
			wantErr:      ErrAuth,
			wantMsg:      "status 401: Incorrect API key provided",
			wantRequests: 1,
		},
		{
			name:         "retries exhausted",
			opts:         Options{MaxRetries: 2},
			replies:      []fakeopenai.Response{status(429, ""), status(429, ""), status(429, ""), ok},
			wantErr:      ErrRateLimited,
			wantMsg:      "(gave up after 3 attempts)",
			wantSleeps:   []time.Duration{500 * time.Millisecond, time.Second},
			wantRequests: 3,
		},
		{
			name:         "no retries",
			opts:         Options{MaxRetries: -1},
			replies:      []fakeopenai.Response{{Status: 502, RawBody: "<html>bad gateway</html>"}, ok},
			wantErr:      ErrServer,
			wantMsg:      "openai: provider error: status 502: <html>bad gateway</html>",
			wantRequests: 1,
		},
		{
			name:         "503 then 400 stops",
			replies:      []fakeopenai.Response{status(503, ""), status(400, ""), ok},
			wantErr:      ErrInvalidRequest,
			wantMsg:      "status 400: fakeopenai: scripted error 400 Bad Request (attempt 2)",
			wantSleeps:   []time.Duration{500 * time.Millisecond},
			wantRequests: 2,
		},
		{
			name:         "malformed chunk is not retried",
			replies:      []fakeopenai.Response{{RawBody: "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: {not json\n\n"}, ok},
			wantErr:      ErrStream,
			wantMsg:      "malformed chunk",
			wantRequests: 1,
		},
		{
			name:         "stream without choices",
			replies:      []fakeopenai.Response{{RawBody: "data: [DONE]\n\n"}, ok},
			wantErr:      ErrEmptyResponse,
			wantRequests: 1,
		},
		{
			name:         "error event in the stream",
			replies:      []fakeopenai.Response{{RawBody: "data: {\"error\":{\"message\":\"model overloaded\",\"type\":\"server_error\"}}\n\n"}, ok},
			wantErr:      ErrStream,
			wantMsg:      "error event: model overloaded",
			wantRequests: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.opts)
			h.srv.Reply(tt.replies...)
			resp, err := h.c.Complete(context.Background(), userRequest("hi"), nil)
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("err = %v", err)
			case tt.wantErr == nil && resp.Content != "ok":
				t.Errorf("content = %q", resp.Content)
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			case tt.wantErr != nil && !strings.Contains(err.Error(), tt.wantMsg):
				t.Errorf("err = %q, want it to contain %q", err, tt.wantMsg)
			}
			if !reflect.DeepEqual(h.sleeps, tt.wantSleeps) {
				t.Errorf("sleeps = %v, want %v", h.sleeps, tt.wantSleeps)
			}
			if got := len(h.srv.Requests()); got != tt.wantRequests {
				t.Errorf("%d requests, want %d", got, tt.wantRequests)
			}
		})
	}
}

func TestStatusErrorDetails(t *testing.T) {
	h := newHarness(t, Options{})
	h.srv.Reply(fakeopenai.Response{Status: 400, ErrorMessage: "too long", ErrorType: "invalid_request_error", ErrorCode: "context_length_exceeded"})
	_, err := h.c.Complete(context.Background(), userRequest("hi"), nil)
	var se *StatusError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want a *StatusError", err)
	}
	want := StatusError{StatusCode: 400, Type: "invalid_request_error", Code: "context_length_exceeded", Message: "too long"}
	if *se != want {
		t.Errorf("StatusError = %+v, want %+v", *se, want)
	}
}

func TestCompleteNoRetryAfterDeltas(t *testing.T) {
	tests := []struct {
		name         string
		onDelta      bool
		wantErr      error
		wantRequests int
	}{
		{"caller saw nothing: retried", false, nil, 2},
		{"caller saw text: not retried", true, ErrStream, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Options{})
			h.srv.Reply(
				fakeopenai.Response{Content: "a partial answer", DropAfterChunks: 3},
				fakeopenai.Response{Content: "ok"},
			)
			var onDelta func(llm.Delta)
			var seen []string
			if tt.onDelta {
				onDelta = func(d llm.Delta) { seen = append(seen, d.Content) }
			}
			resp, err := h.c.Complete(context.Background(), userRequest("hi"), onDelta)
			if tt.wantErr == nil {
				if err != nil || resp.Content != "ok" {
					t.Fatalf("resp %+v err %v", resp, err)
				}
			} else {
				if !errors.Is(err, tt.wantErr) || !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "not retried") {
					t.Fatalf("err = %v, want %v wrapping io.ErrUnexpectedEOF, not retried", err, tt.wantErr)
				}
				if want := []string{"a pa", "rtia"}; !reflect.DeepEqual(seen, want) {
					t.Errorf("deltas = %q, want %q", seen, want)
				}
			}
			if got := len(h.srv.Requests()); got != tt.wantRequests {
				t.Errorf("%d requests, want %d", got, tt.wantRequests)
			}
		})
	}
}

func TestCompleteConnectionRefused(t *testing.T) {
	h := newHarness(t, Options{MaxRetries: 1})
	h.srv.Close()
	_, err := h.c.Complete(context.Background(), userRequest("hi"), nil)
	if !errors.Is(err, ErrConnection) {
		t.Fatalf("err = %v, want ErrConnection", err)
	}
	if want := []time.Duration{500 * time.Millisecond}; !reflect.DeepEqual(h.sleeps, want) {
		t.Errorf("sleeps = %v, want %v", h.sleeps, want)
	}
}

func TestCompleteRequestTimeout(t *testing.T) {
	// The fake holds each request until the client gives up; 50ms is the
	// attempt's deadline, not a measured duration.
	h := newHarness(t, Options{RequestTimeout: 50 * time.Millisecond, MaxRetries: 1})
	h.srv.Reply(fakeopenai.Response{Hang: true}, fakeopenai.Response{Hang: true})
	_, err := h.c.Complete(context.Background(), userRequest("hi"), nil)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if !strings.Contains(err.Error(), "gave up after 2 attempts") || len(h.sleeps) != 1 {
		t.Errorf("err = %q, sleeps %v: want one retry", err, h.sleeps)
	}
}

func TestCompleteParentCancel(t *testing.T) {
	errStop := errors.New("stop pressed")
	tests := []struct {
		name      string
		cause     error // passed to cancel; nil means context.Canceled
		wantCause error
		reply     fakeopenai.Response
		// when says when to cancel: "received" (the server has the
		// request), "delta" (from onDelta), "sleeping" (in the real
		// backoff timer, an hour long unless cancellation cuts it short).
		when string
	}{
		{name: "while waiting for headers", reply: fakeopenai.Response{Hang: true}, when: "received", wantCause: context.Canceled},
		{name: "with a cause", cause: errStop, reply: fakeopenai.Response{Hang: true}, when: "received", wantCause: errStop},
		{name: "mid-stream", reply: fakeopenai.Response{Content: "some text", HangAfterChunks: 2}, when: "delta", wantCause: context.Canceled},
		{name: "during a backoff wait", reply: fakeopenai.Response{Status: 503, RetryAfter: "3600"}, when: "sleeping", wantCause: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			trigger := make(chan struct{}, 1)
			signal := func() {
				select {
				case trigger <- struct{}{}:
				default:
				}
			}
			opts := Options{MaxBackoff: 2 * time.Hour}
			if tt.when == "sleeping" {
				opts.Sleep = func(ctx context.Context, d time.Duration) error {
					signal()
					return sleep(ctx, d)
				}
			}
			h := newHarness(t, opts)
			h.srv.SetHandler(func(fakeopenai.Request) fakeopenai.Response {
				if tt.when == "received" {
					signal()
				}
				return tt.reply
			})
			var onDelta func(llm.Delta)
			if tt.when == "delta" {
				onDelta = func(llm.Delta) { signal() }
			}
			go func() {
				<-trigger
				cancel(tt.cause)
			}()
			_, err := h.c.Complete(ctx, userRequest("hi"), onDelta)
			if !errors.Is(err, tt.wantCause) {
				t.Fatalf("err = %v, want %v", err, tt.wantCause)
			}
			if got := len(h.srv.Requests()); got != 1 {
				t.Errorf("%d requests, want 1", got)
			}
		})
	}
}

func TestLogsOmitKey(t *testing.T) {
	var buf bytes.Buffer
	h := newHarness(t, Options{})
	h.c.lg = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})).With("host", h.c.host)
	h.srv.Reply(fakeopenai.Response{Status: 429, RetryAfter: "1"}, fakeopenai.Response{Status: 401, ErrorMessage: "bad key"})
	h.c.Complete(context.Background(), userRequest("a secret prompt"), nil)
	logs := buf.String()
	for _, bad := range []string{testKey, "a secret prompt"} {
		if strings.Contains(logs, bad) {
			t.Errorf("logs contain %q:\n%s", bad, logs)
		}
	}
	for _, want := range []string{"level=WARN msg=\"openai: retrying\"", "host=127.0.0.1:", "model=gpt-test", "attempt=1", "status=429", "wait=1s", "dur="} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %q:\n%s", want, logs)
		}
	}
}

func TestBackoff(t *testing.T) {
	c := New(nil, Options{Backoff: 500 * time.Millisecond, MaxBackoff: 3 * time.Second})
	tests := []struct {
		name    string
		n       int
		hint    time.Duration
		hasHint bool
		jitter  func(int64) int64
		want    time.Duration
	}{
		{name: "first, top of jitter", n: 1, jitter: func(n int64) int64 { return n - 1 }, want: 500 * time.Millisecond},
		{name: "first, bottom of jitter", n: 1, jitter: func(int64) int64 { return 0 }, want: 250 * time.Millisecond},
		{name: "third", n: 3, jitter: func(n int64) int64 { return n - 1 }, want: 2 * time.Second},
		{name: "capped", n: 4, jitter: func(n int64) int64 { return n - 1 }, want: 3 * time.Second},
		{name: "huge n stays capped", n: 200, jitter: func(n int64) int64 { return n - 1 }, want: 3 * time.Second},
		{name: "hint exact", n: 1, hint: 1200 * time.Millisecond, hasHint: true, want: 1200 * time.Millisecond},
		{name: "hint capped", n: 1, hint: time.Hour, hasHint: true, want: 3 * time.Second},
		{name: "hint zero", n: 2, hint: 0, hasHint: true, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.jitter = tt.jitter
			if got := c.backoff(tt.n, tt.hint, tt.hasHint); got != tt.want {
				t.Errorf("backoff = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
		wantOK bool
	}{
		{"absent", nil, 0, false},
		{"seconds", map[string]string{"Retry-After": "2"}, 2 * time.Second, true},
		{"fractional seconds", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond, true},
		{"milliseconds win", map[string]string{"Retry-After": "2", "Retry-After-Ms": "150"}, 150 * time.Millisecond, true},
		{"HTTP date", map[string]string{"Retry-After": testNow.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second, true},
		{"HTTP date in the past", map[string]string{"Retry-After": testNow.Add(-time.Minute).Format(http.TimeFormat)}, 0, true},
		{"negative", map[string]string{"Retry-After": "-3"}, 0, false},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			got, ok := retryAfter(h, testNow)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("retryAfter = %v, %v; want %v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

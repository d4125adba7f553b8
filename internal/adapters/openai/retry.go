package openai

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryableStatus reports whether a status is worth another attempt:
// 408, 429 and every 5xx.
func retryableStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500 && code <= 599
}

// backoff returns the wait before retry n (1 for the first retry). A
// server's hint (Retry-After) is honoured exactly, capped by MaxBackoff;
// otherwise the wait is Backoff·2^(n-1), capped, with "equal jitter": half
// of it fixed, the other half random, so clients that failed together do
// not come back together.
func (c *Client) backoff(n int, hint time.Duration, hasHint bool) time.Duration {
	maxWait := c.opts.MaxBackoff
	if hasHint {
		return min(max(hint, 0), maxWait)
	}
	d := maxWait
	if shift := n - 1; shift < 32 {
		if exp := c.opts.Backoff << shift; exp > 0 && exp < maxWait {
			d = exp
		}
	}
	half := d / 2
	return half + time.Duration(c.jitter(int64(d-half)+1))
}

// retryAfter reads the server's wait hint: OpenAI's retry-after-ms, else
// Retry-After as seconds or an HTTP date (relative to now). It reports
// false when there is no usable hint.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// sleep waits for d or until ctx ends, returning ctx's cause in that case.
// It is the default Options.Sleep.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}

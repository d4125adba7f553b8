package slack

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	slackapi "github.com/slack-go/slack"
	"golang.org/x/time/rate"
)

// Limit is a rate for one Web API method in one channel: Per calls a
// second on average, with bursts of Burst.
type Limit struct {
	Per   float64
	Burst int
}

// defaultLimits follow Slack's published tiers: chat.postMessage allows
// about one message a second per channel with short bursts; chat.update
// and the rest are Tier 3 (50+ a minute). Methods not listed are not
// spaced, only retried on 429.
var defaultLimits = map[string]Limit{
	"chat.postMessage":   {Per: 1, Burst: 6},
	"chat.update":        {Per: 1, Burst: 6},
	"chat.postEphemeral": {Per: 1, Burst: 6},
	"reactions.add":      {Per: 1, Burst: 4},
}

// limiter spaces Web API calls per method and channel and remembers how
// long Slack asked each to wait after a 429.
type limiter struct {
	limits map[string]Limit
	now    func() time.Time

	mu      sync.Mutex
	rates   map[string]*rate.Limiter
	blocked map[string]time.Time // key -> not before
}

func newLimiter(limits map[string]Limit) *limiter {
	l := &limiter{limits: map[string]Limit{}, now: time.Now, rates: map[string]*rate.Limiter{}, blocked: map[string]time.Time{}}
	for m, v := range defaultLimits {
		l.limits[m] = v
	}
	for m, v := range limits {
		l.limits[m] = v
	}
	return l
}

// wait blocks until a call of method in channel may go out, or ctx ends.
func (l *limiter) wait(ctx context.Context, method, channel string) error {
	key := method + " " + channel
	l.mu.Lock()
	until := l.blocked[key]
	r := l.rates[key]
	if r == nil {
		if lim, ok := l.limits[method]; ok && lim.Per > 0 {
			r = rate.NewLimiter(rate.Limit(lim.Per), max(lim.Burst, 1))
			l.rates[key] = r
		}
	}
	l.mu.Unlock()
	if d := until.Sub(l.now()); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		}
	}
	if r != nil {
		return r.Wait(ctx)
	}
	return nil
}

// block makes calls of method in channel wait d.
func (l *limiter) block(method, channel string, d time.Duration) {
	key := method + " " + channel
	l.mu.Lock()
	defer l.mu.Unlock()
	if until := l.now().Add(d); until.After(l.blocked[key]) {
		l.blocked[key] = until
	}
}

// call runs one Web API call through the limiter: spaced per method and
// channel, and on 429 tried again after Retry-After, up to MaxAttempts
// times, so a limited message is delayed, not lost.
func (a *Adapter) call(ctx context.Context, method, channel string, fn func(context.Context) error) error {
	for attempt := 1; ; attempt++ {
		if err := a.lim.wait(ctx, method, channel); err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		err := fn(ctx)
		var rl *slackapi.RateLimitedError
		if !errors.As(err, &rl) {
			return err
		}
		retry := max(rl.RetryAfter, time.Second)
		if attempt >= a.opts.MaxAttempts {
			return fmt.Errorf("%s: still rate limited after %d attempts: %w", method, attempt, err)
		}
		a.lg.Warn("rate limited by Slack; waiting", "method", method, "channel", channel, "retry_after", retry, "attempt", attempt)
		a.lim.block(method, channel, retry)
	}
}

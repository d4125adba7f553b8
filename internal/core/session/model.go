package session

import (
	"context"
	"time"

	"github.com/threadbot/threadbot/internal/core/chain"
	"github.com/threadbot/threadbot/internal/core/llm"
)

// limitedModel bounds the model requests in flight across all sessions and
// measures them.
type limitedModel struct {
	m       chain.Model
	sem     chan struct{}
	metrics Metrics
}

func (l *limitedModel) Complete(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		return llm.Response{}, context.Cause(ctx)
	}
	defer func() { <-l.sem }()
	start := time.Now()
	resp, err := l.m.Complete(ctx, req, onDelta)
	l.metrics.ModelRequest(time.Since(start), resp.Usage, err)
	return resp, err
}

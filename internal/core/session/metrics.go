package session

import (
	"time"

	"github.com/threadbot/threadbot/internal/core/llm"
)

// Metrics receives measurements; cmd/bot exports them to Prometheus. Every
// method must be cheap and safe for concurrent use.
type Metrics interface {
	Turn(platform, status string, d time.Duration)
	ToolCall(tool, status string, d time.Duration)
	Approval(kind, outcome string, wait time.Duration)
	ModelRequest(d time.Duration, u llm.Usage, err error)
}

type noMetrics struct{}

func (noMetrics) Turn(string, string, time.Duration)           {}
func (noMetrics) ToolCall(string, string, time.Duration)       {}
func (noMetrics) Approval(string, string, time.Duration)       {}
func (noMetrics) ModelRequest(time.Duration, llm.Usage, error) {}

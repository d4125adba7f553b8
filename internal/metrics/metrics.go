// Package metrics exports the runtime's measurements to Prometheus. It
// implements session.Metrics and serves /metrics. It imports core/llm and
// the Prometheus client only.
package metrics

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/threadbot/threadbot/internal/core/llm"
)

// Metrics holds threadbot's collectors in their own registry.
type Metrics struct {
	reg           *prometheus.Registry
	turns         *prometheus.CounterVec
	turnSeconds   *prometheus.HistogramVec
	toolCalls     *prometheus.CounterVec
	toolSeconds   *prometheus.HistogramVec
	approvals     *prometheus.CounterVec
	approvalWait  *prometheus.HistogramVec
	modelRequests *prometheus.CounterVec
	modelSeconds  prometheus.Histogram
	tokens        *prometheus.CounterVec
}

// New returns Metrics registered in a fresh registry, with Go and process
// collectors.
func New() *Metrics {
	buckets := []float64{.01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300}
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		turns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "threadbot_turns_total", Help: "Turns run, by platform and final status.",
		}, []string{"platform", "status"}),
		turnSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "threadbot_turn_duration_seconds", Help: "Wall time of a turn, approvals included.", Buckets: buckets,
		}, []string{"platform"}),
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "threadbot_tool_calls_total", Help: "Tool calls, by tool and status.",
		}, []string{"tool", "status"}),
		toolSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "threadbot_tool_call_duration_seconds", Help: "Duration of a tool call, approval included.", Buckets: buckets,
		}, []string{"tool"}),
		approvals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "threadbot_approvals_total", Help: "Approval requests, by kind and outcome.",
		}, []string{"kind", "outcome"}),
		approvalWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "threadbot_approval_wait_seconds", Help: "Time from an approval request to its decision.", Buckets: buckets,
		}, []string{"kind"}),
		modelRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "threadbot_model_requests_total", Help: "Model requests, by result.",
		}, []string{"result"}),
		modelSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "threadbot_model_request_duration_seconds", Help: "Latency of a model request, streaming included.", Buckets: buckets,
		}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "threadbot_model_tokens_total", Help: "Tokens used, by kind (prompt, completion).",
		}, []string{"kind"}),
	}
	m.reg.MustRegister(m.turns, m.turnSeconds, m.toolCalls, m.toolSeconds, m.approvals, m.approvalWait,
		m.modelRequests, m.modelSeconds, m.tokens,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Turn records a finished turn.
func (m *Metrics) Turn(platform, status string, d time.Duration) {
	m.turns.WithLabelValues(platform, status).Inc()
	m.turnSeconds.WithLabelValues(platform).Observe(d.Seconds())
}

// ToolCall records a finished tool call.
func (m *Metrics) ToolCall(tool, status string, d time.Duration) {
	m.toolCalls.WithLabelValues(tool, status).Inc()
	m.toolSeconds.WithLabelValues(tool).Observe(d.Seconds())
}

// Approval records a decided (or expired) approval.
func (m *Metrics) Approval(kind, outcome string, wait time.Duration) {
	m.approvals.WithLabelValues(kind, outcome).Inc()
	m.approvalWait.WithLabelValues(kind).Observe(wait.Seconds())
}

// ModelRequest records a model request.
func (m *Metrics) ModelRequest(d time.Duration, u llm.Usage, err error) {
	result := "ok"
	switch {
	case err == nil:
	case errors.Is(err, context.Canceled):
		result = "canceled"
	default:
		result = "error"
	}
	m.modelRequests.WithLabelValues(result).Inc()
	m.modelSeconds.Observe(d.Seconds())
	m.tokens.WithLabelValues("prompt").Add(float64(u.PromptTokens))
	m.tokens.WithLabelValues("completion").Add(float64(u.CompletionTokens))
}

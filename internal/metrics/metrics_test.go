package metrics

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/core/llm"
	"github.com/threadbot/threadbot/internal/core/session"
)

var _ session.Metrics = (*Metrics)(nil)

func TestExposition(t *testing.T) {
	m := New()
	m.Turn("slack", "completed", 2*time.Second)
	m.ToolCall("read", "SUCCESS", time.Millisecond)
	m.ToolCall("read", "ERROR", time.Millisecond)
	m.Approval("execution", "approved", 3*time.Second)
	m.ModelRequest(time.Second, llm.Usage{PromptTokens: 100, CompletionTokens: 7}, nil)
	m.ModelRequest(time.Second, llm.Usage{}, context.Canceled)
	m.ModelRequest(time.Second, llm.Usage{}, errors.New("500"))
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{
		`threadbot_turns_total{platform="slack",status="completed"} 1`,
		`threadbot_tool_calls_total{status="ERROR",tool="read"} 1`,
		`threadbot_approvals_total{kind="execution",outcome="approved"} 1`,
		`threadbot_approval_wait_seconds_sum{kind="execution"} 3`,
		`threadbot_model_requests_total{result="canceled"} 1`,
		`threadbot_model_requests_total{result="error"} 1`,
		`threadbot_model_tokens_total{kind="prompt"} 100`,
		`go_goroutines`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

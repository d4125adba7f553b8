package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/threadbot/threadbot/internal/core/executor"
)

type textArgs struct {
	Text string `json:"text"`
}

// httpServer serves an SDK server with an echo tool over streamable HTTP
// on 127.0.0.1; requests without the bearer token get 401.
func httpServer(t *testing.T, token string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "remote", Version: "v1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the text back."},
		func(_ context.Context, _ *sdk.CallToolRequest, in textArgs) (*sdk.CallToolResult, any, error) {
			return result(&sdk.TextContent{Text: "remote: " + in.Text}), nil, nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	var authorized atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		authorized.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts, &authorized
}

func TestStreamableHTTPServer(t *testing.T) {
	ts, authorized := httpServer(t, "tok-secret-123")
	groups, _, errs := connectAll(t, Server{
		Name:    "remote",
		URL:     ts.URL,
		Headers: map[string]string{"Authorization": "Bearer tok-secret-123"},
	})
	if len(errs) > 0 {
		t.Fatalf("errs = %v", errs)
	}
	x, asked := newExecutor(t, groups...)
	r := execute(t, x, "remote_echo", map[string]any{"text": "over http"})
	if r.Status != executor.StatusSuccess || r.Text != "remote: over http" {
		t.Errorf("got %s %q, want SUCCESS %q", r.Status, r.Text, "remote: over http")
	}
	if authorized.Load() == 0 {
		t.Error("no request carried the configured header")
	}
	if n := asked.count(); n != 1 {
		t.Errorf("approvals asked = %d, want 1 (ask-always by default)", n)
	}
}

func TestStreamableHTTPFailureRedacted(t *testing.T) {
	ts, _ := httpServer(t, "right-token")
	lg, logs := testLogger(t)
	groups, clients, errs := Connect(t.Context(), lg, []Server{{
		Name:    "remote",
		URL:     ts.URL + "/mcp?api_key=query-secret-456",
		Headers: map[string]string{"Authorization": "Bearer wrong-secret-789"},
	}})
	defer clients.Close()
	if len(groups) != 0 || len(errs) != 1 {
		t.Fatalf("groups = %d, errs = %v; want none and one error", len(groups), errs)
	}
	msg := errs[0].Error()
	if !strings.Contains(msg, `mcp server "remote"`) {
		t.Errorf("err = %q, want it to name the server", msg)
	}
	for _, secret := range []string{"query-secret-456", "wrong-secret-789"} {
		if strings.Contains(msg, secret) || strings.Contains(logs.String(), secret) {
			t.Errorf("%q leaked: err = %q\nlogs:\n%s", secret, msg, logs)
		}
	}
}

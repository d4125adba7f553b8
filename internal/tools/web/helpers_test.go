package web

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/threadbot/threadbot/internal/core/executor"
)

// counted is an httptest server that counts the requests it receives.
type counted struct {
	*httptest.Server
	hits atomic.Int64
}

func newCounted(t *testing.T, h http.HandlerFunc) *counted {
	t.Helper()
	c := &counted{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(c.Close)
	return c
}

// port returns the server's port.
func (c *counted) port() string {
	_, p, _ := net.SplitHostPort(c.Listener.Addr().String())
	return p
}

// approvals counts the approvals an executor asked for; every request is
// approved, so a refusal in a test comes from the guard.
type approvals struct{ n atomic.Int64 }

func (a *approvals) Approve(context.Context, executor.ApprovalRequest) (executor.Decision, error) {
	a.n.Add(1)
	return executor.Decision{Approved: true}, nil
}

// newExec returns an executor with the web group registered and enabled.
func newExec(t *testing.T, opts Options) (*executor.Executor, *approvals) {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(testWriter{t}, nil))
	}
	if opts.LookupIP == nil {
		opts.LookupIP = fakeDNS(nil) // no test sends a DNS query
	}
	a := &approvals{}
	x := executor.New(nil, executor.Options{SessionID: "s", Approver: a})
	if err := x.Register(Group(opts)); err != nil {
		t.Fatalf("Register: %v", err)
	}
	if err := x.SetGroupEnabled(GroupName, true); err != nil {
		t.Fatalf("SetGroupEnabled: %v", err)
	}
	return x, a
}

// testWriter routes logs to t.Log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

var callN atomic.Int64

// execute runs one call with a fresh call id.
func execute(t *testing.T, x *executor.Executor, tool string, args map[string]any) executor.Result {
	t.Helper()
	id := fmt.Sprintf("c%d", callN.Add(1))
	return x.Execute(context.Background(), tool, args, executor.CallOptions{CallID: id})
}

// fakeDNS resolves a fixed table of names and nothing else, so no test
// sends a DNS query.
func fakeDNS(table map[string][]string) func(ctx context.Context, host string) ([]net.IP, error) {
	return func(ctx context.Context, host string) ([]net.IP, error) {
		addrs, ok := table[host]
		if !ok {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		var ips []net.IP
		for _, a := range addrs {
			ips = append(ips, net.ParseIP(a))
		}
		return ips, nil
	}
}

// wantSuccess fails the test unless r succeeded.
func wantSuccess(t *testing.T, r executor.Result) {
	t.Helper()
	if r.Status != executor.StatusSuccess {
		t.Fatalf("status = %s, want SUCCESS; text:\n%s", r.Status, r.Text)
	}
}

// wantError fails the test unless r failed with a text containing want.
func wantError(t *testing.T, r executor.Result, want string) {
	t.Helper()
	if r.Status != executor.StatusError {
		t.Fatalf("status = %s, want ERROR; text:\n%s", r.Status, r.Text)
	}
	if !strings.Contains(r.Text, want) {
		t.Errorf("text = %q, want it to contain %q", r.Text, want)
	}
}

func contains(t *testing.T, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("text does not contain %q; text:\n%s", w, text)
		}
	}
}

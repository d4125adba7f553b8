package session_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/core/session"
)

// event is one call the runtime made on the fake platform.
type event struct {
	Op   string // post, edit, approval, resolve, upload, react
	Key  session.Key
	Ref  session.Ref
	Out  session.Out
	Appr session.ApprovalPrompt
	Outc session.Outcome
}

// fakePlatform records what the runtime shows and signals turn ends.
type fakePlatform struct {
	name string
	mu   sync.Mutex
	n    int
	log  []event
	// done receives the thread key whenever a status message gets its
	// final edit (a turn ended).
	done chan session.Key
	// approvals receives every approval request posted.
	approvals chan session.ApprovalPrompt
}

func newFakePlatform(name string) *fakePlatform {
	return &fakePlatform{name: name, done: make(chan session.Key, 1000), approvals: make(chan session.ApprovalPrompt, 100)}
}

func (f *fakePlatform) Name() string { return f.name }

func (f *fakePlatform) add(e event) session.Ref {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e.Ref == "" {
		f.n++
		e.Ref = session.Ref(fmt.Sprint("m", f.n))
	}
	f.log = append(f.log, e)
	return e.Ref
}

func (f *fakePlatform) Post(_ context.Context, k session.Key, m session.Out) (session.Ref, error) {
	return f.add(event{Op: "post", Key: k, Out: m}), nil
}

func (f *fakePlatform) Edit(_ context.Context, k session.Key, ref session.Ref, m session.Out) error {
	f.add(event{Op: "edit", Key: k, Ref: ref, Out: m})
	if m.Kind == session.OutStatus && m.Final {
		f.done <- k
	}
	return nil
}

func (f *fakePlatform) PostApproval(_ context.Context, k session.Key, a session.ApprovalPrompt) (session.Ref, error) {
	ref := f.add(event{Op: "approval", Key: k, Appr: a})
	f.approvals <- a
	return ref, nil
}

func (f *fakePlatform) ResolveApproval(_ context.Context, k session.Key, ref session.Ref, a session.ApprovalPrompt, o session.Outcome) error {
	f.add(event{Op: "resolve", Key: k, Ref: ref, Appr: a, Outc: o})
	return nil
}

func (f *fakePlatform) Upload(_ context.Context, k session.Key, file session.File) error {
	f.add(event{Op: "upload", Key: k, Out: session.Out{Text: file.Name}})
	return nil
}

func (f *fakePlatform) React(_ context.Context, k session.Key, ref session.Ref, emoji string) error {
	f.add(event{Op: "react", Key: k, Ref: ref, Out: session.Out{Text: emoji}})
	return nil
}

// events returns the recorded events of a thread.
func (f *fakePlatform) events(k session.Key) []event {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []event
	for _, e := range f.log {
		if e.Key == k {
			out = append(out, e)
		}
	}
	return out
}

// answers returns the final answer texts of a thread in order.
func (f *fakePlatform) answers(k session.Key) []string {
	var out []string
	for _, e := range f.events(k) {
		if e.Out.Kind == session.OutAnswer && e.Out.Final {
			out = append(out, e.Out.Text)
		}
	}
	return out
}

// waitDone waits for n turn ends in any thread.
func (f *fakePlatform) waitDone(t testing.TB, n int) []session.Key {
	t.Helper()
	var keys []session.Key
	timeout := time.After(60 * time.Second) // a hang guard, not a timing assertion
	for len(keys) < n {
		select {
		case k := <-f.done:
			keys = append(keys, k)
		case <-timeout:
			t.Fatalf("only %d of %d turns ended", len(keys), n)
		}
	}
	return keys
}

func (f *fakePlatform) waitApproval(t testing.TB) session.ApprovalPrompt {
	t.Helper()
	select {
	case a := <-f.approvals:
		return a
	case <-time.After(60 * time.Second):
		t.Fatal("no approval request posted")
	}
	return session.ApprovalPrompt{}
}

func (f *fakePlatform) waitDoneB(b testing.TB, n int) { f.waitDone(b, n) }

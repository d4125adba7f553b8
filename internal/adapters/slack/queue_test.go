package slack

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// Messages of one thread are handled in order; a message blocked in one
// thread does not hold up a thread on another worker; once the shutdown
// begins nothing more is queued (the caller then does not acknowledge it)
// and the messages already queued are still handled.
func TestQueuesOrderPerThreadAndDrain(t *testing.T) {
	a := New(nil, Options{BotToken: "xoxb-test"})
	stop := a.startWorkers(context.Background())
	blocked, other := "C1 1.0", ""
	for i := 2; other == ""; i++ {
		if k := fmt.Sprintf("C1 %d.0", i); fnv32(k)%eventWorkers != fnv32(blocked)%eventWorkers {
			other = k
		}
	}
	release := make(chan struct{})
	if !a.offer(blocked, func(context.Context) { <-release }) {
		t.Fatal("offer refused")
	}
	var mu sync.Mutex
	var order []int
	for i := range 50 {
		a.offer(blocked, func(context.Context) {
			mu.Lock()
			defer mu.Unlock()
			order = append(order, i)
		})
	}
	ran := make(chan struct{})
	a.offer(other, func(context.Context) { close(ran) })
	select {
	case <-ran:
	case <-time.After(30 * time.Second): // a hang guard, not a timing assertion
		t.Fatal("a message of another thread waited for the blocked one")
	}
	// The shutdown, as Run does it, with 50 messages queued behind the
	// blocked one; an offer made while it runs is refused.
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	deadline := time.Now().Add(30 * time.Second) // a hang guard, not a timing assertion
	for a.offer(other, func(context.Context) {}) {
		select {
		case <-stopped:
			t.Fatal("the shutdown ended before the blocked message was released")
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("offer kept accepting messages after the shutdown began")
		}
	}
	close(release)
	<-stopped
	want := make([]int, 50)
	for i := range want {
		want[i] = i
	}
	if !slices.Equal(order, want) {
		t.Errorf("handled %v, want all 50 in order", order)
	}
}

// Past maxQueued waiting messages, offer refuses (the message is not
// acknowledged, so Slack sends it again) instead of blocking the reader.
func TestQueueBounded(t *testing.T) {
	a := New(nil, Options{BotToken: "xoxb-test"})
	for i := range maxQueued {
		if !a.offer(fmt.Sprint("C1 ", i), func(context.Context) {}) {
			t.Fatalf("offer %d refused below the bound", i)
		}
	}
	if a.offer("C1 x", func(context.Context) {}) {
		t.Error("offer accepted past the bound")
	}
	a.next(a.queues[fnv32("C1 0")%eventWorkers])
	if !a.offer("C1 x", func(context.Context) {}) {
		t.Error("offer refused after a message was taken")
	}
}

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
// thread does not hold up a thread on another worker; at shutdown the
// messages already queued are still handled, with a live context.
func TestQueuesOrderPerThreadAndDrain(t *testing.T) {
	a := New(nil, Options{BotToken: "xoxb-test"})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, q := range a.queues {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.processEvents(ctx, q)
		}()
	}
	blocked, other := "C1 1.0", ""
	for i := 2; other == ""; i++ {
		if k := fmt.Sprintf("C1 %d.0", i); fnv32(k)%eventWorkers != fnv32(blocked)%eventWorkers {
			other = k
		}
	}
	release := make(chan struct{})
	a.enqueue(ctx, blocked, func(context.Context) { <-release })
	var mu sync.Mutex
	var order []int
	var cancelled int
	for i := range 50 {
		a.enqueue(ctx, blocked, func(ctx context.Context) {
			mu.Lock()
			defer mu.Unlock()
			order = append(order, i)
			if ctx.Err() != nil {
				cancelled++
			}
		})
	}
	ran := make(chan struct{})
	a.enqueue(ctx, other, func(context.Context) { close(ran) })
	select {
	case <-ran:
	case <-time.After(30 * time.Second): // a hang guard, not a timing assertion
		t.Fatal("a message of another thread waited for the blocked one")
	}
	cancel() // shutdown with 50 messages queued behind the blocked one
	close(release)
	wg.Wait()
	want := make([]int, 50)
	for i := range want {
		want[i] = i
	}
	if !slices.Equal(order, want) {
		t.Errorf("handled %v, want all 50 in order", order)
	}
	if cancelled != 0 {
		t.Errorf("%d queued messages were handled with a cancelled context", cancelled)
	}
}

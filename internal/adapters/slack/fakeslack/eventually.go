package fakeslack

import (
	"testing"
	"time"
)

// Eventually polls cond every 5ms until it returns true, and fails the test
// with what if that takes more than 30s. It waits for asynchronous effects;
// it is not a way to assert that something is fast.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("fakeslack: timed out after 30s waiting for %s", what)
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

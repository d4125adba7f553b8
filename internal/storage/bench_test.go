package storage_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/core/llm"
	"github.com/threadbot/threadbot/internal/core/vars"
	"github.com/threadbot/threadbot/internal/storage"
	"github.com/threadbot/threadbot/internal/storage/storagetest"
)

// benchTurn is a typical turn: the compressed assistant message (1 KB of
// content, 2 KB of tool-chain JSON), 20 cached tool results and arguments
// of 1 KB each, 3 audit rows and the inbound event id.
func benchTurn(sessionID string, n int) storage.Turn {
	now := time.Now()
	t := storage.Turn{
		SessionID: sessionID,
		Messages: []storage.Message{{
			Role: "assistant", Content: strings.Repeat("c", 1<<10), HintSize: 300,
			ChainJSON: []byte(`{"x":"` + strings.Repeat("j", 2<<10) + `"}`),
			Usage:     llm.Usage{PromptTokens: 1000, CompletionTokens: 200, TotalTokens: 1200},
		}},
		EventPlatform: "bench",
		EventID:       fmt.Sprintf("%s-%d", sessionID, n),
	}
	for i := range 20 {
		t.VarUpserts = append(t.VarUpserts, vars.Variable{
			Name: fmt.Sprintf("web_fetch_call%d_%d_result", n, i), Value: strings.Repeat("v", 1<<10),
			Desc: "result", Type: vars.TypeToolCallResult, Tags: []string{"web"},
			Created: now, Updated: now, LastVisited: now,
		})
	}
	for i := range 3 {
		t.Audit = append(t.Audit, storage.AuditEntry{Kind: storage.AuditToolCall, Tool: "web_fetch",
			CallID: fmt.Sprint(i), Status: "SUCCESS", Duration: time.Second})
	}
	return t
}

func benchStore(b *testing.B) *storage.SQLite {
	s, err := storage.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkSaveTurn writes one turn (one message, 20 variables, 3 audit
// rows, an event id) per op, in one transaction, to one session.
func BenchmarkSaveTurn(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b)
	if _, err := s.EnsureSession(ctx, storagetest.Session("s1")); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if err := s.SaveTurn(ctx, benchTurn("s1", n)); err != nil {
			b.Fatal(err)
		}
		n++
	}
}

// BenchmarkSaveTurnParallel writes the same turns from GOMAXPROCS
// goroutines to 50 sessions, all through the single writer connection.
func BenchmarkSaveTurnParallel(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b)
	for i := range 50 {
		if _, err := s.EnsureSession(ctx, storagetest.Session(fmt.Sprintf("s%02d", i))); err != nil {
			b.Fatal(err)
		}
	}
	var next atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n := next.Add(1)
			if err := s.SaveTurn(ctx, benchTurn(fmt.Sprintf("s%02d", n%50), int(n))); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkLoadSession restores a session of 1,000 messages (1 KB content,
// 2 KB chain JSON each) and 1,000 variables (1 KB each): about 4 MB.
func BenchmarkLoadSession(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b)
	if _, err := s.EnsureSession(ctx, storagetest.Session("s1")); err != nil {
		b.Fatal(err)
	}
	for n := range 50 { // 50 turns of 20 messages and 20 variables
		t := benchTurn("s1", n)
		for range 19 {
			t.Messages = append(t.Messages, t.Messages[0])
		}
		if err := s.SaveTurn(ctx, t); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		snap, err := s.LoadSession(ctx, "s1")
		if err != nil {
			b.Fatal(err)
		}
		if len(snap.Messages) != 1000 || len(snap.Vars) != 1000 {
			b.Fatalf("%d messages, %d vars", len(snap.Messages), len(snap.Vars))
		}
	}
}

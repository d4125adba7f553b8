package session

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// streamer shows streamed answer text by posting a message and editing it,
// at most once per interval; later text waits for a timer so nothing is
// lost and the platform's rate limits are respected.
type streamer struct {
	ctx      context.Context
	lg       *slog.Logger
	p        Platform
	key      Key
	interval time.Duration // < 0: no intermediate edits

	mu    sync.Mutex
	ref   Ref
	buf   strings.Builder
	last  time.Time
	dirty bool
	timer *time.Timer
}

func (st *streamer) write(delta string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.buf.WriteString(delta)
	st.dirty = true
	if st.interval < 0 || strings.TrimSpace(st.buf.String()) == "" {
		return
	}
	if st.ref == "" {
		ref, err := st.p.Post(st.ctx, st.key, Out{Kind: OutAnswer, Text: st.buf.String()})
		if err != nil {
			st.lg.Warn("post streamed answer", "err", err)
			return
		}
		st.ref, st.last, st.dirty = ref, time.Now(), false
		return
	}
	if wait := st.interval - time.Since(st.last); wait > 0 {
		if st.timer == nil {
			st.timer = time.AfterFunc(wait, st.flush)
		}
		return
	}
	st.editLocked(false)
}

func (st *streamer) flush() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.timer = nil
	if st.dirty && st.ref != "" {
		st.editLocked(false)
	}
}

func (st *streamer) editLocked(final bool) {
	if err := st.p.Edit(st.ctx, st.key, st.ref, Out{Kind: OutAnswer, Text: st.buf.String(), Final: final}); err != nil {
		st.lg.Warn("edit streamed answer", "err", err)
	}
	st.last, st.dirty = time.Now(), false
}

// cut ends the current message (a tool call starts); later text goes to a
// new message below the tool log.
func (st *streamer) cut() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.stopLocked()
	text := strings.TrimSpace(st.buf.String())
	switch {
	case st.ref != "":
		st.editLocked(true)
	case text != "":
		if _, err := st.p.Post(st.ctx, st.key, Out{Kind: OutAnswer, Text: text, Final: true}); err != nil {
			st.lg.Warn("post answer", "err", err)
		}
	}
	st.ref = ""
	st.buf.Reset()
	st.dirty = false
}

// finish shows the final answer in the streamed message, or posts it.
func (st *streamer) finish(final string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.stopLocked()
	st.buf.Reset()
	st.buf.WriteString(final)
	if st.ref != "" {
		st.editLocked(true)
		return
	}
	if strings.TrimSpace(final) == "" {
		return
	}
	ref, err := st.p.Post(st.ctx, st.key, Out{Kind: OutAnswer, Text: final, Final: true})
	if err != nil {
		st.lg.Warn("post answer", "err", err)
		return
	}
	st.ref = ref
}

// abandon closes a streamed message that will get no more text, adding
// note; it posts nothing when no text was shown.
func (st *streamer) abandon(note string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.stopLocked()
	if st.ref == "" {
		return
	}
	st.buf.WriteString(note)
	st.editLocked(true)
}

func (st *streamer) stopLocked() {
	if st.timer != nil {
		st.timer.Stop()
		st.timer = nil
	}
}

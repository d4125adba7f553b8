package session_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/threadbot/threadbot/internal/core/chain"
	"github.com/threadbot/threadbot/internal/core/llm"
	"github.com/threadbot/threadbot/internal/core/session"
)

// Attached files land in the thread's sandbox under uploads/, never outside
// it and never over another file, and the model is told where they are.
func TestAttachedFilesSavedInSandbox(t *testing.T) {
	h := newHarness(t, nil)
	h.model.Func = func(req llm.Request) chain.ScriptReply { return chain.ScriptReply{Response: text("got it")} }
	k := key("files")
	files := []session.File{
		{Name: "data.csv", MIMEType: "text/csv", Data: []byte("a,b\n1,2\n")},
		{Name: "data.csv", MIMEType: "text/csv", Data: []byte("second")},
		{Name: "../../escape.txt", Data: []byte("x")},
		{Name: "..", Data: []byte("y")},
		{Name: "a\u2028b\u202etxt.exe\u200b", Data: []byte("z")},
	}
	in := session.Inbound{Key: k, User: "U1", Text: "look at these", EventID: "F1", Files: files}
	if ok, err := h.m.Handle(context.Background(), in); !ok || err != nil {
		t.Fatalf("Handle = %v, %v", ok, err)
	}
	if ok, _ := h.m.Handle(context.Background(), in); ok { // redelivered while queued or running
		t.Error("redelivered message accepted")
	}
	h.plat.waitDone(t, 1)

	uploads := filepath.Join(h.opts.WorkspaceRoot, k.ID(), session.UploadsDir)
	want := map[string]string{"data.csv": "a,b\n1,2\n", "data-2.csv": "second", "_.._escape.txt": "x", "file": "y", "abtxt.exe": "z"}
	entries, err := os.ReadDir(uploads)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		b, _ := os.ReadFile(filepath.Join(uploads, e.Name()))
		if w, ok := want[e.Name()]; !ok || string(b) != w {
			t.Errorf("uploads/%s holds %q; want %q (known: %v)", e.Name(), b, w, ok)
		}
	}
	if len(names) != len(want) {
		t.Errorf("uploads = %q, want %d files", names, len(want))
	}
	if _, err := os.Stat(filepath.Join(h.opts.WorkspaceRoot, "escape.txt")); err == nil {
		t.Error("a file name escaped the sandbox")
	}

	got := lastUser(h.model.Requests()[0])
	for _, s := range []string{"look at these", "uploads/data.csv (8 bytes, text/csv)", "uploads/data-2.csv", "uploads/_.._escape.txt", "uploads/file"} {
		if !strings.Contains(got, s) {
			t.Errorf("the model's message lacks %q:\n%s", s, got)
		}
	}

	// A redelivery after the turn saves nothing either.
	if ok, _ := h.m.Handle(context.Background(), in); ok {
		t.Error("redelivered message accepted")
	}
	after, _ := os.ReadDir(uploads)
	if len(after) != len(entries) {
		t.Errorf("redelivery wrote files: %d, was %d", len(after), len(entries))
	}
	// The stored message is the text with the note, not the data.
	msgs, _ := h.db.Messages(context.Background(), k.ID(), 10)
	if len(msgs) != 2 || !strings.Contains(msgs[0].Content, "uploads/data.csv") || strings.Contains(msgs[0].Content, "a,b") {
		t.Errorf("stored user message = %q", msgs[0].Content)
	}
}

// An uploads folder that a tool replaced with a symlink out of the sandbox
// is not written through; the model is told the files were not saved.
func TestAttachedFilesStayInSandbox(t *testing.T) {
	h := newHarness(t, nil)
	h.model.Func = func(req llm.Request) chain.ScriptReply { return chain.ScriptReply{Response: text("ok")} }
	k := key("escape")
	outside := t.TempDir()
	sandbox := filepath.Join(h.opts.WorkspaceRoot, k.ID())
	if err := os.MkdirAll(sandbox, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(sandbox, session.UploadsDir)); err != nil {
		t.Fatal(err)
	}
	in := session.Inbound{Key: k, User: "U1", Text: "here", EventID: "X1", Files: []session.File{{Name: "a.txt", Data: []byte("secret")}}}
	if _, err := h.m.Handle(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	h.plat.waitDone(t, 1)
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("a file was written outside the sandbox: %v", entries)
	}
	if got := lastUser(h.model.Requests()[0]); !strings.Contains(got, "a.txt: not saved") {
		t.Errorf("the model was told %q", got)
	}
}

// Attached files are saved once per message: not again for a redelivery
// after a restart (while its turn waits for an approval), and a message
// replayed after a restart still tells the model where its files are.
func TestAttachedFilesAcrossRestarts(t *testing.T) {
	h := newHarness(t, nil)
	asked := blockingModel(h)
	k := key("files-restart")
	file := []session.File{{Name: "log.txt", Data: []byte("boom")}}
	h.send(k, "U1", "long job", "E1")
	<-h.entered
	in := session.Inbound{Key: k, User: "U1", Text: "read this", EventID: "E2", Files: file}
	if ok, err := h.m.Handle(context.Background(), in); !ok || err != nil {
		t.Fatalf("Handle = %v, %v", ok, err)
	}
	h.stop() // E2 waits behind E1: it stays in the inbox
	h.start()
	h.plat.waitDone(t, 1)
	if got := asked(); len(got) != 2 || !strings.Contains(got[1], "read this") || !strings.Contains(got[1], "uploads/log.txt (4 bytes)") {
		t.Errorf("after the restart the model was asked %q, want the replayed message with its file note", got)
	}

	// A turn waiting for an approval over a restart, then its event again.
	h.model.Func = nil
	h.model.Push(tools(tc("c1", "Shell", `{"cmd":"cat uploads/a.txt"}`)))
	in = session.Inbound{Key: k, User: "U1", Text: "check a", EventID: "E3", Files: []session.File{{Name: "a.txt", Data: []byte("a")}}}
	if ok, err := h.m.Handle(context.Background(), in); !ok || err != nil {
		t.Fatalf("Handle = %v, %v", ok, err)
	}
	h.plat.waitApproval(t)
	h.stop()
	h.start()
	if ok, _ := h.m.Handle(context.Background(), in); ok {
		t.Error("the redelivered message was accepted")
	}
	entries, _ := os.ReadDir(filepath.Join(h.opts.WorkspaceRoot, k.ID(), session.UploadsDir))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"a.txt", "log.txt"}) {
		t.Errorf("uploads = %q, want each file once", names)
	}
}

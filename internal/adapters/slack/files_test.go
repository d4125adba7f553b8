package slack_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/threadbot/threadbot/internal/adapters/slack"
	"github.com/threadbot/threadbot/internal/adapters/slack/fakeslack"
	"github.com/threadbot/threadbot/internal/core/session"
	"github.com/threadbot/threadbot/internal/fakeopenai"
)

// Files people attach are downloaded with the bot token into the thread's
// sandbox (uploads/), once per message; one over the size limit is not,
// and the model is told which is which. A file-only message in a thread
// the bot takes part in is answered.
func TestAttachedFiles(t *testing.T) {
	e := newEnv(t, envOpts{maxFileBytes: 1024})
	e.model.SetHandler(func(req fakeopenai.Request) fakeopenai.Response { return answer("noted") })

	notes := e.fs.AddFile(alice, "notes.txt", []byte("buy milk\n"))
	big := e.fs.AddFile(alice, "big.bin", make([]byte, 4096))
	text := "<@" + bot + "> summarise these"
	ts := e.fs.AddMessage(fakeslack.Message{Channel: channel, User: alice, Text: text, FileIDs: []string{notes.ID, big.ID}})
	// Slack sends the app_mention and the message event of one message.
	e.send("events_api", e.fs.EventCallback("", e.fs.AttachFiles(e.fs.AppMention(channel, alice, text, ts, ""), notes.ID, big.ID)), 0)
	e.send("events_api", e.fs.EventCallback("", e.fs.AttachFiles(e.fs.UserMessage(channel, "channel", alice, text, ts, ""), notes.ID, big.ID)), 0)
	e.waitDone(channel, ts)

	key := session.Key{Platform: slack.Name, Workspace: fakeslack.DefaultTeamID, Channel: channel, Thread: ts}
	uploads := filepath.Join(e.ws, key.ID(), session.UploadsDir)
	if b, err := os.ReadFile(filepath.Join(uploads, "notes.txt")); err != nil || string(b) != "buy milk\n" {
		t.Errorf("uploads/notes.txt = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(uploads, "big.bin")); err == nil {
		t.Error("a file over the limit was saved")
	}
	first := lastUserText(e.model.Requests()[0])
	for _, want := range []string{"summarise these", "uploads/notes.txt (9 bytes, text/plain", "big.bin: not downloaded (4 KB, over the 1 KB limit)"} {
		if !strings.Contains(first, want) {
			t.Errorf("the model's message lacks %q:\n%s", want, first)
		}
	}
	for _, f := range e.fs.Files() {
		if want := map[string]int{notes.ID: 1, big.ID: 0}[f.ID]; f.Downloads != want {
			t.Errorf("%s downloaded %d times, want %d", f.Name, f.Downloads, want)
		}
	}

	// A file without words, in the thread.
	csv := e.fs.AddFile(alice, "data.csv", []byte("a,b\n"))
	ts2 := e.fs.AddMessage(fakeslack.Message{Channel: channel, User: alice, ThreadTS: ts, FileIDs: []string{csv.ID}})
	e.send("events_api", e.fs.EventCallback("", e.fs.AttachFiles(e.fs.UserMessage(channel, "channel", alice, "", ts2, ts), csv.ID)), 0)
	fakeslack.Eventually(t, "the second turn", func() bool { return len(e.model.Requests()) == 2 })
	if got := lastUserText(e.model.Requests()[1]); !strings.Contains(got, "uploads/data.csv") {
		t.Errorf("file-only message reached the model as %q", got)
	}
	entries, _ := os.ReadDir(uploads)
	var names []string
	for _, en := range entries {
		names = append(names, en.Name())
	}
	if !slices.Equal(names, []string{"data.csv", "notes.txt"}) {
		t.Errorf("uploads = %q", names)
	}

	// A file whose URL is not Slack's never gets the token.
	var leaked atomic.Bool
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			leaked.Store(true)
		}
		w.Write([]byte("gotcha"))
	}))
	defer evil.Close()
	ev := e.fs.UserMessage(channel, "channel", alice, "and this one", "", ts)
	ev["subtype"] = "file_share"
	ev["files"] = []map[string]any{{"id": "FEVIL", "name": "evil.txt", "mimetype": "text/plain", "size": 6, "mode": "hosted",
		"url_private": evil.URL + "/evil.txt", "url_private_download": evil.URL + "/evil.txt"}}
	e.send("events_api", e.fs.EventCallback("", ev), 0)
	fakeslack.Eventually(t, "the third turn", func() bool { return len(e.model.Requests()) == 3 })
	if got := lastUserText(e.model.Requests()[2]); !strings.Contains(got, "evil.txt: not downloaded (download failed)") {
		t.Errorf("model saw %q", got)
	}
	if leaked.Load() {
		t.Error("the bot token was sent to a host that is not Slack's")
	}
}

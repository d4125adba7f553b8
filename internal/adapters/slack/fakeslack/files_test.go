package fakeslack

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
)

func TestUploadFileV2(t *testing.T) {
	srv := newServer(t)
	api := newAPI(srv)
	root := srv.AddMessage(Message{Channel: "C1", User: "U1", Text: "send me the log"})

	const content = "line 1\nline 2 — ünïcode\n"
	sum, err := api.UploadFileContext(context.Background(), slack.UploadFileParameters{
		Content:         content,
		FileSize:        len(content),
		Filename:        "run.log",
		Title:           "Run log",
		Channel:         "C1",
		ThreadTimestamp: root,
		InitialComment:  "here it is",
	})
	if err != nil {
		t.Fatal(err)
	}
	files := srv.Files()
	if len(files) != 1 {
		t.Fatalf("%d files, want 1", len(files))
	}
	f := files[0]
	if f.ID != sum.ID || f.Title != "Run log" || string(f.Content) != content || f.Length != len(content) || !f.Uploaded || !f.Completed {
		t.Errorf("file = %+v, summary %+v", f, sum)
	}
	if f.Channel != "C1" || f.ThreadTS != root || f.InitialComment != "here it is" || f.MessageTS == "" {
		t.Errorf("file share = %+v", f)
	}

	thread := srv.Thread("C1", root)
	if len(thread) != 2 || thread[1].Text != "here it is" || len(thread[1].FileIDs) != 1 || thread[1].FileIDs[0] != f.ID || thread[1].BotID != DefaultBotID {
		t.Fatalf("thread = %+v", thread)
	}

	// The share reads back through conversations.replies, and the bot token
	// downloads the file from url_private.
	msgs, _, _, err := api.GetConversationReplies(&slack.GetConversationRepliesParameters{ChannelID: "C1", Timestamp: root})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || len(msgs[1].Files) != 1 || msgs[1].Files[0].Name != "run.log" || msgs[1].Files[0].Size != len(content) {
		t.Fatalf("replies = %+v", msgs)
	}
	var buf bytes.Buffer
	if err := api.GetFile(msgs[1].Files[0].URLPrivate, &buf); err != nil {
		t.Fatal(err)
	}
	if buf.String() != content {
		t.Errorf("downloaded %q", buf.String())
	}
	if err := slack.New("xoxb-other", slack.OptionAPIURL(srv.APIURL())).GetFile(msgs[1].Files[0].URLPrivate, &buf); err == nil {
		t.Error("download with another token succeeded")
	}
}

func TestSign(t *testing.T) {
	srv := newServer(t)
	body := []byte(srv.SlashCommandForm("/ask", "hi there", "U1", "C1").Encode())
	const secret = "s3cret"

	tests := []struct {
		name   string
		secret string
		ts     time.Time
		ok     bool
	}{
		{"valid", secret, time.Now(), true},
		{"wrong secret", "other", time.Now(), false},
		{"stale", secret, time.Now().Add(-10 * time.Minute), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := Sign(tt.secret, tt.ts, body)
			v, err := slack.NewSecretsVerifier(h, secret)
			if err == nil {
				v.Write(body)
				err = v.Ensure()
			}
			if (err == nil) != tt.ok {
				t.Errorf("verify: err = %v, want ok %v", err, tt.ok)
			}
		})
	}

	// The signed form parses as a slash command.
	req := httptest.NewRequest(http.MethodPost, "/slack/commands", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	cmd, err := slack.SlashCommandParse(req)
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Command != "/ask" || cmd.Text != "hi there" || !strings.HasPrefix(cmd.ResponseURL, srv.URL()+"/response/") {
		t.Errorf("command = %+v", cmd)
	}
}

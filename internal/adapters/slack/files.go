package slack

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	slackapi "github.com/slack-go/slack"

	"github.com/threadbot/threadbot/internal/core/session"
)

// Limits on the files people attach, per message.
const (
	defaultMaxFileBytes = 10 << 20
	maxFilesPerMessage  = 10
)

var errFileTooLarge = errors.New("file too large")

// capped is a buffer that refuses to grow past max bytes.
type capped struct {
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) > c.max {
		return 0, errFileTooLarge
	}
	return c.buf.Write(p)
}

// download fetches the files attached to a message with the bot token
// (slack-go sends the token only to Slack's hosts or the API URL). A file
// it does not fetch (too large, external, unreadable, over the count) is
// described in notes instead, so the model is told.
func (a *Adapter) download(ctx context.Context, files []slackapi.File) (got []session.File, notes []string) {
	limit := a.opts.MaxFileBytes
	for i, f := range files {
		name := f.Name
		if name == "" {
			name = f.Title
		}
		url := f.URLPrivateDownload
		if url == "" {
			url = f.URLPrivate
		}
		switch {
		case i >= maxFilesPerMessage:
			notes = append(notes, fmt.Sprintf("%s: not downloaded (only the first %d files of a message are)", name, maxFilesPerMessage))
			continue
		case f.IsExternal || f.Mode == "external":
			notes = append(notes, fmt.Sprintf("%s: not downloaded (an external link: %s)", name, f.URLPrivate))
			continue
		case f.Mode == "tombstone" || f.Mode == "hidden_by_limit" || url == "":
			notes = append(notes, fmt.Sprintf("%s: not available", name))
			continue
		case f.Size > limit:
			notes = append(notes, fmt.Sprintf("%s: not downloaded (%s, over the %s limit)", name, size(f.Size), size(limit)))
			continue
		}
		w := &capped{max: limit}
		if err := a.api.GetFileContext(ctx, url, w); err != nil {
			reason := "download failed"
			if errors.Is(err, errFileTooLarge) {
				reason = fmt.Sprintf("over the %s limit", size(limit))
			}
			a.lg.Warn("download attached file", "file", f.ID, "err", err)
			notes = append(notes, fmt.Sprintf("%s: not downloaded (%s)", name, reason))
			continue
		}
		got = append(got, session.File{Name: name, Title: f.Title, MIMEType: f.Mimetype, Data: w.buf.Bytes()})
	}
	return got, notes
}

func size(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KB", (n+1023)/1024)
}

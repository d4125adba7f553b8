package slack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	slackapi "github.com/slack-go/slack"

	"github.com/threadbot/threadbot/internal/core/session"
)

var _ session.Platform = (*Adapter)(nil)

// post sends one message into key's thread (or the channel when the key
// has no thread) and returns its ts.
func (a *Adapter) post(ctx context.Context, key session.Key, opts ...slackapi.MsgOption) (string, error) {
	if key.Thread != "" {
		opts = append(opts, slackapi.MsgOptionTS(key.Thread))
	}
	var ts string
	err := a.call(ctx, "chat.postMessage", key.Channel, func(ctx context.Context) error {
		var err error
		_, ts, err = a.api.PostMessageContext(ctx, key.Channel, opts...)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("post to %s: %w", key.Channel, err)
	}
	a.takePart(key, ts)
	return ts, nil
}

// update edits the message ts in key's channel.
func (a *Adapter) update(ctx context.Context, key session.Key, ts string, opts ...slackapi.MsgOption) error {
	err := a.call(ctx, "chat.update", key.Channel, func(ctx context.Context) error {
		_, _, _, err := a.api.UpdateMessageContext(ctx, key.Channel, ts, opts...)
		return err
	})
	if err != nil {
		return fmt.Errorf("update %s/%s: %w", key.Channel, ts, err)
	}
	return nil
}

// takePart records that the bot posted in a thread, so later messages in
// it reach the bot without a mention.
func (a *Adapter) takePart(key session.Key, ts string) {
	if key.Thread == "" {
		key.Thread = ts
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.threads) >= 100_000 {
		// The runtime remembers every thread in storage (Known); this is
		// only a cache.
		clear(a.threads)
	}
	a.threads[key] = true
}

// render turns a runtime message into message options: the text in mrkdwn
// and, for the status line, blocks with the Stop button.
func render(key session.Key, m session.Out) []slackapi.MsgOption {
	text := clip(mrkdwn(m.Text), maxText)
	opts := []slackapi.MsgOption{slackapi.MsgOptionText(text, false)}
	switch m.Kind {
	case session.OutStatus:
		opts = append(opts, slackapi.MsgOptionBlocks(statusBlocks(text, m.Stop && !m.Final, key.Thread)...))
		fallthrough
	case session.OutToolLog:
		opts = append(opts, slackapi.MsgOptionDisableLinkUnfurl(), slackapi.MsgOptionDisableMediaUnfurl())
	}
	return opts
}

// Post implements session.Platform. A final answer longer than one
// message is split over several, or uploaded as a file when very long.
func (a *Adapter) Post(ctx context.Context, key session.Key, m session.Out) (session.Ref, error) {
	if m.Kind == session.OutAnswer && m.Final {
		chunks, file := a.answerChunks(m.Text)
		ts, err := a.post(ctx, key, slackapi.MsgOptionText(chunks[0], false))
		if err != nil {
			return "", err
		}
		if key.Thread == "" {
			key.Thread = ts
		}
		return session.Ref(ts), a.postRest(ctx, key, chunks[1:], file, m.Text)
	}
	ts, err := a.post(ctx, key, render(key, m)...)
	return session.Ref(ts), err
}

// Edit implements session.Platform. A final answer too long for the
// message is continued in new messages (or a file).
func (a *Adapter) Edit(ctx context.Context, key session.Key, ref session.Ref, m session.Out) error {
	if m.Kind == session.OutAnswer && m.Final {
		chunks, file := a.answerChunks(m.Text)
		if err := a.update(ctx, key, string(ref), slackapi.MsgOptionText(chunks[0], false)); err != nil {
			return err
		}
		return a.postRest(ctx, key, chunks[1:], file, m.Text)
	}
	if m.Kind == session.OutAnswer {
		return a.update(ctx, key, string(ref), slackapi.MsgOptionText(streamHead(m.Text), false))
	}
	return a.update(ctx, key, string(ref), render(key, m)...)
}

// streamHead is what a streamed answer shows until the final edit splits
// it: its first message, cut by split so a code block it cuts is closed.
func streamHead(md string) string {
	if chunks := split(mrkdwn(md), maxText); len(chunks) > 0 {
		return chunks[0]
	}
	return " "
}

// answerChunks converts an answer and cuts it into messages. When it
// would take more than maxChunks messages, it returns one short message
// and file = true: the whole answer goes up as a file. The short message
// is the answer's first chunk cut by split, which closes a code block it
// cuts, so the note about the file never lands inside one.
func (a *Adapter) answerChunks(md string) (chunks []string, file bool) {
	text := mrkdwn(md)
	chunks = split(text, maxText)
	if len(chunks) == 0 {
		return []string{" "}, false
	}
	if len(chunks) <= maxChunks {
		return chunks, false
	}
	head := split(text, maxText-200)[0]
	return []string{head + "\n\n_The full answer is long, so it is attached as `answer.md`._"}, true
}

func (a *Adapter) postRest(ctx context.Context, key session.Key, rest []string, file bool, md string) error {
	for _, c := range rest {
		if _, err := a.post(ctx, key, slackapi.MsgOptionText(c, false)); err != nil {
			return err
		}
	}
	if file {
		return a.Upload(ctx, key, session.File{Name: "answer.md", Title: "Full answer", MIMEType: "text/markdown", Data: []byte(md)})
	}
	return nil
}

// PostApproval implements session.Platform: a Block Kit message with
// Approve, Always in this thread and Reject.
func (a *Adapter) PostApproval(ctx context.Context, key session.Key, p session.ApprovalPrompt) (session.Ref, error) {
	fallback := fmt.Sprintf("Approval needed: %s", p.Tool)
	ts, err := a.post(ctx, key,
		slackapi.MsgOptionText(fallback, false),
		slackapi.MsgOptionBlocks(approvalBlocks(p)...),
		slackapi.MsgOptionDisableLinkUnfurl(), slackapi.MsgOptionDisableMediaUnfurl())
	return session.Ref(ts), err
}

// ResolveApproval implements session.Platform: the request shows its
// outcome and who decided; the buttons are gone.
func (a *Adapter) ResolveApproval(ctx context.Context, key session.Key, ref session.Ref, p session.ApprovalPrompt, o session.Outcome) error {
	if ref == "" {
		return errors.New("resolve approval: no message")
	}
	return a.update(ctx, key, string(ref),
		slackapi.MsgOptionText(fmt.Sprintf("%s: %s", p.Tool, outcomeLine(o)), false),
		slackapi.MsgOptionBlocks(resolvedBlocks(p, o)...))
}

// Upload implements session.Platform with Slack's external upload flow
// (files.getUploadURLExternal, the upload, files.completeUploadExternal).
func (a *Adapter) Upload(ctx context.Context, key session.Key, f session.File) error {
	if len(f.Data) == 0 {
		return fmt.Errorf("upload %s: the file is empty", f.Name)
	}
	name := f.Name
	if name == "" {
		name = "file"
	}
	err := a.call(ctx, "files.upload", key.Channel, func(ctx context.Context) error {
		_, err := a.api.UploadFileContext(ctx, slackapi.UploadFileParameters{
			Reader: bytes.NewReader(f.Data), FileSize: len(f.Data), Filename: name,
			Title: f.Title, Channel: key.Channel, ThreadTimestamp: key.Thread,
		})
		return err
	})
	if err != nil {
		return fmt.Errorf("upload %s: %w", name, err)
	}
	return nil
}

// React implements session.Platform.
func (a *Adapter) React(ctx context.Context, key session.Key, ref session.Ref, emoji string) error {
	name := strings.Trim(emoji, ":")
	return a.call(ctx, "reactions.add", key.Channel, func(ctx context.Context) error {
		return a.api.AddReactionContext(ctx, name, slackapi.ItemRef{Channel: key.Channel, Timestamp: string(ref)})
	})
}

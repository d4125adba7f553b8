package session

import (
	"context"
	"time"
)

// Ref is a platform's reference to a posted message (a Slack ts, a Discord
// message id).
type Ref string

// OutKind says what a posted message is for, so adapters can render it.
type OutKind string

// Kinds of posted messages.
const (
	// OutStatus is the turn's status line ("Working…", then a summary).
	OutStatus OutKind = "status"
	// OutToolLog is one tool call's log entry, edited as it progresses.
	OutToolLog OutKind = "tool_log"
	// OutAnswer is the model's answer text (streamed, then final).
	OutAnswer OutKind = "answer"
	// OutNotice is a message from the bot itself (errors, expiries).
	OutNotice OutKind = "notice"
)

// Out is a message to post or an edit.
type Out struct {
	Kind OutKind
	// Text is Markdown; adapters convert it to the platform's format and
	// split or upload it when it is over the platform's limits.
	Text string
	// Stop asks for a Stop control on the message (the running turn's
	// status).
	Stop bool
	// Final marks the last edit of a message; streamed edits before it may
	// be skipped by adapters that cannot edit.
	Final bool
}

// ApprovalPrompt is an approval request as a person sees it.
type ApprovalPrompt struct {
	ID        string
	Kind      string // "execution", "result" or "permission"
	Tool      string
	Args      string // compressed arguments
	Title     string
	Detail    string // result preview or permission detail
	Requester string
	Expires   time.Time
}

// Outcome is how an approval ended.
type Outcome struct {
	Approved bool
	Always   bool
	By       string
	Reason   string
	// Expired is set when nobody decided in time (or the process restarted
	// past the deadline).
	Expired bool
}

// File is an upload for a thread.
type File struct {
	Name     string
	Title    string
	MIMEType string
	Data     []byte
}

// Platform is what the runtime needs from a chat platform. Implementations
// must be safe for concurrent use. Posting to a Key whose Thread is empty
// opens a new thread; the returned Ref is then the thread's root.
type Platform interface {
	// Name is the platform name used in Keys ("slack", "discord", "console").
	Name() string
	Post(ctx context.Context, key Key, m Out) (Ref, error)
	Edit(ctx context.Context, key Key, ref Ref, m Out) error
	// PostApproval posts the request with Approve / Always in this thread /
	// Reject controls; a click is reported to Manager.Decide.
	PostApproval(ctx context.Context, key Key, a ApprovalPrompt) (Ref, error)
	// ResolveApproval edits the request to show the outcome and who
	// decided, removing the controls.
	ResolveApproval(ctx context.Context, key Key, ref Ref, a ApprovalPrompt, o Outcome) error
	Upload(ctx context.Context, key Key, f File) error
	React(ctx context.Context, key Key, ref Ref, emoji string) error
}

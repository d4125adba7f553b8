package storage

import (
	"context"
	"time"

	"github.com/threadbot/threadbot/internal/core/llm"
	"github.com/threadbot/threadbot/internal/core/vars"
)

// SessionKey is where a session lives on a chat platform: a Slack
// (team, channel, thread_ts), a Discord (guild, thread channel), a DM.
type SessionKey struct {
	Platform  string
	Workspace string // Slack team, Discord guild; empty for DMs where none applies
	Channel   string
	Thread    string
}

// Session is one conversation thread.
type Session struct {
	// ID is chosen by the caller and stable, e.g. "slack:T1:C1:1700000000.0001".
	ID  string
	Key SessionKey
	// Settings are per-session options (native history mode, max rounds…).
	Settings map[string]string
	Created  time.Time
	Updated  time.Time // bumped by SaveTurn, SaveVars, SaveDecision and SavePending
}

// Message is one stored message of a session's history: usually the user's
// message and the compressed assistant message of each turn.
type Message struct {
	ID        int64 // assigned by the store; increases in insertion order
	SessionID string
	Role      string
	Content   string
	// HintSize is the length of the SYSTEM-CONTEXT hint at the start of Content.
	HintSize int
	// ChainJSON is the full tool-chain result for display; opaque to storage.
	ChainJSON []byte
	// NativeJSON holds the turn's raw native tool messages, for channels that
	// replay native history instead of compressed messages; opaque.
	NativeJSON []byte
	Usage      llm.Usage
	// TokensSent is what the request that produced this message cost in
	// prompt tokens as counted locally, to measure compression.
	TokensSent int
	Created    time.Time // the store's clock when zero
}

// AlwaysAllowKey is the Decision key that records "always allow this tool in
// this thread".
func AlwaysAllowKey(tool string) string { return "tool:" + tool }

// Decision is an ask-once memory: the same Key in the same session gets the
// same answer without asking again.
type Decision struct {
	SessionID string
	// Key is the tool name plus its arguments after $VAR_REF expansion, as
	// the executor builds it, or AlwaysAllowKey(tool). Opaque to storage.
	Key      string
	Tool     string
	Approved bool
	Reason   string
	By       string
	Created  time.Time // the store's clock when zero
}

// Tool setting kinds.
const (
	SettingGroup = "group"
	SettingTool  = "tool"
)

// ToolSetting switches a tool group or a single tool on or off for a scope.
// Empty Workspace and Channel is platform-wide (and an empty Platform as
// well: every platform); an empty Channel is workspace-wide; otherwise the
// setting applies to one channel.
type ToolSetting struct {
	Platform  string
	Workspace string
	Channel   string
	Kind      string // SettingGroup or SettingTool
	Name      string
	Enabled   bool
	By        string
	Updated   time.Time // the store's clock when zero
}

// Pending approval kinds.
const (
	KindExecution  = "execution"  // approve running the call
	KindResult     = "result"     // approve handing the result to the model
	KindPermission = "permission" // e.g. a path outside the sandbox
)

// Pending approval statuses.
const (
	StatusPending  = "pending"
	StatusApproved = "approved"
	StatusRejected = "rejected"
	StatusExpired  = "expired"
)

// PendingApproval is an approval request posted to a thread and not yet
// resolved by a saved turn. It carries the loop checkpoint so the turn can
// resume after a restart.
type PendingApproval struct {
	ID          string // chosen by the caller, unique
	SessionID   string
	CallID      string
	Tool        string
	ArgsSummary string
	Requester   string
	// MessageRef is the adapter's reference to the posted approval message.
	MessageRef string
	Kind       string // KindExecution, KindResult or KindPermission
	// Checkpoint is the loop state to resume from; opaque to storage.
	Checkpoint []byte
	Status     string // StatusPending when empty on save
	DecidedBy  string
	Reason     string
	Created    time.Time // the store's clock when zero
	// Expires is when no decision counts as a rejection; zero never expires.
	Expires time.Time
	Decided time.Time
}

// Audit entry kinds.
const (
	AuditToolCall = "tool_call"
	AuditDecision = "decision"
)

// AuditEntry is one row of the audit trail: a tool execution or an approval
// decision. Audit rows are not owned by a session: they outlive it and are
// removed only by Prune. SessionID may be empty (e.g. an admin command).
type AuditEntry struct {
	ID        int64 // assigned by the store
	SessionID string
	Kind      string // AuditToolCall or AuditDecision
	Tool      string
	CallID    string
	Status    string
	Actor     string // who decided, or who started the turn
	Detail    string
	Duration  time.Duration
	At        time.Time // the store's clock when zero
}

// Turn is everything one chat turn writes, saved atomically by SaveTurn.
type Turn struct {
	SessionID string
	// Messages are appended in order; usually the user message and the
	// compressed assistant message. An empty Message.SessionID means SessionID.
	Messages   []Message
	VarUpserts []vars.Variable
	VarRemoved []string
	// Audit rows; an empty AuditEntry.SessionID means SessionID.
	Audit []AuditEntry
	// Decisions are upserted; an empty Decision.SessionID means SessionID.
	Decisions []Decision
	// EventPlatform and EventID, when EventID is set, mark the inbound event
	// processed in the same transaction.
	EventPlatform string
	EventID       string
	// ResolvePending lists pending approvals of this session that the turn
	// settled; they are deleted.
	ResolvePending []string
}

// Inbound is a message in the inbox: accepted from a platform, its turn not
// stored yet.
type Inbound struct {
	Key       SessionKey
	EventID   string
	User      string
	UserName  string
	Text      string
	IsAdmin   bool
	Received  time.Time
	Started   time.Time // zero until its turn starts
	StatusRef string    // the turn's status message, once started
	Acted     time.Time // zero until its turn's first tool call
	Attempts  int       // how many turns started for it
}

// Snapshot is a session as LoadSession restores it.
type Snapshot struct {
	Session
	Messages  []Message       // chronological
	Vars      []vars.Variable // sorted by name, every field exact
	Decisions []Decision      // sorted by key
}

// Store is what threadbot keeps across restarts. Every backend implements it
// and passes storagetest.Run. Methods return errors wrapped with the
// operation; test them with errors.Is against the sentinels of this package.
type Store interface {
	// EnsureSession creates s if no session has its ID and returns the stored
	// session (an existing one keeps its Created, Key and Settings).
	EnsureSession(ctx context.Context, s Session) (Session, error)
	// GetSession returns the session with id, or ErrNotFound.
	GetSession(ctx context.Context, id string) (Session, error)
	// FindSession returns the session at key, or ErrNotFound.
	FindSession(ctx context.Context, key SessionKey) (Session, error)
	// UpdateSessionSettings replaces the settings of a session (ErrNotFound).
	UpdateSessionSettings(ctx context.Context, id string, settings map[string]string) error
	// ListSessions returns every session, most recently updated first.
	ListSessions(ctx context.Context) ([]Session, error)
	// DeleteSession removes a session and everything it owns except its
	// audit rows (ErrNotFound).
	DeleteSession(ctx context.Context, id string) error

	// LoadSession returns the session with its whole history, variables and
	// decisions, read in one consistent snapshot (ErrNotFound).
	LoadSession(ctx context.Context, id string) (Snapshot, error)
	// Messages returns the last limit messages of a session in chronological
	// order; limit <= 0 returns all of them.
	Messages(ctx context.Context, sessionID string, limit int) ([]Message, error)
	// SaveTurn writes a turn in one transaction and bumps the session's
	// Updated. It returns ErrNotFound for an unknown session and
	// ErrDuplicateEvent, having written nothing, when t.EventID was already
	// processed.
	SaveTurn(ctx context.Context, t Turn) error
	// SaveVars upserts and removes variables of a session outside a turn,
	// e.g. before waiting for an approval (ErrNotFound).
	SaveVars(ctx context.Context, sessionID string, upserts []vars.Variable, removed []string) error
	// SaveDecision upserts an ask-once decision (ErrNotFound for an unknown
	// session).
	SaveDecision(ctx context.Context, d Decision) error

	// EventSeen reports whether an inbound event was already processed.
	EventSeen(ctx context.Context, platform, id string) (bool, error)
	// MarkEvent records an inbound event as processed and reports whether
	// this call recorded it (false: it was already there). Do not mark an
	// event that is then passed to SaveTurn, which marks it itself.
	MarkEvent(ctx context.Context, platform, id string) (first bool, err error)

	// AddInbound stores an accepted message in the inbox, keyed by platform
	// and event id, and reports whether this call stored it. A zero Received
	// means now. SaveTurn with the message's event removes it.
	AddInbound(ctx context.Context, m Inbound) (first bool, err error)
	// SetInboundText replaces the text of an inbox message (ErrNotFound).
	SetInboundText(ctx context.Context, platform, eventID, text string) error
	// StartInbound records that a turn of a message started, the reference
	// of its status message, and counts the attempt (ErrNotFound). A zero
	// at means now.
	StartInbound(ctx context.Context, platform, eventID, statusRef string, at time.Time) error
	// ActedInbound records that a message's turn called its first tool
	// (ErrNotFound). A zero at means now.
	ActedInbound(ctx context.Context, platform, eventID string, at time.Time) error
	// Inbox returns the inbox in the order the messages were received.
	Inbox(ctx context.Context) ([]Inbound, error)
	// DropInbound removes a message from the inbox and marks its event
	// processed, in one transaction; a missing row is not an error.
	DropInbound(ctx context.Context, platform, eventID string) error

	// JournalPut keeps a raw platform event under id until JournalDelete;
	// an id already kept is left as it is.
	JournalPut(ctx context.Context, platform, id string, payload []byte) error
	// JournalDelete forgets a raw event; a missing one is not an error.
	JournalDelete(ctx context.Context, platform, id string) error
	// Journal returns a platform's kept events in the order they were put.
	Journal(ctx context.Context, platform string) ([]JournalEntry, error)

	// SetToolSetting upserts a setting for its scope, kind and name.
	SetToolSetting(ctx context.Context, s ToolSetting) error
	// DeleteToolSetting removes the setting with the scope, kind and name of
	// s, so the scope inherits again (ErrNotFound).
	DeleteToolSetting(ctx context.Context, s ToolSetting) error
	// ToolSettings returns the settings that apply to a channel, least
	// specific first (every platform, the platform, the workspace, the
	// channel; then by kind and name), so later rows win.
	ToolSettings(ctx context.Context, platform, workspace, channel string) ([]ToolSetting, error)

	// SavePending upserts an approval by ID together with the session's
	// variable changes, in one transaction, so a resumed turn finds its
	// cached results (ErrNotFound for an unknown session).
	SavePending(ctx context.Context, p PendingApproval, varUpserts []vars.Variable, varRemoved []string) error
	// GetPending returns an approval (ErrNotFound).
	GetPending(ctx context.Context, id string) (PendingApproval, error)
	// DecidePending sets status (approved, rejected or expired), who and why,
	// atomically and only if the approval is still pending; otherwise it
	// returns the stored approval and ErrAlreadyDecided. A zero at means now.
	DecidePending(ctx context.Context, id, status, by, reason string, at time.Time) (PendingApproval, error)
	// DeletePending removes an approval (ErrNotFound).
	DeletePending(ctx context.Context, id string) error
	// RecoverPending is called at start. Pending approvals that expire after
	// now (or never) are returned in live, with their checkpoints, to wait
	// again; live also holds approvals already approved or rejected whose
	// turn was never saved, to resume at once (see Status). Pending ones at or
	// past their expiry are marked expired in the same call and returned in
	// expired, together with expired ones not yet deleted, so the thread can
	// be told; delete them (DeletePending or Turn.ResolvePending) once it is.
	// Both lists are ordered by Created.
	RecoverPending(ctx context.Context, now time.Time) (live, expired []PendingApproval, err error)

	// AppendAudit appends audit rows in one transaction.
	AppendAudit(ctx context.Context, entries ...AuditEntry) error
	// Audit returns the last limit audit rows of a session (every session
	// when sessionID is empty) in chronological order; limit <= 0 means all.
	Audit(ctx context.Context, sessionID string, limit int) ([]AuditEntry, error)

	// Prune deletes audit rows older than now-auditOlderThan and processed
	// event ids older than now-eventsOlderThan; a duration <= 0 keeps that
	// kind forever. It returns how many rows of each it deleted.
	Prune(ctx context.Context, now time.Time, auditOlderThan, eventsOlderThan time.Duration) (auditDeleted, eventsDeleted int64, err error)

	// Close releases the store.
	Close() error
}

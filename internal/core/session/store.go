package session

import (
	"context"
	"time"

	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/core/llm"
	"github.com/threadbot/threadbot/internal/core/vars"
)

// StoredMessage is one stored message of a session's history.
type StoredMessage struct {
	Role     llm.Role
	Content  string // for assistant turns: hint + natural flow
	HintSize int
	// Chain is the full chain result as JSON, for display.
	Chain []byte
	// Native holds the turn's raw chain messages as JSON, for the native
	// history mode.
	Native     []byte
	Usage      llm.Usage
	TokensSent int
	Created    time.Time
}

// Saved is a session as stored.
type Saved struct {
	ID        string
	Messages  []StoredMessage
	Vars      []vars.Variable
	Decisions []executor.Remembered
}

// AuditEntry is one audit row.
type AuditEntry struct {
	Kind     string // "tool_call" or "decision"
	Tool     string
	CallID   string
	Status   string
	Actor    string
	Detail   string
	Duration time.Duration
	At       time.Time
}

// TurnRecord is everything one turn writes, in one transaction.
type TurnRecord struct {
	SessionID  string
	Messages   []StoredMessage
	VarUpserts []vars.Variable
	VarRemoved []string
	Audit      []AuditEntry
	Decisions  []executor.Remembered
	// EventPlatform and EventID mark the inbound event processed.
	EventPlatform, EventID string
	// ResolvePending names pending approvals closed by this turn.
	ResolvePending []string
}

// Pending is a stored approval request.
type Pending struct {
	ID          string
	Key         Key
	SessionID   string
	CallID      string
	Tool        string
	Kind        string
	ArgsSummary string
	Requester   string
	MessageRef  Ref
	// Checkpoint is the turn's state to resume from (opaque to storage).
	Checkpoint []byte
	Status     string
	DecidedBy  string
	Reason     string
	Created    time.Time
	Expires    time.Time
}

// Pending statuses.
const (
	PendingOpen     = "pending"
	PendingApproved = "approved"
	PendingRejected = "rejected"
	PendingExpired  = "expired"
)

// Queued is a message in the inbox: accepted from a platform (which will
// not deliver it again) and its turn not stored yet.
type Queued struct {
	Inbound
	Received time.Time
	// Started is when its turn started (zero: not yet), StatusRef the
	// turn's status message, Acted when the turn called its first tool
	// (zero: not yet; nothing happened that a rerun could repeat).
	Started   time.Time
	StatusRef Ref
	Acted     time.Time
	// Attempts counts the turns started for it.
	Attempts int
}

// ToolSetting enables or disables a group or tool in a scope. An empty
// Workspace and Channel is global; an empty Channel is the workspace.
type ToolSetting struct {
	Platform, Workspace, Channel string
	Kind                         string // "group" or "tool"
	Name                         string
	Enabled                      bool
	By                           string
}

// Store is what the runtime needs from storage. Errors other than the
// sentinels below are failures of the store.
type Store interface {
	// LoadSession returns the stored session for key, creating it when
	// absent. history limits the messages returned (the most recent).
	LoadSession(ctx context.Context, key Key, history int) (Saved, error)
	// SessionExists reports whether a session was stored for key (the bot
	// has taken part in the thread).
	SessionExists(ctx context.Context, key Key) (bool, error)
	// SaveTurn writes a turn atomically. ErrDuplicateEvent means the event
	// was already processed and nothing was written.
	SaveTurn(ctx context.Context, t TurnRecord) error
	// EventSeen reports whether an inbound event was processed.
	EventSeen(ctx context.Context, platform, id string) (bool, error)
	// AddInbound stores an accepted message in the inbox and reports
	// whether this call stored it. SaveTurn with its event removes it.
	AddInbound(ctx context.Context, in Inbound, received time.Time) (bool, error)
	// SetInboundText replaces the text of an inbox message (ErrNotFound).
	SetInboundText(ctx context.Context, platform, eventID, text string) error
	// StartInbound records that a message's turn started (ErrNotFound).
	StartInbound(ctx context.Context, platform, eventID string, statusRef Ref) error
	// ActedInbound records that a message's turn called its first tool
	// (ErrNotFound).
	ActedInbound(ctx context.Context, platform, eventID string) error
	// Inbox returns the inbox in the order the messages were received.
	Inbox(ctx context.Context) ([]Queued, error)
	// DropInbound removes a message from the inbox without a turn and
	// marks its event processed.
	DropInbound(ctx context.Context, platform, eventID string) error
	// SavePending stores an approval request with the session's variable
	// changes so far.
	SavePending(ctx context.Context, p Pending, upserts []vars.Variable, removed []string) error
	// GetPending returns a stored approval (ErrNotFound).
	GetPending(ctx context.Context, id string) (Pending, error)
	// DecidePending closes a pending approval once (ErrAlreadyDecided).
	DecidePending(ctx context.Context, id, status, by, reason string) (Pending, error)
	// DeletePending removes a stored approval.
	DeletePending(ctx context.Context, id string) error
	// RecoverPending returns the approvals whose turns were not stored:
	// live ones (still open, or decided just before the process stopped)
	// and expired ones (marked expired by the call).
	RecoverPending(ctx context.Context, now time.Time) (live, expired []Pending, err error)
	// ToolSettings returns the settings that apply to a channel, global
	// first, then workspace, then channel.
	ToolSettings(ctx context.Context, platform, workspace, channel string) ([]ToolSetting, error)
	SetToolSetting(ctx context.Context, s ToolSetting) error
}

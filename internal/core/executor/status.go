package executor

import "time"

// Status is the outcome of one call.
type Status string

// The five statuses of seed 000.
const (
	StatusSuccess           Status = "SUCCESS"
	StatusError             Status = "ERROR"
	StatusExecutionRejected Status = "EXECUTION_REJECTED"
	StatusResultRejected    Status = "RESULT_REJECTED"
	StatusNotFound          Status = "NOT_FOUND"
)

// Rejected reports whether a person (or the policy) refused the call or its
// result.
func (s Status) Rejected() bool {
	return s == StatusExecutionRejected || s == StatusResultRejected
}

// Result is the outcome of Execute.
type Result struct {
	CallID string `json:"callId"`
	Tool   string `json:"tool"`
	Status Status `json:"status"`
	// Args are the arguments after $VAR_REF expansion.
	Args map[string]any `json:"args,omitempty"`
	// Data is the tool's raw output data.
	Data any `json:"-"`
	// Title is the tool's own summary, if any.
	Title string `json:"title,omitempty"`
	// Error is the error text for ERROR and NOT_FOUND.
	Error string `json:"error,omitempty"`
	// RejectReason is set for the two rejected statuses.
	RejectReason string `json:"rejectReason,omitempty"`
	// Formatted is the whole formatted text before truncation.
	Formatted string `json:"-"`
	// Text is what the model receives.
	Text string `json:"text"`
	// Truncated and Omitted tell whether, and how many characters, the
	// truncation left out.
	Truncated bool `json:"truncated,omitempty"`
	Omitted   int  `json:"omitted,omitempty"`
	// ResultVar and ArgsVar name the cached variables ("" when not cached).
	ResultVar string `json:"resultVar,omitempty"`
	ArgsVar   string `json:"argsVar,omitempty"`
	// Decisions made for this call (execution and result approvals).
	Decisions   []Decision    `json:"decisions,omitempty"`
	Attachments []Attachment  `json:"attachments,omitempty"`
	Duration    time.Duration `json:"duration"`
}

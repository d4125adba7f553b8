package fs

import "errors"

var (
	// ErrNotApproved is wrapped by the error a tool returns when a path
	// outside the sandbox was refused, or nobody could approve it.
	ErrNotApproved = errors.New("is outside the sandbox and access was not approved")
	// ErrChanged is wrapped by the error a tool returns when a path changed
	// between its check and its use (a symbolic link swapped in), so the
	// operation was refused.
	ErrChanged = errors.New("changed while it was being opened, so the operation was refused")
	// ErrNoSandbox is returned when the call carries no sandbox directory.
	ErrNoSandbox = errors.New("this session has no sandbox directory, so file tools cannot run")
)

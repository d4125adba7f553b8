package executor

import "errors"

// Sentinel errors.
var (
	// ErrDuplicateTool is returned by Register when a tool name is taken.
	ErrDuplicateTool = errors.New("duplicate tool name")
	// ErrDuplicateGroup is returned by Register when a group name is taken.
	ErrDuplicateGroup = errors.New("duplicate group name")
	// ErrUnknown is returned by the enable/disable API for an unknown
	// group or tool.
	ErrUnknown = errors.New("unknown group or tool")
	// ErrBadSchema is returned by Register for a tool whose parameter
	// schema does not compile.
	ErrBadSchema = errors.New("invalid parameter schema")
)

package mcp

import "errors"

// Sentinel errors.
var (
	// ErrConfig is wrapped by the error Connect reports for a server whose
	// configuration is unusable (no name, both or neither of Command and URL,
	// an unknown policy).
	ErrConfig = errors.New("invalid MCP server configuration")
	// ErrTimeout is the cause of a call that ran past its server's Timeout.
	ErrTimeout = errors.New("MCP call timed out")
	// ErrClosed is returned by a tool whose server was stopped by
	// Clients.Close.
	ErrClosed = errors.New("MCP server stopped")
)

// Package mcp owns the MCP tool groups: it connects to the configured Model
// Context Protocol servers (a stdio command, or a streamable-HTTP URL) with
// the official Go SDK, lists each server's tools and turns every server into
// one executor.Group whose tools call the server.
//
// A stdio server starts with a minimal environment (PATH, HOME, locale and
// the like) plus the variables configured for it, so the bot's own secrets
// never reach it; it runs in its own process group, which Clients.Close
// kills. A server that dies is started again by the next call to one of its
// tools (after a failed restart, calls fail fast for 30 seconds). An MCP
// server is arbitrary code, so its tools default to ask-always unless the
// configuration gives the server another policy.
// Header and environment values never appear in logs or errors.
//
// Among threadbot packages it imports only core/executor; never an adapter,
// storage or config.
package mcp

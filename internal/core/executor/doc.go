// Package executor owns tools and tool groups: their registry and enabled
// state, the Execute pipeline (variable references, schema validation,
// approval, run, format, truncate, cache, hint, result approval), the
// tool-rules section of the system prompt, and the variable tools
// (ReadVar, ListVars, WriteVar, RemoveVars).
//
// One Executor belongs to one session. Tools are plain values shared between
// executors; their compiled schemas are cached on the Tool.
//
// It imports core/llm, core/vars and a JSON-Schema library; never an adapter,
// storage or config.
package executor

// Package vars owns a session's variable store (the VariableSystem of seed
// 001), the $VAR_REF resolver that expands references to variables inside
// tool arguments, and the built-in skill-rule documents that are stored as
// RULE variables. It imports only the standard library: no other threadbot
// package and no tool types, so the executor can import it without a cycle.
//
// # Store
//
// A [System] holds named string values with a count capacity and a byte
// budget. When a write takes it over either limit, variables that may be
// evicted are removed in this order until it fits: oldest LastVisited,
// then oldest Updated, then oldest Created, then by name. Variables with
// Keep set and RULE variables are never evicted, nor is the variable just
// written. Reading a variable with [System.Get], or through a reference,
// is a visit and updates LastVisited; [System.Peek] and [System.List] are
// not visits. Eviction costs O(log n) per variable (a heap).
//
// The runtime API ([System.Set], [System.Update], [System.Remove]) is not
// restricted. The model-facing helpers [System.WriteByModel] and
// [System.RemoveByModel] implement the WriteVar and RemoveVars tools and
// refuse to overwrite or remove RULE variables.
//
// [System.TakeChanges] reports what changed since the last call, so that
// storage persists only the changed rows; [System.Snapshot] and
// [System.Restore] save and load the whole store with exact timestamps.
//
// # References
//
// [System.ResolveString] and [System.Resolve] expand references in tool
// arguments:
//
//	$VAR_REF{{name}}                the whole value of the variable name
//	$VAR_REF{{name:start:length}}   length characters from start (0-based)
//
// Names are valid variable names ([ValidName]: letters, digits, '_', '-',
// '.', '/'), so Rule/... variables can be referenced. Characters are runes.
// A start at or past the end gives ""; a length of 0, or one past the end,
// reads to the end (as ReadVar does); a negative start or length is
// [ErrBadSlice]. Text that does not have this shape is left as it is.
//
// Values of referenced variables are expanded in turn; a cycle is
// [ErrCircular] and names the cycle ("a -> b -> a"), and a missing
// variable is an error wrapping [ErrNotFound] (`variable "x" not found`).
//
// Every value is a string, but a ToolCallArgs variable holds a JSON object
// that the executor serialised from the arguments of a call: it is the one
// "non-string" variable, and slicing it is [ErrSliceNonString] because a
// slice would be a broken piece of JSON (reference it whole). Other values
// that happen to be JSON, such as tool results formatted as JSON, are text
// for the model and can be sliced; the truncation hints rely on that.
//
// The characters that the references of one string expand to may not
// exceed [Options.MaxExpand] ([ErrExpansionTooLarge]); literal text around
// the references does not count. Lengths are computed first, once per
// variable, and only the characters that end up in the output are
// produced, so a chain in which each variable references the previous one
// twice fails at once, and a short slice of a huge expansion is cheap.
package vars

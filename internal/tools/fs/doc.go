// Package fs owns the file tool group "fs" of seed 003: read, write, edit,
// glob, grep and list, each confined to the session's sandbox directory.
//
// Every path a tool touches is resolved (".." and symbolic links, including
// the longest existing prefix of a path that does not exist yet) before it
// is checked against the sandbox; a path outside needs a person's approval
// through executor.Call.Ask. Files are then opened through an os.Root, so a
// symbolic link swapped in after the check cannot lead the open elsewhere
// (see sandbox.go).
//
// Edit tries the nine replacers of DESIGN.md §3 in order (replacers.go).
// Glob, grep and list honour .gitignore files and always skip .git.
//
// Among threadbot packages, fs imports only core/executor and core/vars; it
// must not import an adapter, storage or config.
package fs

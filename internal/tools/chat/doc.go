// Package chat owns the "chat" tool group: tools that let the model read the
// part of the conversation it was not sent. thread_history returns earlier
// messages of the current thread and channel_search searches the current
// channel; both run without approval, since they read only what the people
// in the thread can read anyway.
//
// The tools read through Source, which each chat adapter implements; Mux
// dispatches to the adapter of a session's platform, so one group serves
// every platform.
//
// Among threadbot packages it imports only core/executor; never an adapter,
// storage or config.
package chat

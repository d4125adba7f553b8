// Package session owns the running bot: the map from a chat thread to its
// session, one turn at a time per session with later messages queued in
// order, the turn runner (system prompt, history, the tool chain, storing
// the compressed turn), approvals that wait for a person and survive a
// restart, Stop, idle eviction and a global limit on model requests.
//
// It declares what it needs from chat platforms (Platform) and from
// storage (Store) in its own terms; adapters and storage implement them.
// It imports core packages only.
package session

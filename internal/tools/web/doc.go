// Package web owns the "web" tool group: fetch (a page as Markdown, text
// or HTML), extract (elements by CSS selector) and search (through a
// configured provider: SearXNG, Tavily or Brave), and the network guard
// they share.
//
// The guard (safe.go) is the security boundary. Fetch and extract reach
// the network only through an http.Client whose dialer resolves host names
// itself and checks every address it connects to, at connect time and on
// every redirect hop, so loopback, private, link-local, shared (CGNAT),
// multicast, reserved and cloud-metadata addresses, in IPv4, IPv6 and
// IPv4-mapped form, are refused unless the host is on the allow list. The
// address that was checked is the address that is dialled, so a DNS answer
// that changes between check and connect (rebinding) cannot slip through.
// Search talks only to the provider an admin configured, with an ordinary
// client.
//
// Among threadbot packages it imports only core/executor; never an
// adapter, storage or config.
package web

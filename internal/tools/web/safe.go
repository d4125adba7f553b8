package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// BlockedError reports a destination the guard refused. Fetch and extract
// return it (wrapped) for refused URLs and addresses.
type BlockedError struct {
	// Host is the host name or address from the URL.
	Host string
	// Addr is the refused address; invalid when the host was refused by
	// name or the URL by its form.
	Addr netip.Addr
	// Reason says what kind of address or URL it is ("loopback", "private
	// network", "cloud metadata service").
	Reason string
}

func (e *BlockedError) Error() string {
	const hint = "the web tools reach only public internet addresses unless an admin allowlists the host; do not retry it"
	switch {
	case !e.Addr.IsValid():
		return fmt.Sprintf("refused %s: %s; %s", e.Host, e.Reason, hint)
	case e.Host == "" || e.Host == e.Addr.String():
		return fmt.Sprintf("refused %s: it is a %s address; %s", e.Addr, e.Reason, hint)
	}
	return fmt.Sprintf("refused %s: it resolves to %s, a %s address; %s", e.Host, e.Addr, e.Reason, hint)
}

// URLError reports a URL refused for its form (scheme, user info, missing
// host) rather than its destination.
type URLError struct {
	URL    string
	Reason string
}

func (e *URLError) Error() string { return fmt.Sprintf("refused URL %q: %s", e.URL, e.Reason) }

// blockedRange is an address range the guard refuses, with the name the
// error uses. The first match wins, so specific ranges come first.
type blockedRange struct {
	prefix netip.Prefix
	reason string
}

var blockedRanges = func() []blockedRange {
	list := []struct{ cidr, reason string }{
		{"169.254.169.254/32", "cloud metadata service"},
		{"fd00:ec2::254/128", "cloud metadata service"},
		{"0.0.0.0/8", `"this network" (0.0.0.0/8)`},
		{"10.0.0.0/8", "private network"},
		{"100.64.0.0/10", "shared (carrier-grade NAT)"},
		{"127.0.0.0/8", "loopback"},
		{"169.254.0.0/16", "link-local"},
		{"172.16.0.0/12", "private network"},
		{"192.0.0.0/24", "IETF protocol assignment"},
		{"192.168.0.0/16", "private network"},
		{"198.18.0.0/15", "benchmarking network"},
		{"224.0.0.0/4", "multicast"},
		{"255.255.255.255/32", "broadcast"},
		{"240.0.0.0/4", "reserved"},
		{"::/128", "unspecified"},
		{"::1/128", "loopback"},
		{"::/96", "IPv4-compatible IPv6 (deprecated)"},
		{"64:ff9b:1::/48", "local-use NAT64"},
		{"100::/64", "discard-only"},
		{"fc00::/7", "private network (unique local)"},
		{"fe80::/10", "link-local"},
		{"fec0::/10", "site-local (deprecated)"},
		{"ff00::/8", "multicast"},
	}
	out := make([]blockedRange, len(list))
	for i, r := range list {
		out[i] = blockedRange{netip.MustParsePrefix(r.cidr), r.reason}
	}
	return out
}()

var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// classify returns why ip must not be reached, or "" for a public address.
// IPv4-mapped (::ffff:a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16)
// addresses are judged by the IPv4 address they carry.
func classify(ip netip.Addr) string {
	ip = ip.WithZone("")
	if !ip.IsValid() {
		return "invalid"
	}
	if ip.Is4In6() {
		if r := classify(ip.Unmap()); r != "" {
			return r + " (IPv4-mapped)"
		}
		return ""
	}
	for _, b := range blockedRanges {
		if b.prefix.Contains(ip) {
			return b.reason
		}
	}
	if ip.Is6() {
		a := ip.As16()
		var v4 [4]byte
		switch {
		case nat64.Contains(ip):
			copy(v4[:], a[12:16])
			if r := classify(netip.AddrFrom4(v4)); r != "" {
				return r + " (through NAT64)"
			}
		case sixToFour.Contains(ip):
			copy(v4[:], a[2:6])
			if r := classify(netip.AddrFrom4(v4)); r != "" {
				return r + " (through 6to4)"
			}
		}
	}
	return ""
}

// classifyName refuses names that always mean this machine, before any
// resolution.
func classifyName(host string) string {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return "a name for this machine (loopback)"
	}
	return ""
}

// allowEntry is one parsed allow-list entry.
type allowEntry struct {
	host   string // normalized host or IP; for wildcards the suffix ".domain"
	port   string // "" for any port
	suffix bool
}

// parseAllowEntry parses "host", "host:port", "[v6]:port", "v6" or
// "*.domain[:port]".
func parseAllowEntry(s string) (allowEntry, error) {
	raw := s
	s = strings.TrimSpace(s)
	var e allowEntry
	if h, p, err := net.SplitHostPort(s); err == nil {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return e, fmt.Errorf("allow host %q: the port must be a number", raw)
		}
		s, e.port = h, p
	}
	if strings.HasPrefix(s, "*.") {
		e.suffix = true
		s = s[1:] // keep the dot
	}
	e.host = normHost(s)
	if e.host == "" || e.host == "." || strings.ContainsAny(e.host, "/@?#* ") {
		return e, fmt.Errorf("allow host %q: want a host name, \"*.domain\" or IP address, optionally with \":port\"", raw)
	}
	return e, nil
}

// normHost lower-cases a host, drops brackets and a trailing dot, and
// writes IP addresses in their canonical form.
func normHost(h string) string {
	h = strings.ToLower(strings.TrimSuffix(strings.Trim(h, "[]"), "."))
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip.String()
	}
	return h
}

// allowList says which hosts the guard lets through whatever they resolve
// to.
type allowList []allowEntry

func newAllowList(entries []string) allowList {
	var a allowList
	for _, s := range entries {
		if e, err := parseAllowEntry(s); err == nil {
			a = append(a, e)
		}
	}
	return a
}

// allows reports whether host (normalized) on port is allowlisted.
func (a allowList) allows(host, port string) bool {
	for _, e := range a {
		if e.port != "" && e.port != port {
			continue
		}
		if e.suffix && strings.HasSuffix(host, e.host) || !e.suffix && host == e.host {
			return true
		}
	}
	return false
}

// guard dials only permitted addresses.
type guard struct {
	allow  allowList
	lookup func(ctx context.Context, host string) ([]net.IP, error)
}

func newGuard(allow []string, lookup func(ctx context.Context, host string) ([]net.IP, error)) *guard {
	if lookup == nil {
		lookup = func(ctx context.Context, host string) ([]net.IP, error) {
			return net.DefaultResolver.LookupIP(ctx, "ip", host)
		}
	}
	return &guard{allow: newAllowList(allow), lookup: lookup}
}

// checkURL refuses what can be refused from the URL alone: a scheme other
// than http and https, user info, a missing host, and (unless allowlisted)
// a host that is a refused address or a name for this machine. The
// authoritative check is at connect time; this one answers before anyone
// is asked to approve a call.
func (g *guard) checkURL(u *url.URL) error {
	shown := u.Redacted()
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return &URLError{URL: shown, Reason: "it has no scheme; write a full URL such as https://" + strings.TrimPrefix(shown, "//")}
	default:
		return &URLError{URL: shown, Reason: fmt.Sprintf("the scheme %q is not allowed; only http and https URLs can be fetched", u.Scheme)}
	}
	if u.User != nil {
		return &URLError{URL: shown, Reason: "URLs with a user name or password are not allowed; remove the part before @"}
	}
	host := normHost(u.Hostname())
	if host == "" {
		return &URLError{URL: shown, Reason: "it has no host"}
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if strings.EqualFold(u.Scheme, "https") {
			port = "443"
		}
	}
	if g.allow.allows(host, port) {
		return nil
	}
	if r := classifyName(host); r != "" {
		return &BlockedError{Host: host, Reason: r}
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if r := classify(ip); r != "" {
			return &BlockedError{Host: host, Addr: ip, Reason: r}
		}
	}
	return nil
}

// DialContext resolves addr's host itself, refuses addresses that must not
// be reached (unless the host is allowlisted), and dials a checked address,
// so the address checked is the address connected to. The dialer's Control
// checks the socket's address once more just before connect.
func (g *guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	h, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	host := normHost(h)
	allowed := g.allow.allows(host, port)
	if !allowed {
		if r := classifyName(host); r != "" {
			return nil, &BlockedError{Host: host, Reason: r}
		}
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		raw, err := g.lookup(ctx, host)
		if err != nil {
			return nil, fmt.Errorf("resolve %s: %w", host, err)
		}
		for _, r := range raw {
			if ip, ok := netip.AddrFromSlice(r); ok {
				ips = append(ips, ip.Unmap())
			}
		}
		if len(ips) == 0 {
			return nil, fmt.Errorf("resolve %s: no addresses", host)
		}
	}
	var firstErr error
	for _, ip := range ips {
		if !allowed {
			if r := classify(ip); r != "" {
				if firstErr == nil {
					firstErr = &BlockedError{Host: host, Addr: ip, Reason: r}
				}
				continue
			}
		}
		c, err := g.dialer(host, allowed).DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return c, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, firstErr
}

// dialer returns a net.Dialer whose Control refuses the address the socket
// is about to connect to, unless the host is allowlisted.
func (g *guard) dialer(host string, allowed bool) *net.Dialer {
	return &net.Dialer{
		Timeout:   10 * time.Second,
		KeepAlive: 30 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			if allowed {
				return nil
			}
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return &BlockedError{Host: host, Reason: "unparsable socket address " + address}
			}
			if r := classify(ap.Addr()); r != "" {
				return &BlockedError{Host: host, Addr: ap.Addr(), Reason: r}
			}
			return nil
		},
	}
}

// client returns the http.Client fetch and extract use: the guarded dialer,
// no proxy (a proxy would hide the destination from the guard), and a
// redirect policy that checks every hop and stops after maxRedirects.
func (g *guard) client(maxRedirects int) *http.Client {
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           g.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          20,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return &redirectError{max: maxRedirects}
			}
			return g.checkURL(req.URL)
		},
	}
}

// redirectError stops a chain of redirects.
type redirectError struct{ max int }

func (e *redirectError) Error() string {
	if e.max == 0 {
		return "the server answered with a redirect, and redirects are not followed"
	}
	return fmt.Sprintf("stopped after %d redirects", e.max)
}

// isBlocked reports whether err is a refusal by the guard.
func isBlocked(err error) bool {
	var b *BlockedError
	var u *URLError
	return errors.As(err, &b) || errors.As(err, &u)
}

package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
)

// newCounted6 starts a counting server on [::1], or returns nil where the
// machine has no IPv6 loopback.
func newCounted6(t *testing.T) *counted {
	t.Helper()
	l, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Logf("no IPv6 loopback (%v); [::1] is refused without a server to count", err)
		return nil
	}
	c := &counted{}
	c.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.hits.Add(1)
	}))
	c.Listener.Close()
	c.Listener = l
	c.Start()
	t.Cleanup(c.Close)
	return c
}

// TestBlockedDestinations runs every destination the guard must refuse
// through a real executor whose approver approves everything: each call
// must fail with a clear refusal, and no request may reach a server.
func TestBlockedDestinations(t *testing.T) {
	var targetHits atomic.Int64
	target := newCounted(t, func(w http.ResponseWriter, r *http.Request) { targetHits.Add(1) })
	tp := target.port()
	target6 := newCounted6(t)
	p6 := tp
	if target6 != nil {
		p6 = target6.port()
	}
	// The one allowlisted server: it redirects wherever it is told.
	allowed := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	ap := allowed.port()
	opts := Options{
		AllowHosts: []string{"127.0.0.1:" + ap},
		LookupIP: fakeDNS(map[string][]string{
			"internal.test":  {"10.0.0.1"},
			"rebind.test":    {"127.0.0.1"},
			"mixed.test":     {"10.0.0.1", "::1"},
			"metadata.test":  {"169.254.169.254"},
			"mapped.test":    {"::ffff:127.0.0.1"},
			"2130706433":     {"127.0.0.1"}, // what some resolvers make of a decimal address
			"127.1":          {"127.0.0.1"}, // and of inet_aton's short form
			"localhost.test": {"127.0.0.1"},
		}),
	}
	x, _ := newExec(t, opts)
	redirect := func(to string) string { return "http://127.0.0.1:" + ap + "/?to=" + to }
	tests := []struct {
		name, url, want string
	}{
		{"loopback", "http://127.0.0.1:" + tp + "/", "refused 127.0.0.1: it is a loopback address"},
		{"loopback other", "http://127.0.0.2:" + tp + "/", "loopback"},
		{"localhost", "http://localhost:" + tp + "/", "refused localhost: a name for this machine"},
		{"sub.localhost", "http://app.localhost:" + tp + "/", "a name for this machine"},
		{"ipv6 loopback", "http://[::1]:" + p6 + "/", "refused ::1: it is a loopback address"},
		{"private 10/8", "http://10.0.0.1/", "private network"},
		{"private 172.16/12", "http://172.20.1.1/", "private network"},
		{"private 192.168/16", "http://192.168.1.1:8080/", "private network"},
		{"cgnat", "http://100.64.0.1/", "carrier-grade NAT"},
		{"link-local", "http://169.254.1.1/", "link-local"},
		{"metadata", "http://169.254.169.254/latest/meta-data/", "cloud metadata service"},
		{"metadata v6", "http://[fd00:ec2::254]/", "cloud metadata service"},
		{"unique local", "http://[fc00::1]/", "unique local"},
		{"link-local v6", "http://[fe80::1]/", "link-local"},
		{"mapped loopback", "http://[::ffff:127.0.0.1]:" + tp + "/", "loopback (IPv4-mapped)"},
		{"mapped metadata", "http://[::ffff:169.254.169.254]/", "cloud metadata service (IPv4-mapped)"},
		{"nat64 private", "http://[64:ff9b::a00:1]/", "private network (through NAT64)"},
		{"6to4 loopback", "http://[2002:7f00:1::]/", "loopback (through 6to4)"},
		{"unspecified v4", "http://0.0.0.0:" + tp + "/", `"this network"`},
		{"this network", "http://0.1.2.3/", `"this network"`},
		{"unspecified v6", "http://[::]:" + p6 + "/", "unspecified"},
		{"multicast", "http://224.0.0.1/", "multicast"},
		{"broadcast", "http://255.255.255.255/", "broadcast"},
		{"allowlisted host, other port", "http://127.0.0.1:" + tp + "/", "loopback"},
		{"resolves to 10.0.0.1", "http://internal.test/", "refused internal.test: it resolves to 10.0.0.1, a private network address"},
		{"resolves to loopback", "http://rebind.test:" + tp + "/", "refused rebind.test: it resolves to 127.0.0.1, a loopback address"},
		{"resolves to private and loopback", "http://mixed.test:" + tp + "/", "resolves to 10.0.0.1"},
		{"resolves to metadata", "http://metadata.test/", "cloud metadata service"},
		{"resolves to mapped loopback", "http://mapped.test:" + tp + "/", "loopback"},
		{"decimal address", "http://2130706433:" + tp + "/", "loopback"},
		{"short address", "http://127.1:" + tp + "/", "loopback"},
		{"redirect to 127.0.0.2", redirect("http://127.0.0.2:" + tp + "/"), "refused 127.0.0.2: it is a loopback address"},
		{"redirect to loopback other port", redirect("http://127.0.0.1:" + tp + "/"), "loopback"},
		{"redirect to name of loopback", redirect("http://rebind.test:" + tp + "/"), "resolves to 127.0.0.1"},
		{"redirect to metadata", redirect("http://169.254.169.254/"), "cloud metadata service"},
		{"redirect to file", redirect("file:///etc/passwd"), `the scheme "file" is not allowed`},
		{"redirect to userinfo", redirect("http://user:pw@127.0.0.1:" + ap + "/"), "user name or password"},
		{"file scheme", "file:///etc/passwd", `refused URL "file:///etc/passwd": the scheme "file" is not allowed; only http and https`},
		{"gopher scheme", "gopher://127.0.0.1:" + tp + "/", `the scheme "gopher" is not allowed`},
		{"ftp scheme", "ftp://example.com/", `the scheme "ftp" is not allowed`},
		{"userinfo on allowed host", "http://user:secret@127.0.0.1:" + ap + "/", "user name or password are not allowed"},
		{"user only", "http://user@127.0.0.1:" + ap + "/", "user name or password"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := execute(t, x, ToolFetch, map[string]any{"url": tt.url})
			wantError(t, r, tt.want)
			if !strings.Contains(r.Text, "refused") {
				t.Errorf("text = %q, want a refusal", r.Text)
			}
			if strings.Contains(r.Text, "secret") {
				t.Errorf("text = %q shows the URL's password", r.Text)
			}
			if n := targetHits.Load(); n != 0 {
				t.Fatalf("the target server received %d requests", n)
			}
			if target6 != nil && target6.hits.Load() != 0 {
				t.Fatalf("the IPv6 target server received %d requests", target6.hits.Load())
			}
		})
	}
	// Extract shares the guard.
	r := execute(t, x, ToolExtract, map[string]any{"url": "http://internal.test/", "selector": "a"})
	wantError(t, r, "private network")
	if n := targetHits.Load(); n != 0 {
		t.Fatalf("the target server received %d requests", n)
	}
}

// TestAllowHosts checks that the allow list opens exactly what it names.
func TestAllowHosts(t *testing.T) {
	s := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "hello from "+r.Host)
	})
	p := s.port()
	dns := fakeDNS(map[string][]string{"svc.corp.test": {"127.0.0.1"}, "corp.test": {"127.0.0.1"}, "intranet": {"127.0.0.1"}})
	tests := []struct {
		allow []string
		url   string
		ok    bool
	}{
		{[]string{"127.0.0.1"}, "http://127.0.0.1:" + p + "/", true},
		{[]string{"127.0.0.1:" + p}, "http://127.0.0.1:" + p + "/", true},
		{[]string{"127.0.0.1:1"}, "http://127.0.0.1:" + p + "/", false},
		{[]string{"*.corp.test"}, "http://svc.corp.test:" + p + "/", true},
		{[]string{"*.corp.test"}, "http://corp.test:" + p + "/", false}, // subdomains only
		{[]string{"INTRANET."}, "http://intranet:" + p + "/", true},
		{[]string{"intranet:" + p}, "http://intranet:" + p + "/", true},
		{[]string{"10.0.0.1"}, "http://127.0.0.1:" + p + "/", false},
		{nil, "http://127.0.0.1:" + p + "/", false},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.allow, ",")+" "+tt.url, func(t *testing.T) {
			x, _ := newExec(t, Options{AllowHosts: tt.allow, LookupIP: dns})
			before := s.hits.Load()
			r := execute(t, x, ToolFetch, map[string]any{"url": tt.url})
			if tt.ok {
				wantSuccess(t, r)
				contains(t, r.Text, "hello from")
				return
			}
			wantError(t, r, "refused")
			if s.hits.Load() != before {
				t.Error("a refused call reached the server")
			}
		})
	}
}

// TestDialControl checks the connect-time check on its own: the dialer
// refuses the socket's address even when nothing before it did.
func TestDialControl(t *testing.T) {
	s := newCounted(t, func(http.ResponseWriter, *http.Request) {})
	g := newGuard(nil, fakeDNS(nil))
	_, err := g.dialer("example.test", false).DialContext(context.Background(), "tcp", s.Listener.Addr().String())
	var b *BlockedError
	if !errors.As(err, &b) || b.Reason != "loopback" || b.Addr != netip.MustParseAddr("127.0.0.1") {
		t.Fatalf("dial error = %v, want a loopback BlockedError for 127.0.0.1", err)
	}
	c, err := g.dialer("example.test", true).DialContext(context.Background(), "tcp", s.Listener.Addr().String())
	if err != nil {
		t.Fatalf("allowlisted dial: %v", err)
	}
	c.Close()
	if n := s.hits.Load(); n != 0 {
		t.Errorf("server saw %d requests", n)
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		ip   string
		want string // "" for public
	}{
		{"8.8.8.8", ""},
		{"1.1.1.1", ""},
		{"172.15.255.255", ""},
		{"172.32.0.1", ""},
		{"100.63.255.255", ""},
		{"100.128.0.1", ""},
		{"2606:4700::1111", ""},
		{"::ffff:8.8.8.8", ""},
		{"64:ff9b::808:808", ""},
		{"2002:808:808::1", ""},
		{"127.0.0.1", "loopback"},
		{"127.255.255.254", "loopback"},
		{"::1", "loopback"},
		{"0.0.0.0", `"this network" (0.0.0.0/8)`},
		{"::", "unspecified"},
		{"10.255.255.255", "private network"},
		{"172.31.0.1", "private network"},
		{"192.168.0.1", "private network"},
		{"fd12:3456::1", "private network (unique local)"},
		{"100.100.100.200", "shared (carrier-grade NAT)"},
		{"169.254.169.254", "cloud metadata service"},
		{"fd00:ec2::254", "cloud metadata service"},
		{"169.254.0.1", "link-local"},
		{"fe80::1%eth0", "link-local"},
		{"239.255.255.250", "multicast"},
		{"ff02::1", "multicast"},
		{"255.255.255.255", "broadcast"},
		{"240.0.0.1", "reserved"},
		{"::ffff:10.0.0.1", "private network (IPv4-mapped)"},
		{"::127.0.0.1", "IPv4-compatible IPv6 (deprecated)"},
		{"64:ff9b::127.0.0.1", "loopback (through NAT64)"},
		{"2002:a9fe:a9fe::", "cloud metadata service (through 6to4)"},
	}
	for _, tt := range tests {
		if got := classify(netip.MustParseAddr(tt.ip)); got != tt.want {
			t.Errorf("classify(%s) = %q, want %q", tt.ip, got, tt.want)
		}
	}
}

func TestParseAllowEntry(t *testing.T) {
	good := map[string]allowEntry{
		"Wiki.Corp.Example.": {host: "wiki.corp.example"},
		"*.corp.example":     {host: ".corp.example", suffix: true},
		"*.corp.example:443": {host: ".corp.example", port: "443", suffix: true},
		"10.1.2.3:8080":      {host: "10.1.2.3", port: "8080"},
		"::1":                {host: "::1"},
		"[fd00::1]:443":      {host: "fd00::1", port: "443"},
		"[::ffff:7f00:1]":    {host: "::ffff:127.0.0.1"},
	}
	for in, want := range good {
		got, err := parseAllowEntry(in)
		if err != nil || got != want {
			t.Errorf("parseAllowEntry(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "https://x.example", "user@host", "host:http", "*", "a b"} {
		if _, err := parseAllowEntry(in); err == nil {
			t.Errorf("parseAllowEntry(%q): no error", in)
		}
	}
	if err := (Options{AllowHosts: []string{"ok.example", "https://bad"}}).Validate(); err == nil || !strings.Contains(err.Error(), "https://bad") {
		t.Errorf("Validate = %v, want an error naming the bad entry", err)
	}
}

// TestRedirectsOff checks a negative MaxRedirects: no redirect is followed.
func TestRedirectsOff(t *testing.T) {
	s := site(t)
	opts := allowLocal()
	opts.MaxRedirects = -1
	x, _ := newExec(t, opts)
	r := execute(t, x, ToolFetch, map[string]any{"url": s.URL + "/redirect?to=/page"})
	wantError(t, r, "redirects are not followed")
}

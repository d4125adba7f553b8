package web

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/core/executor"
)

const shortPage = `<!doctype html><html><head><title>Test Page</title></head><body>
<nav><a href="/">Home</a></nav>
<h1>Heading One</h1>
<p>Some text with a <a href="/other">link to other</a>.</p>
<div id="main"><p class="x">First selected paragraph.</p><p class="x">Second selected paragraph.</p></div>
<script>alert("never shown")</script>
</body></html>`

var articlePage = `<!doctype html><html><head><title>Long Article</title></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/menu">Menu item</a></li></ul></nav>
<article><h2>Section A</h2>` + strings.Repeat(`<p>This is a long paragraph of article text, with enough words, commas, and sentences to look like real content. It goes on and on.</p>`, 8) +
	`<p>See <a href="/ref">the reference</a>.</p></article><footer>Copyright footer</footer></body></html>`

// site serves the pages the fetch tests read.
func site(t *testing.T) *counted {
	return newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, shortPage)
		case "/article":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, articlePage)
		case "/latin1":
			w.Header().Set("Content-Type", "text/html; charset=iso-8859-1")
			w.Write([]byte("<html><head><title>caf\xe9</title></head><body><p>Cr\xe8me br\xfbl\xe9e</p></body></html>"))
		case "/text":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			fmt.Fprint(w, "plain text line 1\nline 2 with <b>no markup</b>\n")
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"name":"threadbot","tags":["a","b"],"n":1}`)
		case "/image":
			w.Header().Set("Content-Type", "image/png")
			w.Write(bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, 512))
		case "/sniffed":
			w.Header()["Content-Type"] = nil // let the tool sniff the type
			w.Write(append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte{0}, 100)...))
		case "/big":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, strings.Repeat("0123456789", 500))
		case "/slow":
			<-r.Context().Done() // never answers; the tool's deadline ends it
		case "/missing":
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, "no such page here")
		case "/redirect":
			http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	})
}

func allowLocal() Options { return Options{AllowHosts: []string{"127.0.0.1"}} }

func TestFetchHTMLToMarkdown(t *testing.T) {
	s := site(t)
	x, approvals := newExec(t, allowLocal())
	r := execute(t, x, ToolFetch, map[string]any{"url": s.URL + "/page"})
	wantSuccess(t, r)
	contains(t, r.Text,
		"Title: Test Page\n",
		"URL: "+s.URL+"/page\n",
		"# Heading One",
		"[link to other]("+s.URL+"/other)",
	)
	if strings.Contains(r.Text, "never shown") {
		t.Errorf("script content leaked into the Markdown:\n%s", r.Text)
	}
	// Ask-once execution approval plus result approval.
	if got := approvals.n.Load(); got != 2 {
		t.Errorf("approvals asked = %d, want 2 (execution and result)", got)
	}
}

func TestFetchArticleUsesReadability(t *testing.T) {
	s := site(t)
	x, _ := newExec(t, allowLocal())
	r := execute(t, x, ToolFetch, map[string]any{"url": s.URL + "/article"})
	wantSuccess(t, r)
	contains(t, r.Text, "Title: Long Article", "## Section A", "[the reference]("+s.URL+"/ref)")
	for _, clutter := range []string{"Menu item", "Copyright footer"} {
		if strings.Contains(r.Text, clutter) {
			t.Errorf("main content includes page clutter %q:\n%s", clutter, r.Text)
		}
	}
}

func TestFetchFormats(t *testing.T) {
	s := site(t)
	x, _ := newExec(t, allowLocal())
	tests := []struct {
		name    string
		args    map[string]any
		want    []string
		notWant []string
	}{
		{"text", map[string]any{"url": s.URL + "/page", "format": "text"},
			[]string{"Heading One", "Some text with a link to other."}, []string{"# Heading", "]("}},
		{"html", map[string]any{"url": s.URL + "/page", "format": "html"},
			[]string{"<h1>Heading One</h1>", `<script>alert("never shown")</script>`}, nil},
		{"charset", map[string]any{"url": s.URL + "/latin1"},
			[]string{"Title: café", "Crème brûlée"}, nil},
		{"plain text", map[string]any{"url": s.URL + "/text"},
			[]string{"Content-Type: text/plain", "plain text line 1\nline 2 with <b>no markup</b>"}, nil},
		{"json pretty", map[string]any{"url": s.URL + "/json"},
			[]string{"Content-Type: application/json", "{\n  \"name\": \"threadbot\",\n  \"tags\": [\n    \"a\","}, nil},
		{"image", map[string]any{"url": s.URL + "/image"},
			[]string{"Content-Type: image/png", "Size: 2.0 KiB", "binary content (an image), not shown"}, []string{"PNG"}},
		{"sniffed pdf", map[string]any{"url": s.URL + "/sniffed"},
			[]string{"Content-Type: application/pdf", "a PDF document"}, []string{"%PDF"}},
		{"selector markdown", map[string]any{"url": s.URL + "/page", "selector": "#main p.x"},
			[]string{"Selector: #main p.x (2 matching elements)", "First selected paragraph.\n\nSecond selected paragraph."}, []string{"Heading One"}},
		{"selector html", map[string]any{"url": s.URL + "/page", "selector": "h1", "format": "html"},
			[]string{"<h1>Heading One</h1>"}, []string{"<p>"}},
		{"redirect followed", map[string]any{"url": s.URL + "/redirect?to=/page"},
			[]string{"URL: " + s.URL + "/page\n", "# Heading One"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := execute(t, x, ToolFetch, tt.args)
			wantSuccess(t, r)
			contains(t, r.Text, tt.want...)
			for _, nw := range tt.notWant {
				if strings.Contains(r.Text, nw) {
					t.Errorf("text contains %q; text:\n%s", nw, r.Text)
				}
			}
		})
	}
}

func TestFetchSizeCap(t *testing.T) {
	s := site(t)
	opts := allowLocal()
	opts.MaxBytes = 1000
	x, _ := newExec(t, opts)
	r := execute(t, x, ToolFetch, map[string]any{"url": s.URL + "/big"})
	wantSuccess(t, r)
	contains(t, r.Text, "[The response was larger than 1000 B; only the first 1000 B were read")
	if n := strings.Count(r.Text, "0123456789"); n != 100 {
		t.Errorf("body has %d copies of the 10-byte pattern, want 100 (1000 bytes)", n)
	}
}

func TestFetchTimeout(t *testing.T) {
	s := site(t)
	opts := allowLocal()
	opts.Timeout = 50 * time.Millisecond
	x, _ := newExec(t, opts)
	r := execute(t, x, ToolFetch, map[string]any{"url": s.URL + "/slow"})
	wantError(t, r, "timed out after 50ms")
}

func TestFetchErrors(t *testing.T) {
	s := site(t)
	x, _ := newExec(t, allowLocal())
	tests := []struct {
		name string
		args map[string]any
		want string
		hits int64 // requests the call may make
	}{
		{"http 404", map[string]any{"url": s.URL + "/missing"}, "answered HTTP 404 Not Found; the page does not exist, check the URL or search for it\nresponse: no such page here", 1},
		{"selector matches nothing", map[string]any{"url": s.URL + "/page", "selector": "table.none"}, `the selector "table.none" matched nothing`, 1},
		{"selector on json", map[string]any{"url": s.URL + "/json", "selector": "p"}, "a selector needs an HTML page", 1},
		{"redirect loop", map[string]any{"url": s.URL + "/loop"}, "stopped after 5 redirects", 6},
		{"invalid selector", map[string]any{"url": s.URL + "/page", "selector": "p[["}, `invalid CSS selector "p[["`, 0},
		{"no scheme", map[string]any{"url": "example.com/page"}, "write a full URL such as https://example.com/page", 0},
		{"bad format", map[string]any{"url": s.URL + "/page", "format": "pdf"}, "invalid arguments", 0},
		{"unknown host", map[string]any{"url": "http://no-such-host.test/"}, "the host no-such-host.test does not exist (DNS: no such host)", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := s.hits.Load()
			r := execute(t, x, ToolFetch, tt.args)
			wantError(t, r, tt.want)
			if got := s.hits.Load() - before; got != tt.hits {
				t.Errorf("server saw %d requests, want %d", got, tt.hits)
			}
		})
	}
}

func TestFetchPrecheckAsksNobody(t *testing.T) {
	x, approvals := newExec(t, Options{})
	r := execute(t, x, ToolFetch, map[string]any{"url": "http://127.0.0.1/"})
	wantError(t, r, "loopback")
	if n := approvals.n.Load(); n != 0 {
		t.Errorf("approvals asked = %d, want 0: a refused URL must not reach a person", n)
	}
}

func TestFetchPermissionConfigurable(t *testing.T) {
	s := site(t)
	opts := allowLocal()
	opts.FetchPermission = executor.Permission{Execution: executor.Auto}
	x, approvals := newExec(t, opts)
	wantSuccess(t, execute(t, x, ToolFetch, map[string]any{"url": s.URL + "/text"}))
	wantSuccess(t, execute(t, x, ToolExtract, map[string]any{"url": s.URL + "/page", "selector": "h1"}))
	if n := approvals.n.Load(); n != 0 {
		t.Errorf("approvals asked = %d, want 0 with an auto/never policy", n)
	}
}

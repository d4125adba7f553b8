package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/threadbot/threadbot/internal/core/executor"
	"golang.org/x/net/html/charset"
)

// errTimeout is the cause of a fetch that ran out of time.
var errTimeout = errors.New("web request timed out")

// kind is how a response body is treated.
type kind int

const (
	kindBinary kind = iota // described, never shown
	kindHTML               // converted to Markdown or text
	kindJSON               // pretty-printed
	kindText               // passed through
)

// page is a fetched response.
type page struct {
	url       *url.URL // after redirects
	mediaType string   // lower case, without parameters
	kind      kind
	body      []byte // UTF-8 for text kinds; nil for binary
	size      int64  // bytes read, or Content-Length for unread binary; -1 unknown
	truncated bool   // the body was longer than MaxBytes
}

const accept = "text/html,application/xhtml+xml,application/json;q=0.9,text/plain;q=0.8,*/*;q=0.5"

// parseURL parses a URL argument and applies the guard's URL checks.
func (w *tools) parseURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, &URLError{URL: raw, Reason: fmt.Sprintf("it is not a valid URL (%v)", err)}
	}
	if err := w.guard.checkURL(u); err != nil {
		return nil, err
	}
	return u, nil
}

// get fetches raw within the time and size limits. Errors say what to do:
// refused destinations, timeouts, HTTP errors and network failures each
// have their own message.
func (w *tools) get(ctx context.Context, call executor.Call, raw string) (*page, error) {
	u, err := w.parseURL(raw)
	if err != nil {
		return nil, w.refused(call, err)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, w.opts.Timeout, errTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, &URLError{URL: u.Redacted(), Reason: err.Error()}
	}
	req.Header.Set("User-Agent", w.opts.UserAgent)
	req.Header.Set("Accept", accept)
	call.Progress("Fetching "+u.Redacted(), map[string]any{"url": u.String()})
	resp, err := w.client.Do(req)
	if err != nil {
		return nil, w.describe(ctx, call, u, err)
	}
	defer resp.Body.Close()
	p := &page{url: resp.Request.URL, size: -1}
	header := resp.Header.Get("Content-Type")
	p.mediaType = mediaType(header)
	p.kind = kindOf(p.mediaType)
	if p.kind == kindBinary && p.mediaType != "" && resp.StatusCode < 400 {
		// A declared binary type is described, not downloaded.
		p.size = resp.ContentLength
		return p, nil
	}
	body, truncated, err := readLimited(resp.Body, w.opts.MaxBytes)
	if err != nil {
		return nil, w.describe(ctx, call, p.url, err)
	}
	if p.mediaType == "" {
		p.mediaType = mediaType(http.DetectContentType(body))
		p.kind = kindOf(p.mediaType)
		header = p.mediaType
	}
	p.size, p.truncated = int64(len(body)), truncated
	if resp.StatusCode >= 400 {
		return nil, statusError(p, resp, body)
	}
	if p.kind != kindBinary {
		p.body = toUTF8(body, header)
	}
	return p, nil
}

// readLimited reads at most max bytes and reports whether there was more.
func readLimited(r io.Reader, max int64) ([]byte, bool, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(b)) > max {
		return b[:max], true, nil
	}
	return b, false, nil
}

// toUTF8 decodes body from the charset the header or the document
// declares, and replaces invalid sequences (such as one cut by the size
// limit).
func toUTF8(body []byte, contentType string) []byte {
	if enc, name, _ := charset.DetermineEncoding(body, contentType); name != "utf-8" && enc != nil {
		if out, err := enc.NewDecoder().Bytes(body); err == nil {
			body = out
		}
	}
	if !utf8.Valid(body) {
		body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
	}
	return body
}

func mediaType(header string) string {
	if header == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(header)
	if err != nil {
		mt, _, _ = strings.Cut(header, ";")
	}
	return strings.ToLower(strings.TrimSpace(mt))
}

// kindOf sorts a media type into the four kinds.
func kindOf(mt string) kind {
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return kindHTML
	case mt == "application/json" || strings.HasSuffix(mt, "+json") || mt == "application/x-ndjson":
		return kindJSON
	case strings.HasPrefix(mt, "text/"), strings.HasSuffix(mt, "+xml"),
		mt == "application/xml", mt == "application/javascript", mt == "application/ecmascript",
		mt == "application/yaml", mt == "application/x-yaml", mt == "application/toml",
		mt == "application/sql", mt == "application/graphql", mt == "application/x-sh":
		return kindText
	}
	return kindBinary
}

// statusError describes an HTTP error answer, with the start of a text
// body, which often says what went wrong.
func statusError(p *page, resp *http.Response, body []byte) error {
	msg := fmt.Sprintf("%s answered HTTP %s", p.url.Redacted(), resp.Status)
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		msg += "; the site is rate limiting, try again later or use another source"
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		msg += "; the page needs a login or refuses automated clients, try another source"
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		msg += "; the page does not exist, check the URL or search for it"
	}
	if p.kind == kindJSON || p.kind == kindText {
		if s := oneLine(string(toUTF8(body, p.mediaType)), 300); s != "" {
			msg += "\nresponse: " + s
		}
	}
	return errors.New(msg)
}

// describe turns a client error into a message the model can act on.
func (w *tools) describe(ctx context.Context, call executor.Call, u *url.URL, err error) error {
	if isBlocked(err) {
		return w.refused(call, err)
	}
	if errors.Is(context.Cause(ctx), errTimeout) {
		return fmt.Errorf("fetching %s timed out after %s; the site is slow or unreachable: try again later or use another source", u.Redacted(), w.opts.Timeout)
	}
	var re *redirectError
	if errors.As(err, &re) {
		return fmt.Errorf("fetching %s: %v", u.Redacted(), re)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("fetching %s stopped: %v", u.Redacted(), context.Cause(ctx))
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		if dns.IsNotFound {
			return fmt.Errorf("the host %s does not exist (DNS: no such host); check the URL", dns.Name)
		}
		return fmt.Errorf("could not resolve %s: %v; try again later", dns.Name, dns.Err)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("fetching %s failed: %v", u.Redacted(), err)
}

// refused logs a refusal by the guard and returns the error itself,
// unwrapped from the client's error chain.
func (w *tools) refused(call executor.Call, err error) error {
	var b *BlockedError
	if errors.As(err, &b) {
		w.lg.Warn("web: refused destination", "session", call.SessionID, "host", b.Host, "addr", b.Addr, "reason", b.Reason)
		return b
	}
	var u *URLError
	if errors.As(err, &u) {
		return u
	}
	return err
}

// oneLine collapses whitespace and cuts s to max characters.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max]) + "…"
	}
	return s
}

// sizeText renders a byte count: "512 B", "12.3 KiB", "4.0 MiB".
func sizeText(n int64) string {
	switch {
	case n < 0:
		return "unknown size"
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

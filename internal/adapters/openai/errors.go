package openai

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	oai "github.com/sashabaranov/go-openai"
)

// Sentinel errors. Errors returned by Complete wrap one of them (or the
// context's cause, when the caller's context ended); test with errors.Is.
var (
	// ErrTimeout means an attempt took longer than Options.RequestTimeout,
	// or the provider answered 408 Request Timeout.
	ErrTimeout = errors.New("openai: request timed out")
	// ErrRateLimited means the provider answered 429 Too Many Requests.
	ErrRateLimited = errors.New("openai: rate limited")
	// ErrServer means the provider failed on its side (a 5xx status).
	ErrServer = errors.New("openai: provider error")
	// ErrAuth means the provider refused the credentials (401 or 403).
	ErrAuth = errors.New("openai: not authorized")
	// ErrInvalidRequest means the request was refused as invalid: by the
	// provider with a 4xx status other than those above, or before sending
	// (no model configured, a tool schema that is not JSON, a combination
	// go-openai rejects).
	ErrInvalidRequest = errors.New("openai: invalid request")
	// ErrConnection means the provider could not be reached, or the
	// connection failed before a response arrived.
	ErrConnection = errors.New("openai: connection failed")
	// ErrStream means the response stream was malformed, carried an error
	// event, or broke off before it ended.
	ErrStream = errors.New("openai: broken response stream")
	// ErrEmptyResponse means the stream ended without a single choice. An
	// answer with empty content is not an error: the caller decides what
	// an empty answer means.
	ErrEmptyResponse = errors.New("openai: empty response")
)

// StatusError is an error status answered by the provider. It wraps
// ErrTimeout (408), ErrRateLimited (429), ErrAuth (401, 403), ErrServer
// (5xx) or ErrInvalidRequest (any other status), so errors.Is works on it;
// errors.As gives access to the provider's error code, such as
// "context_length_exceeded".
type StatusError struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Type and Code are the provider's error type and code, if it sent any.
	Type string
	Code string
	// Message is the provider's message (or the start of a non-JSON body).
	Message string
}

// Error returns the sentinel's text, the status and the provider's message.
func (e *StatusError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v: status %d", e.Unwrap(), e.StatusCode)
	if e.Code != "" {
		fmt.Fprintf(&b, " (%s)", e.Code)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// Unwrap returns the sentinel for the status.
func (e *StatusError) Unwrap() error {
	switch {
	case e.StatusCode == http.StatusRequestTimeout:
		return ErrTimeout
	case e.StatusCode == http.StatusTooManyRequests:
		return ErrRateLimited
	case e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden:
		return ErrAuth
	case e.StatusCode >= 500:
		return ErrServer
	default:
		return ErrInvalidRequest
	}
}

// maxMessage bounds the provider text kept in an error.
const maxMessage = 500

// statusError extracts the provider's error status from a go-openai error.
func statusError(err error) (*StatusError, bool) {
	var apiErr *oai.APIError
	if errors.As(err, &apiErr) && apiErr.HTTPStatusCode > 0 {
		se := &StatusError{StatusCode: apiErr.HTTPStatusCode, Type: apiErr.Type, Message: clip(apiErr.Message)}
		// go-openai decodes "code": null as the number 0.
		if code := apiErr.Code; code != nil && code != 0 {
			se.Code = fmt.Sprint(code)
		}
		return se, true
	}
	var reqErr *oai.RequestError
	if errors.As(err, &reqErr) && reqErr.HTTPStatusCode > 0 {
		msg := strings.TrimSpace(string(reqErr.Body))
		if msg == "" {
			msg = http.StatusText(reqErr.HTTPStatusCode)
		}
		return &StatusError{StatusCode: reqErr.HTTPStatusCode, Message: clip(msg)}, true
	}
	return nil, false
}

// clip shortens s to maxMessage bytes without cutting a UTF-8 sequence.
func clip(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	cut := maxMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

package openai

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
)

// recorder is the HTTP doer of one attempt. It remembers the response
// status and headers (go-openai's errors do not carry Retry-After) and puts
// an explicit temperature of 0 back into the body.
type recorder struct {
	client          *http.Client
	zeroTemperature bool

	sent   bool // the request reached the HTTP client
	status int
	header http.Header
}

// Do sends req with the underlying client.
func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	if r.zeroTemperature && req.Body != nil {
		if err := insertZeroTemperature(req); err != nil {
			return nil, err
		}
	}
	r.sent = true
	resp, err := r.client.Do(req)
	if resp != nil {
		r.status, r.header = resp.StatusCode, resp.Header
	}
	return resp, err
}

// insertZeroTemperature adds "temperature":0 to the JSON object in req's
// body. go-openai omits the field when it is 0, so it is never duplicated.
func insertZeroTemperature(req *http.Request) error {
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return fmt.Errorf("read request body: %w", err)
	}
	rest, ok := bytes.CutPrefix(bytes.TrimSpace(body), []byte("{"))
	if !ok {
		return fmt.Errorf("%w: request body is not a JSON object", ErrInvalidRequest)
	}
	out := []byte(`{"temperature":0`)
	if len(bytes.TrimSpace(rest)) > 0 && bytes.TrimSpace(rest)[0] != '}' {
		out = append(out, ',')
	}
	out = append(out, rest...)
	req.Body = io.NopCloser(bytes.NewReader(out))
	req.ContentLength = int64(len(out))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(out)), nil }
	return nil
}

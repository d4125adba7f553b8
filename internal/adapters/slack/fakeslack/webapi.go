package fakeslack

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"math"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Call is one recorded Web API call.
type Call struct {
	// Method is the API method, like "chat.postMessage".
	Method string
	// Form holds the query and form-encoded body parameters, token included.
	Form url.Values
	// JSON is the decoded body of a JSON request; nil for form requests.
	JSON map[string]any
	At   time.Time
	// Limited reports that RateLimit made the server answer 429.
	Limited bool
	// Error is the error code the call was answered with; empty when ok.
	Error string
}

// apiRequest is a Web API request, decoded.
type apiRequest struct {
	method string
	token  string
	form   url.Values
	json   map[string]any
}

// get returns parameter name from the form, or else from the JSON body; a
// non-string JSON value is returned as its JSON encoding, so blocks sent as
// an array read the same as blocks sent as a form string.
func (r *apiRequest) get(name string) string {
	if v, ok := r.form[name]; ok && len(v) > 0 {
		return v[0]
	}
	switch v := r.json[name].(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

// has reports whether parameter name was sent at all.
func (r *apiRequest) has(name string) bool {
	if _, ok := r.form[name]; ok {
		return true
	}
	_, ok := r.json[name]
	return ok
}

// apiError is a failed call: Slack's error code and, for invalid_blocks and
// the like, the response_metadata messages that explain it.
type apiError struct {
	code     string
	messages []string
}

func fail(code string, messages ...string) *apiError {
	return &apiError{code: code, messages: messages}
}

// apiFunc answers one Web API method. It runs with s.mu held and returns the
// fields of the response besides "ok".
type apiFunc func(s *Server, r *apiRequest) (map[string]any, *apiError)

type methodSpec struct {
	fn apiFunc
	// app marks methods that take the app-level token instead of the bot token.
	app bool
}

// methods is the table of Web API methods the server answers.
var methods = map[string]methodSpec{
	"auth.test":                    {fn: (*Server).authTest},
	"apps.connections.open":        {fn: (*Server).connectionsOpen, app: true},
	"chat.postMessage":             {fn: (*Server).postMessage},
	"chat.update":                  {fn: (*Server).updateMessage},
	"chat.delete":                  {fn: (*Server).deleteMessage},
	"chat.postEphemeral":           {fn: (*Server).postEphemeral},
	"reactions.add":                {fn: (*Server).addReaction},
	"users.info":                   {fn: (*Server).userInfo},
	"conversations.replies":        {fn: (*Server).replies},
	"conversations.history":        {fn: (*Server).history},
	"views.open":                   {fn: (*Server).openView},
	"files.getUploadURLExternal":   {fn: (*Server).getUploadURL},
	"files.completeUploadExternal": {fn: (*Server).completeUpload},
}

type rateLimit struct {
	n          int
	retryAfter time.Duration
}

// RateLimit makes the next n calls of method answer HTTP 429 with
// {"ok":false,"error":"ratelimited"} and a Retry-After header of
// retryAfter in whole seconds, rounded up and at least 1. Limited calls are
// recorded with Call.Limited set and change nothing. A later RateLimit for
// the same method replaces the earlier one.
func (s *Server) RateLimit(method string, n int, retryAfter time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limits[method] = &rateLimit{n: n, retryAfter: retryAfter}
}

// Calls returns copies of the recorded calls of method, in arrival order;
// an empty method returns every call.
func (s *Server) Calls(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if method != "" && c.Method != method {
			continue
		}
		c.Form = cloneValues(c.Form)
		c.JSON = cloneJSON(c.JSON)
		out = append(out, c)
	}
	return out
}

func (s *Server) api(w http.ResponseWriter, r *http.Request) {
	req, decodeErr := decodeAPIRequest(r)
	call := Call{Method: req.method, Form: req.form, JSON: req.json, At: time.Now()}

	s.mu.Lock()
	if lim := s.limits[req.method]; lim != nil && lim.n > 0 {
		lim.n--
		secs := max(1, int(math.Ceil(lim.retryAfter.Seconds())))
		call.Limited, call.Error = true, "ratelimited"
		s.calls = append(s.calls, call)
		s.mu.Unlock()
		s.logf("%s -> 429 ratelimited, Retry-After %d", req.method, secs)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"ok": false, "error": "ratelimited"})
		return
	}
	var (
		resp   map[string]any
		apiErr *apiError
	)
	spec, known := methods[req.method]
	switch {
	case decodeErr != nil:
		apiErr = decodeErr
	case !known:
		apiErr = fail("unknown_method")
	default:
		apiErr = s.authorize(spec, req.token)
		if apiErr == nil {
			resp, apiErr = spec.fn(s, req)
		}
	}
	if apiErr != nil {
		call.Error = apiErr.code
	}
	s.calls = append(s.calls, call)
	s.mu.Unlock()

	if apiErr != nil {
		s.logf("%s -> error %s %v", req.method, apiErr.code, apiErr.messages)
		body := map[string]any{"ok": false, "error": apiErr.code}
		if len(apiErr.messages) > 0 {
			body["response_metadata"] = map[string]any{"messages": apiErr.messages}
		}
		writeJSON(w, http.StatusOK, body)
		return
	}
	s.logf("%s -> ok", req.method)
	if resp == nil {
		resp = map[string]any{}
	}
	resp["ok"] = true
	writeJSON(w, http.StatusOK, resp)
}

// authorize checks the call's token: the bot token for most methods, the
// app-level token for apps.connections.open.
func (s *Server) authorize(spec methodSpec, token string) *apiError {
	want, other := s.opts.BotToken, s.opts.AppToken
	if spec.app {
		want, other = other, want
	}
	switch token {
	case want:
		return nil
	case "":
		return fail("not_authed")
	case other:
		return fail("not_allowed_token_type")
	default:
		return fail("invalid_auth")
	}
}

// decodeAPIRequest reads the method, token and parameters of r. slack-go
// sends most methods form-encoded with the token as a form field, and
// apps.connections.open and views.* as JSON with a Bearer header; both are
// accepted everywhere. The returned request is usable even with an error.
func decodeAPIRequest(r *http.Request) (*apiRequest, *apiError) {
	req := &apiRequest{method: r.PathValue("method"), form: url.Values{}}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var decodeErr *apiError
	switch ct {
	case "application/json":
		req.form = r.URL.Query()
		body, err := io.ReadAll(r.Body)
		if err != nil {
			decodeErr = fail("invalid_json")
			break
		}
		if len(bytes.TrimSpace(body)) > 0 && !bytes.Equal(bytes.TrimSpace(body), []byte("null")) {
			if err := json.Unmarshal(body, &req.json); err != nil {
				decodeErr = fail("invalid_json")
			}
		}
	case "multipart/form-data":
		if err := r.ParseMultipartForm(32 << 20); err != nil {
			decodeErr = fail("invalid_form_data")
		}
		req.form = r.Form
	default:
		if err := r.ParseForm(); err != nil {
			decodeErr = fail("invalid_form_data")
		}
		req.form = r.Form
	}
	if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		req.token = bearer
	} else {
		req.token = req.get("token")
	}
	return req, decodeErr
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func cloneValues(v url.Values) url.Values {
	if v == nil {
		return nil
	}
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// cloneJSON deep-copies a decoded JSON object.
func cloneJSON(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := maps.Clone(m)
	for k, v := range out {
		out[k] = cloneJSONValue(v)
	}
	return out
}

func cloneJSONValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return cloneJSON(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = cloneJSONValue(e)
		}
		return out
	default:
		return v
	}
}

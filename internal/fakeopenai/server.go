package fakeopenai

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// DefaultModel is the model id GET /v1/models lists unless SetModels says otherwise.
const DefaultModel = "fake-model"

// Server is a fake OpenAI-compatible API. Its methods are safe for
// concurrent use.
type Server struct {
	srv       *httptest.Server
	done      chan struct{}
	closeOnce sync.Once

	mu       sync.Mutex
	script   []Response
	handler  Handler
	requests []Request
	models   []string
}

// New starts a Server on 127.0.0.1 and closes it when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{done: make(chan struct{}), models: []string{DefaultModel}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("GET /v1/models", s.listModels)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, Response{Status: http.StatusNotFound, ErrorMessage: fmt.Sprintf("fakeopenai: no route for %s %s", r.Method, r.URL.Path)})
	})
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// URL returns the API base URL, ending in "/v1" (no trailing slash).
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Close releases requests held by Hang and shuts the server down. Later
// requests fail to connect. Close may be called more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.srv.Close()
	})
}

// Reply appends replies to the script. Scripted replies answer requests in
// order and take precedence over the Handler.
func (s *Server) Reply(rs ...Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, rs...)
}

// SetHandler installs h to answer requests once the script is used up; nil
// removes it. With neither a scripted reply nor a handler, the server
// answers 500 with an error message saying so.
func (s *Server) SetHandler(h Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = h
}

// SetModels sets the model ids listed by GET /v1/models.
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = append([]string(nil), ids...)
}

// Requests returns a copy of the chat-completions requests received so far,
// in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Pending returns the number of scripted replies not yet used.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script)
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, Response{Status: http.StatusBadRequest, ErrorMessage: "fakeopenai: read body: " + err.Error()})
		return
	}
	req, decodeErr := decodeRequest(body)
	req.Header = r.Header.Clone()

	s.mu.Lock()
	req.Seq = len(s.requests) + 1
	s.requests = append(s.requests, req)
	var (
		resp  Response
		found = true
	)
	switch {
	case decodeErr != nil:
		resp = Response{Status: http.StatusBadRequest, ErrorMessage: "fakeopenai: invalid request body: " + decodeErr.Error()}
	case len(s.script) > 0:
		resp = s.script[0]
		s.script = s.script[1:]
	case s.handler != nil:
		h := s.handler
		s.mu.Unlock()
		resp = h(req)
		s.mu.Lock()
	default:
		found = false
	}
	s.mu.Unlock()

	if !found {
		writeError(w, Response{
			Status:       http.StatusInternalServerError,
			ErrorType:    "fakeopenai_error",
			ErrorMessage: fmt.Sprintf("fakeopenai: no reply for request #%d: the script is empty and no handler is set", req.Seq),
		})
		return
	}
	s.respond(w, r, req, resp)
}

// respond writes resp as the answer to req.
func (s *Server) respond(w http.ResponseWriter, r *http.Request, req Request, resp Response) {
	if resp.Hang {
		s.hang(r)
		return
	}
	if resp.RawBody != "" {
		if req.Stream && resp.Status == 0 {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		if resp.RetryAfter != "" {
			w.Header().Set("Retry-After", resp.RetryAfter)
		}
		w.WriteHeader(cmp.Or(resp.Status, http.StatusOK))
		io.WriteString(w, resp.RawBody)
		return
	}
	if resp.Status != 0 && resp.Status != http.StatusOK {
		writeError(w, resp)
		return
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(completion(req, resp))
		return
	}
	s.stream(w, r, req, resp)
}

// hang blocks until the client goes away or the server closes.
func (s *Server) hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.done:
	}
}

func (s *Server) listModels(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	ids := append([]string(nil), s.models...)
	s.mu.Unlock()
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	for _, id := range ids {
		list.Data = append(list.Data, model{ID: id, Object: "model", Created: created, OwnedBy: "fakeopenai"})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(list)
}

// decodeRequest decodes a chat-completions body. The returned Request holds
// Raw even when decoding fails.
func decodeRequest(body []byte) (Request, error) {
	req := Request{Raw: append(json.RawMessage(nil), body...)}
	var extra struct {
		ToolChoice    json.RawMessage `json:"tool_choice"`
		StreamOptions *struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return req, err
	}
	if err := json.Unmarshal(body, &extra); err != nil {
		return req, err
	}
	if extra.StreamOptions != nil {
		req.IncludeUsage = extra.StreamOptions.IncludeUsage
	}
	if len(extra.ToolChoice) > 0 && string(extra.ToolChoice) != "null" {
		var choice string
		if json.Unmarshal(extra.ToolChoice, &choice) == nil {
			req.ToolChoice = choice
		} else {
			req.ToolChoice = string(extra.ToolChoice)
		}
	}
	return req, nil
}

// writeError writes OpenAI's error JSON with resp.Status.
func writeError(w http.ResponseWriter, resp Response) {
	msg, typ, code := resp.ErrorMessage, resp.ErrorType, resp.ErrorCode
	if msg == "" {
		msg = fmt.Sprintf("fakeopenai: scripted error %d %s", resp.Status, http.StatusText(resp.Status))
	}
	if typ == "" {
		typ = errorType(resp.Status)
	}
	if code == "" && resp.Status == http.StatusTooManyRequests {
		code = "rate_limit_exceeded"
	}
	var body struct {
		Error struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Param   *string `json:"param"`
			Code    *string `json:"code"`
		} `json:"error"`
	}
	body.Error.Message, body.Error.Type = msg, typ
	if code != "" {
		body.Error.Code = &code
	}
	if resp.RetryAfter != "" {
		w.Header().Set("Retry-After", resp.RetryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(resp.Status)
	json.NewEncoder(w).Encode(body)
}

func errorType(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status == http.StatusUnauthorized:
		return "authentication_error"
	case status >= 500:
		return "server_error"
	default:
		return "invalid_request_error"
	}
}

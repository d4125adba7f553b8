package fakeslack

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// Response is a JSON body posted to a response_url.
type Response struct {
	// URL is the response_url posted to.
	URL string
	// Body is the request body as received; JSON is it decoded, or nil when
	// it is not a JSON object.
	Body json.RawMessage
	JSON map[string]any
	At   time.Time
	// Error is the error code the post was answered with; empty when ok.
	Error string
}

// respTarget is the message a response_url acts on, when it has one.
type respTarget struct{ channel, ts string }

// ResponseURL returns a fresh response_url on this server, like
// "http://127.0.0.1:PORT/response/3". JSON posted to it is recorded
// (Responses) and answered {"ok":true}, or {"ok":false,"error":"no_text"}
// for a message with neither text nor blocks.
func (s *Server) ResponseURL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.responseURL(respTarget{})
}

// responseURL issues a response_url acting on target; replace_original and
// delete_original posts to it change that message. The caller holds s.mu.
func (s *Server) responseURL(target respTarget) string {
	s.respURLs = append(s.respURLs, target)
	return fmt.Sprintf("%s/response/%d", s.URL(), len(s.respURLs))
}

// Responses returns copies of the posts to response URLs, in order.
func (s *Server) Responses() []Response {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.responses)
	for i := range out {
		out[i].Body = append(json.RawMessage(nil), out[i].Body...)
		out[i].JSON = cloneJSON(out[i].JSON)
	}
	return out
}

func (s *Server) respond(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "fakeslack: read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	var obj map[string]any
	jsonErr := json.Unmarshal(body, &obj)

	s.mu.Lock()
	if n < 1 || n > len(s.respURLs) {
		s.mu.Unlock()
		http.Error(w, "fakeslack: unknown response_url", http.StatusNotFound)
		return
	}
	var e *apiError
	if jsonErr != nil {
		e = fail("invalid_payload")
	} else {
		e = s.applyResponse(s.respURLs[n-1], obj)
	}
	resp := Response{URL: s.URL() + r.URL.Path, Body: body, JSON: obj, At: time.Now()}
	if e != nil {
		resp.Error = e.code
	}
	s.responses = append(s.responses, resp)
	s.mu.Unlock()

	if e != nil {
		s.logf("response_url %d -> error %s", n, e.code)
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": e.code})
		return
	}
	s.logf("response_url %d -> ok", n)
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}

// applyResponse checks a response_url message and applies delete_original
// and replace_original to the message the URL belongs to. The caller holds
// s.mu.
func (s *Server) applyResponse(target respTarget, obj map[string]any) *apiError {
	orig := s.find(target.channel, target.ts)
	if del, _ := obj["delete_original"].(bool); del {
		if orig != nil {
			s.remove(orig.Channel, orig.TS)
		}
		return nil
	}
	text := str(obj["text"])
	if e := checkText(text); e != nil {
		return e
	}
	var rawBlocks string
	if obj["blocks"] != nil {
		b, _ := json.Marshal(obj["blocks"])
		rawBlocks = string(b)
	}
	blocks, e := checkBlocks(rawBlocks, maxMessageBlocks)
	if e != nil {
		return e
	}
	if text == "" && blocks == nil && obj["attachments"] == nil {
		return fail("no_text")
	}
	if repl, _ := obj["replace_original"].(bool); repl && orig != nil {
		orig.Text, orig.Blocks, orig.Edited = text, blocks, true
	}
	return nil
}

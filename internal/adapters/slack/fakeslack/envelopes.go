package fakeslack

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"
)

// Ack is an acknowledgement the Socket Mode client sent for an envelope.
type Ack struct {
	EnvelopeID string
	// Payload is the ack's payload (a view_submission response, say), or nil.
	Payload json.RawMessage
	// Size is the length of the websocket message in bytes; Slack drops acks
	// of 20KB or more.
	Size int
	At   time.Time
}

// Send sends an envelope of type typ ("events_api", "interactive" or
// "slash_commands") carrying payload, and returns its envelope id. Like
// Slack, it delivers each envelope to one connection: the newest that has
// not been sent a disconnect. With none, the envelope is queued and
// delivered when the next connection opens. A retryAttempt above 0 sets
// retry_reason "timeout". payload may be any value encoding/json accepts, or
// raw JSON as []byte or json.RawMessage; Send panics when it cannot be
// encoded.
func (s *Server) Send(typ string, payload any, retryAttempt int) string {
	var raw []byte
	switch p := payload.(type) {
	case []byte:
		raw = p
	case json.RawMessage:
		raw = p
	default:
		var err error
		if raw, err = json.Marshal(payload); err != nil {
			panic(fmt.Sprintf("fakeslack: Send: encode payload: %v", err))
		}
	}
	s.mu.Lock()
	id := s.nextID("env-")
	s.mu.Unlock()
	reason := ""
	if retryAttempt > 0 {
		reason = "timeout"
	}
	env, err := json.Marshal(map[string]any{
		"envelope_id":              id,
		"type":                     typ,
		"payload":                  json.RawMessage(raw),
		"accepts_response_payload": typ != "events_api",
		"retry_attempt":            retryAttempt,
		"retry_reason":             reason,
	})
	if err != nil {
		panic(fmt.Sprintf("fakeslack: Send: encode payload: %v", err))
	}
	for {
		s.mu.Lock()
		c := s.target()
		if c == nil {
			s.pending = append(s.pending, env)
			s.mu.Unlock()
			s.logf("send %s %s: no connection, queued", typ, id)
			return id
		}
		s.mu.Unlock()
		if err := c.write(env); err != nil {
			s.logf("send %s %s to socket %d: %v", typ, id, c.id, err)
			s.unregister(c)
			continue
		}
		s.logf("send %s %s to socket %d", typ, id, c.id)
		return id
	}
}

// SendDisconnect sends {"type":"disconnect","reason":"refresh_requested"}
// to every open connection, as Slack does before it rotates a connection.
// Those connections get no further envelopes; the client is expected to
// open a new one.
func (s *Server) SendDisconnect() {
	s.mu.Lock()
	var targets []*conn
	for _, c := range s.conns {
		if !c.draining {
			c.draining = true
			targets = append(targets, c)
		}
	}
	s.mu.Unlock()
	msg := []byte(`{"type":"disconnect","reason":"refresh_requested","debug_info":{"host":"fakeslack"}}`)
	for _, c := range targets {
		if err := c.write(msg); err != nil {
			s.unregister(c)
		}
	}
}

// DropConnections closes every websocket abruptly, without a close frame.
func (s *Server) DropConnections() {
	s.mu.Lock()
	conns := s.conns
	s.conns = nil
	s.mu.Unlock()
	for _, c := range conns {
		s.unregister(c)
	}
}

// Acks returns copies of the acks received so far, in arrival order.
func (s *Server) Acks() []Ack {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.acks)
	for i := range out {
		out[i].Payload = append(json.RawMessage(nil), out[i].Payload...)
	}
	return out
}

// Ack returns the first ack for envelopeID, and whether there is one.
func (s *Server) Ack(envelopeID string) (Ack, bool) {
	for _, a := range s.Acks() {
		if a.EnvelopeID == envelopeID {
			return a, true
		}
	}
	return Ack{}, false
}

// WaitAck waits for the ack of envelopeID and returns it, failing t after
// 30s.
func (s *Server) WaitAck(t testing.TB, envelopeID string) Ack {
	t.Helper()
	var a Ack
	Eventually(t, "the ack of envelope "+envelopeID, func() bool {
		var ok bool
		a, ok = s.Ack(envelopeID)
		return ok
	})
	return a
}

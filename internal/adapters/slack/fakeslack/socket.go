package fakeslack

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// pingInterval is how often the server pings each websocket. slack-go's
// socketmode client reconnects when it sees no ping for its ping interval
// (30s by default).
const pingInterval = 500 * time.Millisecond

// conn is one websocket connection.
type conn struct {
	id        int
	ws        *websocket.Conn
	wmu       sync.Mutex // serializes data frames; pings use WriteControl
	draining  bool       // sent a disconnect; guarded by Server.mu
	done      chan struct{}
	closeOnce sync.Once
}

func (c *conn) write(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.writeLocked(b)
}

func (c *conn) writeLocked(b []byte) error {
	c.ws.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return c.ws.WriteMessage(websocket.TextMessage, b)
}

var upgrader = websocket.Upgrader{
	// slack-go sends Origin: https://api.slack.com, which the default check
	// would refuse.
	CheckOrigin: func(*http.Request) bool { return true },
}

// connectionsOpen answers apps.connections.open with a single-use websocket
// URL on this server.
func (s *Server) connectionsOpen(*apiRequest) (map[string]any, *apiError) {
	ticket := s.nextID("ticket")
	s.tickets[ticket] = true
	return map[string]any{"url": s.wsURL() + "/socket?ticket=" + ticket + "&app_id=" + AppID}, nil
}

// socket serves a Socket Mode websocket: hello, a ping, the queued
// envelopes, then pings every pingInterval while it reads acks.
func (s *Server) socket(w http.ResponseWriter, r *http.Request) {
	ticket := r.URL.Query().Get("ticket")
	s.mu.Lock()
	valid := s.tickets[ticket]
	delete(s.tickets, ticket)
	s.mu.Unlock()
	if !valid {
		http.Error(w, "fakeslack: unknown or used socket ticket", http.StatusUnauthorized)
		return
	}
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade has answered
	}
	c := &conn{ws: ws, done: make(chan struct{})}
	// Hold the write lock until hello and the queue are out, so a concurrent
	// Send that picks this connection writes after them.
	c.wmu.Lock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		c.wmu.Unlock()
		ws.Close()
		return
	}
	s.connected++
	c.id = s.connected
	s.conns = append(s.conns, c)
	queued := s.pending
	s.pending = nil
	live := len(s.conns)
	s.wg.Add(2)
	s.mu.Unlock()
	defer s.wg.Done()
	s.logf("socket %d connected, %d queued envelopes", c.id, len(queued))

	hello, _ := json.Marshal(map[string]any{
		"type":            "hello",
		"num_connections": live,
		"debug_info":      map[string]any{"host": "fakeslack", "build_number": 1, "approximate_connection_time": 18060},
		"connection_info": map[string]any{"app_id": AppID},
	})
	err = c.writeLocked(hello)
	if err == nil {
		err = ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(time.Second))
	}
	for i, b := range queued {
		if err == nil {
			err = c.writeLocked(b)
		}
		if err != nil {
			s.requeue(queued[i:])
			break
		}
	}
	c.wmu.Unlock()

	go s.ping(c)
	if err == nil {
		s.read(c)
	}
	s.unregister(c)
}

// read records acks until the connection fails.
func (s *Server) read(c *conn) {
	for {
		typ, data, err := c.ws.ReadMessage()
		if err != nil {
			s.logf("socket %d closed: %v", c.id, err)
			return
		}
		var a struct {
			EnvelopeID string          `json:"envelope_id"`
			Payload    json.RawMessage `json:"payload"`
		}
		if typ != websocket.TextMessage || json.Unmarshal(data, &a) != nil || a.EnvelopeID == "" {
			s.logf("socket %d: unexpected message %q", c.id, data)
			continue
		}
		s.mu.Lock()
		s.acks = append(s.acks, Ack{EnvelopeID: a.EnvelopeID, Payload: a.Payload, Size: len(data), At: time.Now()})
		s.mu.Unlock()
		s.logf("socket %d: ack %s, %d bytes", c.id, a.EnvelopeID, len(data))
	}
}

// ping pings c every pingInterval until it closes.
func (s *Server) ping(c *conn) {
	defer s.wg.Done()
	t := time.NewTicker(pingInterval)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
			if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(time.Second)); err != nil {
				c.ws.Close() // read fails and unregisters c
				return
			}
		}
	}
}

// unregister forgets c and closes it. It may be called more than once.
func (s *Server) unregister(c *conn) {
	s.mu.Lock()
	s.conns = slices.DeleteFunc(s.conns, func(e *conn) bool { return e == c })
	s.mu.Unlock()
	c.closeOnce.Do(func() { close(c.done) })
	c.ws.Close()
}

// target returns the connection new envelopes go to: the newest one not
// asked to disconnect, or nil. The caller holds s.mu.
func (s *Server) target() *conn {
	for _, c := range slices.Backward(s.conns) {
		if !c.draining {
			return c
		}
	}
	return nil
}

// requeue puts envelopes that could not be written back at the head of the
// queue.
func (s *Server) requeue(envs [][]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = append(slices.Clone(envs), s.pending...)
}

// Connections returns the number of websocket connections opened so far.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connected
}

// WaitConnections waits until at least n connections have been opened and
// one is open to take envelopes, failing t after 30s.
func (s *Server) WaitConnections(t testing.TB, n int) {
	t.Helper()
	Eventually(t, fmt.Sprintf("%d socket connection(s)", n), func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.connected >= n && s.target() != nil
	})
}

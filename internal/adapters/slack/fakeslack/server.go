package fakeslack

import (
	"cmp"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Defaults for the zero fields of Options.
const (
	DefaultTeamID    = "T0001"
	DefaultBotUserID = "UBOT"
	DefaultBotID     = "BBOT"
	DefaultBotToken  = "xoxb-test"
	DefaultAppToken  = "xapp-test"
)

// AppID is the app id the server reports in events, views and hello messages.
const AppID = "A0001"

// VerificationToken is the legacy verification token carried in event,
// interaction and slash-command payloads.
const VerificationToken = "fakeslack-verification-token"

// Options configures a Server. The zero value is usable: empty fields take
// the Default values above.
type Options struct {
	TeamID    string
	BotUserID string
	BotID     string
	BotToken  string
	AppToken  string
	// Logf, when set, receives one line per Web API call and socket event.
	// Close waits for the server's goroutines, so t.Logf is safe to pass when
	// Close runs before the test ends.
	Logf func(format string, args ...any)
}

// Server is a fake Slack. Its methods are safe for concurrent use.
type Server struct {
	opts      Options
	srv       *httptest.Server
	closeOnce sync.Once
	wg        sync.WaitGroup // socket goroutines

	mu     sync.Mutex
	closed bool
	seq    int   // ids for files, views, envelopes, tickets, triggers
	lastTS int64 // microseconds of the newest ts handed out
	calls  []Call
	limits map[string]*rateLimit

	msgs       map[string][]*Message // by channel, in ts order
	ephemerals []Ephemeral
	users      map[string]User
	views      []View
	usedTrig   map[string]bool
	files      map[string]*File
	fileOrder  []string
	respURLs   []respTarget // index n-1 for /response/n
	responses  []Response

	tickets   map[string]bool
	conns     []*conn
	connected int
	pending   [][]byte
	acks      []Ack
}

// New starts a Server on 127.0.0.1. The bot user (opts.BotUserID, named
// "bot") is registered for users.info. Call Close when done, typically with
// t.Cleanup(srv.Close).
func New(opts Options) *Server {
	opts.TeamID = cmp.Or(opts.TeamID, DefaultTeamID)
	opts.BotUserID = cmp.Or(opts.BotUserID, DefaultBotUserID)
	opts.BotID = cmp.Or(opts.BotID, DefaultBotID)
	opts.BotToken = cmp.Or(opts.BotToken, DefaultBotToken)
	opts.AppToken = cmp.Or(opts.AppToken, DefaultAppToken)
	s := &Server{
		opts:     opts,
		lastTS:   baseTS,
		limits:   map[string]*rateLimit{},
		msgs:     map[string][]*Message{},
		users:    map[string]User{opts.BotUserID: {ID: opts.BotUserID, Name: "bot", RealName: "bot", IsBot: true}},
		usedTrig: map[string]bool{},
		files:    map[string]*File{},
		tickets:  map[string]bool{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/{method}", s.api)
	mux.HandleFunc("GET /socket", s.socket)
	mux.HandleFunc("POST /upload/{id}", s.upload)
	mux.HandleFunc("GET /files/{id}/{name}", s.download)
	mux.HandleFunc("POST /response/{n}", s.respond)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, fmt.Sprintf("fakeslack: no route for %s %s", r.Method, r.URL.Path), http.StatusNotFound)
	})
	s.srv = httptest.NewServer(mux)
	return s
}

// URL returns the server's origin, like "http://127.0.0.1:PORT".
func (s *Server) URL() string { return s.srv.URL }

// APIURL returns the Web API base with its trailing slash, like
// "http://127.0.0.1:PORT/api/", as slack.OptionAPIURL expects.
func (s *Server) APIURL() string { return s.srv.URL + "/api/" }

// Options returns the options in effect, defaults filled in.
func (s *Server) Options() Options { return s.opts }

// Close drops every websocket, waits for the socket goroutines, and shuts
// the HTTP server down; later requests fail to connect. Close may be called
// more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		conns := append([]*conn(nil), s.conns...)
		s.mu.Unlock()
		for _, c := range conns {
			c.ws.Close()
		}
		s.wg.Wait()
		s.srv.Close()
	})
}

// logf logs through Options.Logf when it is set. It must not be called with
// s.mu held, so a slow logger cannot stall the server.
func (s *Server) logf(format string, args ...any) {
	if s.opts.Logf != nil {
		s.opts.Logf("fakeslack: "+format, args...)
	}
}

// nextID returns a fresh id with prefix, like "F0003". The caller holds s.mu.
func (s *Server) nextID(prefix string) string {
	s.seq++
	return fmt.Sprintf("%s%04d", prefix, s.seq)
}

// wsURL turns the server's http origin into a ws one.
func (s *Server) wsURL() string { return "ws" + strings.TrimPrefix(s.srv.URL, "http") }

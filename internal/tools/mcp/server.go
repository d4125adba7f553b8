package mcp

import (
	"fmt"
	"net/url"
	"regexp"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/threadbot/threadbot/internal/core/executor"
)

// DefaultTimeout is how long one tool call may take when a Server sets no
// Timeout.
const DefaultTimeout = 2 * time.Minute

// StartTimeout bounds starting a server, the initialize handshake and
// listing its tools, on top of the context given to Connect.
const StartTimeout = 30 * time.Second

// Server configures one MCP server. Exactly one of Command and URL is set.
type Server struct {
	// Name names the tool group and prefixes the tool names: letters,
	// digits, '_' and '-', at most 32 characters.
	Name string
	// Command is a stdio server's program and arguments.
	Command []string
	// Env is added to a stdio server's minimal environment.
	Env map[string]string
	// URL is a streamable-HTTP server's endpoint (http or https).
	URL string
	// Headers are sent with every HTTP request (for example Authorization).
	Headers map[string]string
	// Policy is the permission of every tool of the server. A zero
	// Execution means ask-always, since an MCP server is arbitrary code.
	Policy executor.Permission
	// Timeout bounds one tool call; zero means DefaultTimeout.
	Timeout time.Duration

	// transport, when set, replaces Command and URL (tests use the SDK's
	// in-memory transports).
	transport sdk.Transport
}

var validServerName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// validate checks the configuration; errors wrap ErrConfig.
func (s Server) validate() error {
	if !validServerName.MatchString(s.Name) {
		return fmt.Errorf("%w: name %q: use 1 to 32 letters, digits, '_' or '-'", ErrConfig, s.Name)
	}
	switch {
	case s.transport != nil:
	case len(s.Command) > 0 && s.URL != "":
		return fmt.Errorf("%w: set command or url, not both", ErrConfig)
	case len(s.Command) > 0:
		if s.Command[0] == "" {
			return fmt.Errorf("%w: the command's program is empty", ErrConfig)
		}
	case s.URL != "":
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			// The URL itself may hold a token, so it is not repeated here.
			return fmt.Errorf("%w: url is not an absolute http or https URL", ErrConfig)
		}
	default:
		return fmt.Errorf("%w: set a command (stdio) or a url (streamable HTTP)", ErrConfig)
	}
	switch s.Policy.Execution {
	case "", executor.Auto, executor.AskOnce, executor.AskAlways:
	default:
		return fmt.Errorf("%w: execution policy %q: use auto, ask-once or ask-always", ErrConfig, s.Policy.Execution)
	}
	switch s.Policy.Result {
	case "", executor.Never, executor.OnError, executor.Always:
	default:
		return fmt.Errorf("%w: result policy %q: use never, on-error or always", ErrConfig, s.Policy.Result)
	}
	if s.Timeout < 0 {
		return fmt.Errorf("%w: timeout %s is negative", ErrConfig, s.Timeout)
	}
	return nil
}

// policy is the permission the server's tools get.
func (s Server) policy() executor.Permission {
	p := s.Policy
	if p.Execution == "" {
		p.Execution = executor.AskAlways
	}
	if p.Result == "" {
		p.Result = executor.Never
	}
	return p
}

// timeout is the per-call limit.
func (s Server) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return DefaultTimeout
}

// kind names the transport for logs.
func (s Server) kind() string {
	switch {
	case s.transport != nil:
		return "custom"
	case len(s.Command) > 0:
		return "stdio"
	default:
		return "http"
	}
}

// secrets lists the values that must never appear in logs or errors: header
// and environment values, and the URL's password and query values.
func (s Server) secrets() []string {
	var out []string
	for _, v := range s.Headers {
		out = append(out, v)
	}
	for _, v := range s.Env {
		out = append(out, v)
	}
	if u, err := url.Parse(s.URL); err == nil {
		if p, ok := u.User.Password(); ok {
			out = append(out, p)
		}
		if u.RawQuery != "" {
			out = append(out, u.RawQuery)
			for _, vs := range u.Query() {
				out = append(out, vs...)
			}
		}
	}
	return out
}

package mcp

import (
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// inheritedEnv is what a stdio server gets from the bot's environment: what
// programs need to run, never the bot's tokens and keys.
var inheritedEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "TZ",
	"LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES",
	// Windows needs these to start most programs.
	"SystemRoot", "ComSpec", "PATHEXT", "windir", "TEMP", "TMP",
}

// environ returns the environment of a stdio server, sorted: the inherited
// minimum overlaid with the configured variables.
func environ(getenv func(string) (string, bool), extra map[string]string) []string {
	env := map[string]string{}
	for _, k := range inheritedEnv {
		if v, ok := getenv(k); ok {
			env[k] = v
		}
	}
	maps.Copy(env, extra)
	out := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}

// command builds a stdio server's process: its minimal environment, its own
// process group, stderr into w.
func command(s Server, w *stderrLog) *exec.Cmd {
	env := environ(os.LookupEnv, s.Env)
	prog := s.Command[0]
	if p, ok := s.Env["PATH"]; ok && !strings.ContainsRune(prog, filepath.Separator) {
		// Look the program up on the configured PATH, not the bot's.
		if found := lookPath(prog, p); found != "" {
			prog = found
		}
	}
	cmd := exec.Command(prog, s.Command[1:]...)
	cmd.Env = env
	cmd.Stderr = w
	// A grandchild holding stderr open must not block Wait forever.
	cmd.WaitDelay = time.Second
	setProcessGroup(cmd)
	return cmd
}

// lookPath finds an executable named prog in the directories of path, or
// returns "".
func lookPath(prog, path string) string {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		f := filepath.Join(dir, prog)
		if st, err := os.Stat(f); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return f
		}
	}
	return ""
}

// httpTransport returns the streamable-HTTP transport of a server, adding
// the configured headers to every request.
func httpTransport(s Server) *sdk.StreamableClientTransport {
	base := http.DefaultTransport.(*http.Transport).Clone()
	return &sdk.StreamableClientTransport{
		Endpoint:   s.URL,
		HTTPClient: &http.Client{Transport: &headerTransport{base: base, headers: s.Headers}},
		// Tools are listed once; server-initiated messages are not needed,
		// so no standing SSE connection is kept open.
		DisableStandaloneSSE: true,
	}
}

// headerTransport sets fixed headers on every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(req)
}

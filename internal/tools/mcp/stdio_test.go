package mcp

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/threadbot/threadbot/internal/core/executor"
)

func TestStdioServer(t *testing.T) {
	groups, _, errs := connectAll(t, Server{Name: "echoserver", Command: []string{echoBin}})
	if len(errs) > 0 {
		t.Fatalf("errs = %v", errs)
	}
	if len(groups) != 1 || groups[0].Name != "echoserver" {
		t.Fatalf("groups = %v, want one named echoserver", groups)
	}
	// The server pages its list two tools at a time: all six must arrive.
	got := toolNames(groups[0])
	slices.Sort(got)
	want := []string{"echoserver_add", "echoserver_crash", "echoserver_echo", "echoserver_env", "echoserver_fail", "echoserver_pid"}
	if !slices.Equal(got, want) {
		t.Fatalf("tools = %v, want %v", got, want)
	}
	x, asked := newExecutor(t, groups...)

	var echoDef string
	for _, d := range x.Definitions() {
		if d.Name == "echoserver_echo" {
			echoDef = d.Description + " " + string(d.Parameters)
		}
	}
	for _, w := range []string{"Echo the text back.", `"text"`, "the text to echo"} {
		if !strings.Contains(echoDef, w) {
			t.Errorf("echo definition %q lacks %q", echoDef, w)
		}
	}
	if rules := x.ToolRules(); !strings.Contains(rules, "These tools come from the MCP server echoserver") {
		t.Errorf("ToolRules lacks the MCP server line:\n%s", rules)
	}

	tests := []struct {
		tool     string
		args     map[string]any
		status   executor.Status
		wantText string
	}{
		{"echoserver_echo", map[string]any{"text": "hi"}, executor.StatusSuccess, "hi"},
		{"echoserver_add", map[string]any{"a": 2, "b": 3.5}, executor.StatusSuccess, "5.5"},
		{"echoserver_fail", nil, executor.StatusError, "Error: this tool always fails"},
		{"echoserver_add", map[string]any{"a": "two"}, executor.StatusError, "invalid arguments for echoserver_add"},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			r := execute(t, x, tt.tool, tt.args)
			if r.Status != tt.status || !strings.Contains(r.Text, tt.wantText) {
				t.Errorf("got %s %q, want %s containing %q", r.Status, r.Text, tt.status, tt.wantText)
			}
		})
	}
	// The default policy is ask-always: every call that passed validation
	// asked once.
	if n := asked.count(); n != 3 {
		t.Errorf("approvals asked = %d, want 3 (ask-always for each valid call)", n)
	}
}

func TestStdioEnvironment(t *testing.T) {
	t.Setenv("THREADBOT_TEST_SECRET", "bot-secret-value")
	groups, _, errs := connectAll(t, Server{
		Name:    "echoserver",
		Command: []string{echoBin},
		Env:     map[string]string{"GREETING": "hello there"},
		Policy:  executor.Permission{Execution: executor.Auto},
	})
	if len(errs) > 0 {
		t.Fatalf("errs = %v", errs)
	}
	x, asked := newExecutor(t, groups...)
	r := execute(t, x, "echoserver_env", nil)
	if r.Status != executor.StatusSuccess {
		t.Fatalf("env: %s %q", r.Status, r.Text)
	}
	env := strings.Split(r.Text, "\n")
	if !slices.Contains(env, "GREETING=hello there") {
		t.Errorf("env lacks the configured GREETING:\n%s", r.Text)
	}
	if !slices.ContainsFunc(env, func(s string) bool { return strings.HasPrefix(s, "PATH=") }) {
		t.Errorf("env lacks PATH:\n%s", r.Text)
	}
	if strings.Contains(r.Text, "THREADBOT_TEST_SECRET") || strings.Contains(r.Text, "bot-secret-value") {
		t.Errorf("the bot's environment leaked into the server:\n%s", r.Text)
	}
	if n := asked.count(); n != 0 {
		t.Errorf("approvals asked = %d with policy auto, want 0", n)
	}
}

func TestMissingCommandSkipped(t *testing.T) {
	lg, logs := testLogger(t)
	groups, clients, errs := Connect(t.Context(), lg, []Server{
		{Name: "broken", Command: []string{"/nonexistent/threadbot-no-such-server"},
			Env: map[string]string{"API_KEY": "env-secret-1234"}},
		{Name: "echoserver", Command: []string{echoBin}},
	})
	defer clients.Close()
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `mcp server "broken"`) {
		t.Fatalf("errs = %v, want one error naming broken", errs)
	}
	if len(groups) != 1 || groups[0].Name != "echoserver" {
		t.Fatalf("groups = %v, want only echoserver", groups)
	}
	if !strings.Contains(logs.String(), "mcp_server=broken") {
		t.Errorf("the failure was not logged with the server name:\n%s", logs)
	}
	if strings.Contains(logs.String()+errs[0].Error(), "env-secret-1234") {
		t.Errorf("an env value leaked into logs or errors")
	}
	x, _ := newExecutor(t, groups...)
	if r := execute(t, x, "echoserver_echo", map[string]any{"text": "still here"}); r.Text != "still here" {
		t.Errorf("echo after a failed server: %s %q", r.Status, r.Text)
	}
}

func TestServerExitsDuringStart(t *testing.T) {
	// /bin/sh prints to stderr and exits: the handshake fails and the error
	// carries the server's stderr.
	_, _, errs := connectAll(t, Server{Name: "quitter", Command: []string{"/bin/sh", "-c", "echo cannot start: no config >&2; exit 3"}})
	if len(errs) != 1 {
		t.Fatalf("errs = %v, want one", errs)
	}
	if msg := errs[0].Error(); !strings.Contains(msg, "cannot start: no config") || !strings.Contains(msg, "quitter") {
		t.Errorf("error %q should name the server and carry its stderr", msg)
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		srv  Server
		want string
	}{
		{"no name", Server{Command: []string{echoBin}}, "name"},
		{"bad name", Server{Name: "my server", Command: []string{echoBin}}, "name"},
		{"both", Server{Name: "s", Command: []string{echoBin}, URL: "http://127.0.0.1:1/mcp"}, "not both"},
		{"neither", Server{Name: "s"}, "set a command"},
		{"empty program", Server{Name: "s", Command: []string{""}}, "empty"},
		{"bad url", Server{Name: "s", URL: "ftp://example.com/?key=url-secret-99"}, "url"},
		{"bad policy", Server{Name: "s", Command: []string{echoBin}, Policy: executor.Permission{Execution: "sometimes"}}, "sometimes"},
		{"bad result policy", Server{Name: "s", Command: []string{echoBin}, Policy: executor.Permission{Result: "maybe"}}, "maybe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			groups, _, errs := connectAll(t, tt.srv)
			if len(groups) != 0 || len(errs) != 1 {
				t.Fatalf("groups = %d, errs = %v; want none and one error", len(groups), errs)
			}
			if !errors.Is(errs[0], ErrConfig) || !strings.Contains(errs[0].Error(), tt.want) {
				t.Errorf("err = %v, want ErrConfig mentioning %q", errs[0], tt.want)
			}
			if strings.Contains(errs[0].Error(), "url-secret-99") {
				t.Errorf("err = %v repeats the URL's secret", errs[0])
			}
		})
	}
	t.Run("duplicate name", func(t *testing.T) {
		groups, _, errs := connectAll(t,
			Server{Name: "echoserver", Command: []string{echoBin}},
			Server{Name: "echoserver", Command: []string{echoBin}})
		if len(groups) != 1 || len(errs) != 1 || !errors.Is(errs[0], ErrConfig) {
			t.Errorf("groups = %d, errs = %v; want one group and one ErrConfig", len(groups), errs)
		}
	})
}

func TestRestartAfterCrash(t *testing.T) {
	groups, _, errs := connectAll(t, Server{Name: "echoserver", Command: []string{echoBin},
		Policy: executor.Permission{Execution: executor.Auto}})
	if len(errs) > 0 {
		t.Fatalf("errs = %v", errs)
	}
	x, _ := newExecutor(t, groups...)
	pid1 := execute(t, x, "echoserver_pid", nil).Text
	r := execute(t, x, "echoserver_crash", nil)
	if r.Status != executor.StatusError || !strings.Contains(r.Text, "stopped during the call") {
		t.Fatalf("crash: got %s %q, want ERROR saying the server stopped during the call", r.Status, r.Text)
	}
	r = execute(t, x, "echoserver_pid", nil)
	if r.Status != executor.StatusSuccess || r.Text == pid1 {
		t.Errorf("after the crash: got %s %q, want a new server (old pid %s)", r.Status, r.Text, pid1)
	}
	if r := execute(t, x, "echoserver_echo", map[string]any{"text": "back"}); r.Text != "back" {
		t.Errorf("echo after restart: %s %q", r.Status, r.Text)
	}
}

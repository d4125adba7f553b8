package basic

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/core/executor"
)

// fixed is 2026-11-05 13:04:05 UTC, a Thursday.
var fixed = time.Date(2026, 11, 5, 13, 4, 5, 0, time.UTC)

func newExecutor(t *testing.T, opts Options) *executor.Executor {
	t.Helper()
	x := executor.New(nil, executor.Options{SessionID: "s"})
	if err := x.Register(Group(opts)); err != nil {
		t.Fatalf("Register: %v", err)
	}
	if err := x.SetGroupEnabled(GroupName, true); err != nil {
		t.Fatalf("SetGroupEnabled: %v", err)
	}
	return x
}

func TestTimeZones(t *testing.T) {
	now := func() time.Time { return fixed }
	tests := []struct {
		name string
		opts Options
		args map[string]any
		want []string
	}{
		{"default UTC", Options{Now: now}, nil,
			[]string{"2026-11-05T13:04:05Z (Thursday)", "zone: UTC (UTC, UTC+00:00)", "unix: 1793883845"}},
		{"explicit UTC", Options{Now: now}, map[string]any{"zone": "utc"},
			[]string{"2026-11-05T13:04:05Z"}},
		{"Berlin", Options{Now: now}, map[string]any{"zone": "Europe/Berlin"},
			[]string{"2026-11-05T14:04:05+01:00 (Thursday)", "zone: Europe/Berlin (CET, UTC+01:00)", "unix: 1793883845"}},
		{"Kolkata half hour", Options{Now: now}, map[string]any{"zone": "Asia/Kolkata"},
			[]string{"2026-11-05T18:34:05+05:30"}},
		{"date line", Options{Now: now}, map[string]any{"zone": "Pacific/Kiritimati"},
			[]string{"2026-11-06T03:04:05+14:00 (Friday)"}},
		{"configured default", Options{Now: now, DefaultZone: "America/New_York"}, nil,
			[]string{"2026-11-05T08:04:05-05:00 (Thursday)", "EST"}},
		{"argument beats default", Options{Now: now, DefaultZone: "America/New_York"}, map[string]any{"zone": "Asia/Tokyo"},
			[]string{"2026-11-05T22:04:05+09:00"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newExecutor(t, tt.opts)
			r := x.Execute(context.Background(), ToolTime, tt.args, executor.CallOptions{CallID: "c1"})
			if r.Status != executor.StatusSuccess {
				t.Fatalf("status = %s, text = %q", r.Status, r.Text)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.Text, w) {
					t.Errorf("text = %q, want it to contain %q", r.Text, w)
				}
			}
		})
	}
}

func TestTimeZoneErrors(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		args map[string]any
		want string
	}{
		{"unknown", Options{}, map[string]any{"zone": "Mars/Olympus"}, `unknown time zone "Mars/Olympus": use an IANA name such as "Europe/Berlin"`},
		{"abbreviation", Options{}, map[string]any{"zone": "PST"}, "abbreviations like PST are not zones"},
		{"path", Options{}, map[string]any{"zone": "../../etc/passwd"}, "unknown time zone"},
		{"local", Options{}, map[string]any{"zone": "Local"}, "server's own zone"},
		{"bad default", Options{DefaultZone: "Nowhere/Land"}, nil, "configured default time zone is invalid"},
		{"wrong type", Options{}, map[string]any{"zone": 5}, "invalid arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newExecutor(t, tt.opts)
			r := x.Execute(context.Background(), ToolTime, tt.args, executor.CallOptions{CallID: "c1"})
			if r.Status != executor.StatusError {
				t.Fatalf("status = %s, want ERROR; text = %q", r.Status, r.Text)
			}
			if !strings.Contains(r.Text, tt.want) {
				t.Errorf("text = %q, want it to contain %q", r.Text, tt.want)
			}
		})
	}
}

func TestCalculateTool(t *testing.T) {
	x := newExecutor(t, Options{})
	r := x.Execute(context.Background(), ToolCalculate, map[string]any{"expression": " (1 + 2) * 3 "}, executor.CallOptions{CallID: "c1"})
	if r.Status != executor.StatusSuccess || r.Text != "(1 + 2) * 3 = 9" {
		t.Errorf("got %s %q, want SUCCESS %q", r.Status, r.Text, "(1 + 2) * 3 = 9")
	}
	r = x.Execute(context.Background(), ToolCalculate, map[string]any{"expression": "1/0"}, executor.CallOptions{CallID: "c2"})
	if r.Status != executor.StatusError || !strings.Contains(r.Text, "division by zero") {
		t.Errorf("got %s %q, want ERROR about division by zero", r.Status, r.Text)
	}
	r = x.Execute(context.Background(), ToolCalculate, map[string]any{}, executor.CallOptions{CallID: "c3"})
	if r.Status != executor.StatusError || !strings.Contains(r.Text, "expression") {
		t.Errorf("missing argument: got %s %q, want a schema error naming expression", r.Status, r.Text)
	}
}

func TestGroup(t *testing.T) {
	g := Group(Options{})
	if g.Name != "basic" {
		t.Errorf("name = %q, want basic", g.Name)
	}
	var names []string
	for _, tool := range g.Tools {
		names = append(names, tool.Name)
		if p := tool.Permission; p.Execution != executor.Auto || p.Result != executor.Never {
			t.Errorf("%s permission = %+v, want auto/never", tool.Name, p)
		}
	}
	if got, want := strings.Join(names, ","), "time,calculate"; got != want {
		t.Errorf("tools = %s, want %s", got, want)
	}
	if err := (Options{DefaultZone: "Europe/Paris"}).Validate(); err != nil {
		t.Errorf("Validate(Europe/Paris) = %v", err)
	}
	if err := (Options{DefaultZone: "Mars/Base"}).Validate(); err == nil {
		t.Error("Validate(Mars/Base): no error")
	}
	if g.Rules == "" {
		t.Error("the group has no rules prompt")
	}
}

package slack

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/core/session"
)

func TestCleanText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<@UBOT> what is 2+2?", "what is 2+2?"},
		{"hey <@UBOT|threadbot>, read <https://example.com/a_b|the doc>", "hey , read the doc (https://example.com/a_b)"},
		{"<@UBOT> see <https://example.com>", "see https://example.com"},
		{"<@UBOT> see <https://example.com|example.com>", "see https://example.com"},
		{"ask <@U123> about it <@UBOT>", "ask <@U123> about it"},
		{"1 &lt; 2 &amp;&amp; 3 &gt; 2", "1 < 2 && 3 > 2"},
		{"<mailto:a@b.c|a@b.c>", "mailto:a@b.c"},
		{"  <@UBOT>  ", ""},
	}
	for _, tt := range tests {
		if got := cleanText(tt.in, "UBOT"); got != tt.want {
			t.Errorf("cleanText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMentions(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"<@UBOT> hi", true},
		{"hi <@UBOT|bot>", true},
		{"hi <@UBOTX>", false},
		{"hi @UBOT", false},
		{"", false},
	} {
		if got := mentions(tt.text, "UBOT"); got != tt.want {
			t.Errorf("mentions(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestTimestamps(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"1700000000.000100", "1700000000.000200", true},
		{"1700000000.000200", "1700000000.000100", false},
		{"1700000000.000100", "1700000000.000100", false},
		{"999999999.999999", "1700000000.000001", true},
		{"1700000000.1", "1700000000.000200", false},
	} {
		if got := tsBefore(tt.a, tt.b); got != tt.want {
			t.Errorf("tsBefore(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	if got, want := tsTime("1700000000.000250"), time.Unix(1700000000, 250_000).UTC(); !got.Equal(want) {
		t.Errorf("tsTime = %v, want %v", got, want)
	}
	if !tsTime("junk").IsZero() {
		t.Error("tsTime(junk) is not zero")
	}
}

func TestThreadOf(t *testing.T) {
	k := session.Key{Platform: Name, Workspace: "T1", Channel: "C1", Thread: "1700000000.000100"}
	c, th, err := threadOf(k.ID())
	if err != nil || c != "C1" || th != "1700000000.000100" {
		t.Errorf("threadOf(%s) = %q, %q, %v", k.ID(), c, th, err)
	}
	for _, bad := range []string{"console-local-console-1", "slack-T1-C1", "slack-T1-_-1.2", ""} {
		if _, _, err := threadOf(bad); err == nil {
			t.Errorf("threadOf(%q) succeeded", bad)
		}
	}
}

// TestMrkdwnSpecialCommands checks that no special command (<!…>) in the
// model's text reaches Slack as one, however it is written, apart from a
// date; mentions of users and channels and converted links still work.
func TestMrkdwnSpecialCommands(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<!channel>", "&lt;!channel&gt;"},
		{"<!here>", "&lt;!here&gt;"},
		{"<!everyone>", "&lt;!everyone&gt;"},
		{"<!here|here>", "&lt;!here|here&gt;"},
		{"<!channel|@channel>", "&lt;!channel|@channel&gt;"},
		{"<!here^x>", "&lt;!here^x&gt;"},
		{"<!channel^x>", "&lt;!channel^x&gt;"},
		{"<!everyone^x|y>", "&lt;!everyone^x|y&gt;"},
		{"<!group>", "&lt;!group&gt;"},
		{"<!subteam^S123>", "&lt;!subteam^S123&gt;"},
		{"<!subteam^S1|@ops>", "&lt;!subteam^S1|@ops&gt;"},
		{"<!HERE>", "&lt;!HERE&gt;"},
		{"# <!channel> news", "*&lt;!channel&gt; news*"},
		{"> <!everyone>", "> &lt;!everyone&gt;"},
		{"`<!channel>`", "`&lt;!channel&gt;`"},
		{"```\n<!here>\n```", "```\n&lt;!here&gt;\n```"},
		{"| a |\n|---|\n| <!here> |", "```\na\n-------\n&lt;!here&gt;\n```"},
		{"<!date^1^{time}|<!here>>", "&lt;!date^1^{time}|&lt;!here&gt;&gt;"},

		// Links: a label cannot carry a command, nor can a destination.
		{"[x](<!channel>)", "x"},
		{"[<!channel>](https://x.io)", "<https://x.io|&lt;!channel&gt;>"},
		{"[a <!here|b> c](https://x.io/?q=1&r=2)", "<https://x.io/?q=1&r=2|a &lt;!here∣b&gt; c>"},
		{"[x](https://x.io/|<!channel>)", "<https://x.io/%7C%3C!channel%3E|x>"},
		{"[docs](https://example.com/a?b=1&c=2)", "<https://example.com/a?b=1&c=2|docs>"},
		{"<https://x.io/a>", "<https://x.io/a>"},

		// What stays usable.
		{"<@U1>", "<@U1>"},
		{"<@U1|ann>", "<@U1|ann>"},
		{"<#C1>", "<#C1>"},
		{"<#C1|general>", "<#C1|general>"},
		{"<!date^1700000000^{date_short}|Nov 14>", "<!date^1700000000^{date_short}|Nov 14>"},
	}
	for _, tt := range tests {
		if got := mrkdwn(tt.in); got != tt.want {
			t.Errorf("mrkdwn(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestNeutralize checks the backstop on its own: every <!, but that of a
// date, is escaped.
func TestNeutralize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"no commands <@U1> <#C1|x>", "no commands <@U1> <#C1|x>"},
		{"hi <!channel> and <!here^x>, <!group>", "hi &lt;!channel> and &lt;!here^x>, &lt;!group>"},
		{"<!everyone^x|y><!subteam^S1|@ops>", "&lt;!everyone^x|y>&lt;!subteam^S1|@ops>"},
		{"<!date^1^{time}|x> <!date>", "<!date^1^{time}|x> &lt;!date>"},
		{"<!<!here>", "&lt;!&lt;!here>"},
	}
	for _, tt := range tests {
		if got := neutralize(tt.in); got != tt.want {
			t.Errorf("neutralize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestApprovalBlocks(t *testing.T) {
	p := session.ApprovalPrompt{ID: "ap1", Kind: "execution", Tool: "deploy", Args: `{"target":"prod"}`, Requester: "U1", Expires: time.Unix(1700000600, 0)}
	s := marshal(t, approvalBlocks(p))
	for _, want := range []string{`"action_id":"threadbot_approve"`, `"action_id":"threadbot_always"`, `"action_id":"threadbot_reject"`, `"value":"ap1"`, "deploy", "prod", "<@U1>", "<!date^1700000600^"} {
		if !strings.Contains(s, want) {
			t.Errorf("approval blocks lack %s: %s", want, s)
		}
	}
	if s := marshal(t, resolvedBlocks(p, session.Outcome{Approved: true, Always: true, By: "U2"})); strings.Contains(s, "threadbot_approve") || !strings.Contains(s, "Approved for this thread by <@U2>") {
		t.Errorf("resolved blocks = %s", s)
	}
	for _, tt := range []struct {
		o    session.Outcome
		want string
	}{
		{session.Outcome{Approved: true, By: "U1"}, "Approved by <@U1>"},
		{session.Outcome{By: "U1", Reason: "not <now>"}, "Rejected by <@U1>: not &lt;now&gt;"},
		{session.Outcome{Expired: true, Reason: "no decision within 10m"}, "Expired: no decision within 10m"},
		{session.Outcome{Reason: "the turn was stopped"}, "Rejected by the bot: the turn was stopped"},
	} {
		if got := outcomeLine(tt.o); !strings.Contains(got, tt.want) {
			t.Errorf("outcomeLine(%+v) = %q, want it to contain %q", tt.o, got, tt.want)
		}
	}
}

func TestClip(t *testing.T) {
	if got := clip("héllo wörld", 5); got != "héll…" {
		t.Errorf("clip = %q", got)
	}
	if got := clip("short", 10); got != "short" {
		t.Errorf("clip = %q", got)
	}
}

func TestLimiterWaitsAfterBlock(t *testing.T) {
	l := newLimiter(map[string]Limit{"m": {Per: 1000, Burst: 1}})
	now := time.Unix(1000, 0)
	l.now = func() time.Time { return now }
	l.block("m", "C1", 30*time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.wait(ctx, "m", "C1"); err == nil {
		t.Error("wait on a blocked key with a cancelled context returned nil; want the context's error")
	}
	if err := l.wait(context.Background(), "m", "C2"); err != nil {
		t.Errorf("another channel waits too: %v", err)
	}
	now = now.Add(31 * time.Second)
	if err := l.wait(context.Background(), "m", "C1"); err != nil {
		t.Errorf("wait after the block ended: %v", err)
	}
}

// marshal encodes v as Slack receives it (no HTML escaping).
func marshal(t *testing.T, v any) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(b.String())
}

func TestResponseURLMustBeSlack(t *testing.T) {
	a := New(nil, Options{BotToken: "xoxb-1", APIURL: "http://127.0.0.1:8080/api"})
	for _, tt := range []struct {
		url  string
		want bool
	}{
		{"https://hooks.slack.com/commands/T1/1/abc", true},
		{"https://hooks.slack-gov.com/commands/T1/1/abc", true},
		{"http://hooks.slack.com/commands/T1/1/abc", false},
		{"https://evil.example/slack.com", false},
		{"https://slack.com.evil.example/x", false},
		{"http://127.0.0.1:8080/response/1", true},
		{"http://127.0.0.1:9090/response/1", false},
		{"http://169.254.169.254/latest/meta-data", false},
		{"not a url", false},
	} {
		if got := a.slackURL(tt.url); got != tt.want {
			t.Errorf("slackURL(%q) = %v, want %v", tt.url, got, tt.want)
		}
	}
}

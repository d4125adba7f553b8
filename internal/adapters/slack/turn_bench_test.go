package slack_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/adapters/slack/fakeslack"
	"github.com/threadbot/threadbot/internal/fakeopenai"
)

// BenchmarkMentionToAnswer measures a whole turn through Slack: an
// app_mention envelope over Socket Mode, the ack, the runtime with SQLite,
// the model through go-openai, and the status line and answer posted back
// with the real slack-go client, all on loopback. Each turn is in its own
// channel so the per-channel limiter does not pace the loop. It reports
// the Web API calls a turn makes. The loop polls the fake every 50µs for
// the answer.
func BenchmarkMentionToAnswer(b *testing.B) {
	e := newEnv(b, envOpts{quiet: true})
	e.model.SetHandler(func(fakeopenai.Request) fakeopenai.Response { return answer("pong") })
	before := len(e.fs.Calls(""))
	n := 0
	for b.Loop() {
		n++
		ch := fmt.Sprintf("CB%d", n)
		text := "<@" + bot + "> ping"
		ts := e.fs.AddMessage(fakeslack.Message{Channel: ch, User: alice, Text: text})
		e.fs.Send("events_api", e.fs.EventCallback("", e.fs.AppMention(ch, alice, text, ts, "")), 0)
		deadline := time.Now().Add(30 * time.Second)
		for !answered(e, ch, ts) {
			if time.Now().After(deadline) {
				b.Fatal("no answer")
			}
			time.Sleep(50 * time.Microsecond)
		}
	}
	b.ReportMetric(float64(len(e.fs.Calls(""))-before)/float64(n), "api-calls/turn")
}

func answered(e *env, ch, ts string) bool {
	for _, m := range e.fs.Thread(ch, ts) {
		if m.User == bot && m.Text == "pong" {
			return true
		}
	}
	return false
}

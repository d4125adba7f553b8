package slack

import (
	"os"
	"testing"
)

// BenchmarkAnswerRendering converts a realistic model answer (headings,
// lists, code, a table, links) to mrkdwn and cuts it into messages, as
// every final answer is.
func BenchmarkAnswerRendering(b *testing.B) {
	md, err := os.ReadFile("testdata/mrkdwn/answer.md")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(md)))
	for b.Loop() {
		_ = split(mrkdwn(string(md)), maxText)
	}
}

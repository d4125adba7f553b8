package slack

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestAnswerChunksHeadFences checks the short message posted before an
// answer too long for maxChunks messages is uploaded: when the answer
// starts with a long code block, the head closes it before the note about
// the file.
func TestAnswerChunksHeadFences(t *testing.T) {
	var b strings.Builder
	b.WriteString("Here is the file:\n\n```go\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "line of code number %d\n", i)
	}
	b.WriteString("```\n\nThat is all.\n")
	chunks, file := (&Adapter{}).answerChunks(b.String())
	if !file || len(chunks) != 1 {
		t.Fatalf("answerChunks = %d chunks, file %v; want 1 chunk and a file", len(chunks), file)
	}
	head := chunks[0]
	if n := utf8.RuneCountInString(head); n > maxText {
		t.Errorf("head has %d runes, more than %d", n, maxText)
	}
	if n := splitFences(head); n%2 != 0 {
		t.Errorf("head has %d fences, the note is inside a code block; it ends %q", n, head[max(len(head)-120, 0):])
	}
	note := "\n\n_The full answer is long, so it is attached as `answer.md`._"
	if !strings.HasSuffix(head, "\n```"+note) {
		t.Errorf("head ends %q, want the closed block and then the note", head[max(len(head)-120, 0):])
	}
}

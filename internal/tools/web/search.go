package web

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"strings"

	"github.com/threadbot/threadbot/internal/core/executor"
)

// Searcher is a web search provider. Implementations must be safe for
// concurrent use.
type Searcher interface {
	// Name names the provider in results and errors ("searxng").
	Name() string
	// Search returns at most count results for query, best first. Errors
	// must not contain API keys.
	Search(ctx context.Context, query string, count int) ([]SearchResult, error)
}

// SearchResult is one search hit.
type SearchResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet,omitempty"`
}

// Search limits.
const (
	defaultResults = 5
	maxResults     = 20
	maxSnippet     = 400
)

var searchSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "query": {
      "type": "string",
      "minLength": 1,
      "maxLength": 400,
      "description": "What to search for, as you would type it into a search engine."
    },
    "count": {
      "type": "integer",
      "minimum": 1,
      "maximum": 20,
      "default": 5,
      "description": "Number of results (default 5)."
    }
  },
  "required": ["query"],
  "additionalProperties": false
}`)

func (w *tools) searchTool() *executor.Tool {
	return &executor.Tool{
		Name: ToolSearch,
		Description: "Search the web and return a numbered list of results, each with title, URL and snippet. " +
			"Use it to find pages, then fetch the relevant ones to read them.",
		Parameters: searchSchema,
		Permission: w.opts.SearchPermission,
		Run:        w.runSearch,
	}
}

func (w *tools) runSearch(ctx context.Context, call executor.Call, args map[string]any) (executor.Output, error) {
	query, _ := args["query"].(string)
	query = strings.TrimSpace(query)
	if query == "" {
		return executor.Output{}, fmt.Errorf("the query is empty; say what to search for")
	}
	count := defaultResults
	if v, ok := intArg(args, "count"); ok && v >= 1 {
		count = min(v, maxResults)
	}
	name := w.searcher.Name()
	call.Progress("Searching "+name, map[string]any{"query": query})
	results, err := w.searcher.Search(ctx, query, count)
	if err != nil {
		w.lg.Warn("web: search failed", "session", call.SessionID, "provider", name, "err", err)
		return executor.Output{}, err
	}
	if len(results) > count {
		results = results[:count]
	}
	var b strings.Builder
	if len(results) == 0 {
		fmt.Fprintf(&b, "No results for %q (%s). Try other or broader terms.", query, name)
	} else {
		fmt.Fprintf(&b, "Search results for %q (%s):\n", query, name)
		for i, r := range results {
			title := cleanText(r.Title, 200)
			if title == "" {
				title = "(untitled)"
			}
			fmt.Fprintf(&b, "\n%d. %s\n   %s\n", i+1, title, r.URL)
			if s := cleanText(r.Snippet, maxSnippet); s != "" {
				fmt.Fprintf(&b, "   %s\n", s)
			}
		}
	}
	return executor.Output{
		Data:  strings.TrimRight(b.String(), "\n"),
		Title: fmt.Sprintf("%s: %d results for %s", name, len(results), oneLine(query, 60)),
	}, nil
}

// intArg reads an integer argument: float64 from JSON, or a Go integer
// from a caller in the same process.
func intArg(args map[string]any, name string) (int, bool) {
	switch v := args[name].(type) {
	case float64:
		return int(v), v == float64(int(v))
	case int:
		return v, true
	case int64:
		return int(v), true
	case json.Number:
		n, err := v.Int64()
		return int(n), err == nil
	}
	return 0, false
}

var tags = regexp.MustCompile(`<[^>]*>`)

// cleanText removes markup (such as Brave's <strong>) and entities from a
// provider's text and cuts it to max characters.
func cleanText(s string, max int) string {
	return oneLine(html.UnescapeString(tags.ReplaceAllString(s, "")), max)
}

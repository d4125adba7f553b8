package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/threadbot/threadbot/internal/core/executor"
)

const key = "tvly-SECRET-key-123"

// searchResults is a provider answer with n results.
func searchResults(n int, snippetField string) []map[string]any {
	var out []map[string]any
	for i := 1; i <= n; i++ {
		out = append(out, map[string]any{
			"title":      fmt.Sprintf("Result &amp; <b>%d</b>", i),
			"url":        fmt.Sprintf("https://example.com/%d", i),
			snippetField: fmt.Sprintf("Snippet <strong>number</strong> %d.", i),
		})
	}
	return out
}

func TestSearchProviders(t *testing.T) {
	type seen struct {
		method, path, query, auth, token, body string
	}
	tests := []struct {
		name   string
		search func(url string) SearchOptions
		answer func(w http.ResponseWriter)
		check  func(t *testing.T, s seen)
	}{
		{
			name:   "searxng",
			search: func(u string) SearchOptions { return SearchOptions{Provider: ProviderSearXNG, URL: u + "/searx/"} },
			answer: func(w http.ResponseWriter) {
				json.NewEncoder(w).Encode(map[string]any{"results": searchResults(7, "content")})
			},
			check: func(t *testing.T, s seen) {
				if s.method != "GET" || s.path != "/searx/search" || s.query != "format=json&q=go+generics" {
					t.Errorf("request = %s %s?%s, want GET /searx/search?format=json&q=go+generics", s.method, s.path, s.query)
				}
			},
		},
		{
			name:   "tavily",
			search: func(u string) SearchOptions { return SearchOptions{Provider: ProviderTavily, URL: u, APIKey: key} },
			answer: func(w http.ResponseWriter) {
				json.NewEncoder(w).Encode(map[string]any{"query": "q", "results": searchResults(3, "content")})
			},
			check: func(t *testing.T, s seen) {
				if s.method != "POST" || s.path != "/search" {
					t.Errorf("request = %s %s, want POST /search", s.method, s.path)
				}
				if s.auth != "Bearer "+key {
					t.Errorf("Authorization = %q, want the bearer key", s.auth)
				}
				var body map[string]any
				if err := json.Unmarshal([]byte(s.body), &body); err != nil {
					t.Fatalf("body %q: %v", s.body, err)
				}
				if body["query"] != "go generics" || body["max_results"] != float64(3) {
					t.Errorf("body = %s, want query and max_results 3", s.body)
				}
			},
		},
		{
			name:   "brave",
			search: func(u string) SearchOptions { return SearchOptions{Provider: ProviderBrave, URL: u, APIKey: key} },
			answer: func(w http.ResponseWriter) {
				json.NewEncoder(w).Encode(map[string]any{"web": map[string]any{"results": searchResults(3, "description")}})
			},
			check: func(t *testing.T, s seen) {
				if s.method != "GET" || s.path != "/res/v1/web/search" || s.query != "count=3&q=go+generics" {
					t.Errorf("request = %s %s?%s, want GET /res/v1/web/search?count=3&q=go+generics", s.method, s.path, s.query)
				}
				if s.token != key {
					t.Errorf("X-Subscription-Token = %q, want the key", s.token)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got seen
			srv := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				got = seen{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization"), r.Header.Get("X-Subscription-Token"), string(b)}
				w.Header().Set("Content-Type", "application/json")
				tt.answer(w)
			})
			x, approvals := newExec(t, Options{Search: tt.search(srv.URL)})
			r := execute(t, x, ToolSearch, map[string]any{"query": " go generics ", "count": 3})
			wantSuccess(t, r)
			tt.check(t, got)
			want := fmt.Sprintf(`Search results for "go generics" (%s):

1. Result & 1
   https://example.com/1
   Snippet number 1.

2. Result & 2
   https://example.com/2
   Snippet number 2.

3. Result & 3
   https://example.com/3
   Snippet number 3.`, tt.name)
			if r.Text != want {
				t.Errorf("text:\n%s\nwant:\n%s", r.Text, want)
			}
			if approvals.n.Load() != 0 {
				t.Errorf("search asked for approval; its default policy is auto")
			}
			if strings.Contains(got.body, key) && tt.name != "tavily" {
				t.Errorf("key in the body")
			}
		})
	}
}

func TestSearchErrorsHideKey(t *testing.T) {
	srv := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/search":
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"detail":"invalid api key %s"}`, key)
		case "/res/v1/web/search":
			w.WriteHeader(http.StatusTooManyRequests)
		case "/searx/search":
			w.WriteHeader(http.StatusForbidden)
		case "/garbage/search":
			fmt.Fprint(w, "<html>not json</html>")
		}
	})
	tests := []struct {
		name string
		opts SearchOptions
		want []string
	}{
		{"tavily 401", SearchOptions{Provider: ProviderTavily, URL: srv.URL, APIKey: key},
			[]string{"search (tavily) failed: HTTP 401 Unauthorized", "an admin must check the search configuration", "[redacted]"}},
		{"brave 429", SearchOptions{Provider: ProviderBrave, URL: srv.URL, APIKey: key},
			[]string{"search (brave) failed: HTTP 429", "rate limited"}},
		{"searxng 403", SearchOptions{Provider: ProviderSearXNG, URL: srv.URL + "/searx"},
			[]string{"HTTP 403", "add json to search.formats"}},
		{"not json", SearchOptions{Provider: ProviderSearXNG, URL: srv.URL + "/garbage"},
			[]string{"not the expected JSON"}},
		{"unreachable", SearchOptions{Provider: ProviderBrave, URL: "http://127.0.0.1:1", APIKey: key},
			[]string{"search (brave) failed: request failed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs strings.Builder
			opts := Options{Search: tt.opts, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
			x, _ := newExec(t, opts)
			r := execute(t, x, ToolSearch, map[string]any{"query": "q"})
			wantError(t, r, tt.want[0])
			contains(t, r.Text, tt.want[1:]...)
			if strings.Contains(r.Text, key) || strings.Contains(logs.String(), key) {
				t.Errorf("the API key leaked:\n%s\n%s", r.Text, logs.String())
			}
			if !strings.Contains(logs.String(), "search failed") {
				t.Errorf("the failure was not logged: %q", logs.String())
			}
		})
	}
}

func TestSearchNoResults(t *testing.T) {
	srv := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"results":[]}`)
	})
	x, _ := newExec(t, Options{Search: SearchOptions{Provider: ProviderSearXNG, URL: srv.URL}})
	r := execute(t, x, ToolSearch, map[string]any{"query": "nothing"})
	wantSuccess(t, r)
	if r.Text != `No results for "nothing" (searxng). Try other or broader terms.` {
		t.Errorf("text = %q", r.Text)
	}
}

// fakeSearcher is a Searcher with a function field.
type fakeSearcher struct {
	search func(ctx context.Context, q string, n int) ([]SearchResult, error)
}

func (f fakeSearcher) Name() string { return "fake" }
func (f fakeSearcher) Search(ctx context.Context, q string, n int) ([]SearchResult, error) {
	return f.search(ctx, q, n)
}

func TestSearchCustomSearcher(t *testing.T) {
	var gotN int
	s := fakeSearcher{func(_ context.Context, q string, n int) ([]SearchResult, error) {
		gotN = n
		return []SearchResult{{Title: "T", URL: "https://t.example/"}}, nil
	}}
	x, _ := newExec(t, Options{Search: SearchOptions{Searcher: s}})
	r := execute(t, x, ToolSearch, map[string]any{"query": "q"})
	wantSuccess(t, r)
	if gotN != 5 {
		t.Errorf("count = %d, want the default 5", gotN)
	}
	contains(t, r.Text, "1. T\n   https://t.example/")
}

func TestGroupTools(t *testing.T) {
	tests := []struct {
		name   string
		opts   Options
		tools  string
		search bool
	}{
		{"no provider", Options{}, "extract,fetch", false},
		{"searxng", Options{Search: SearchOptions{Provider: "SearXNG", URL: "http://searx.test"}}, "extract,fetch,search", true},
		{"brave without key", Options{Search: SearchOptions{Provider: ProviderBrave}}, "extract,fetch", false},
		{"unknown provider", Options{Search: SearchOptions{Provider: "bing", APIKey: "k"}}, "extract,fetch", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, _ := newExec(t, tt.opts)
			var names []string
			for _, g := range x.Groups() {
				if g.Name != GroupName {
					continue
				}
				for _, ti := range g.Tools {
					names = append(names, ti.Name)
					want := executor.Permission{Execution: executor.AskOnce, Result: executor.Always}
					if ti.Name == ToolSearch {
						want = executor.Permission{Execution: executor.Auto, Result: executor.Never}
					}
					if ti.Permission != want {
						t.Errorf("%s permission = %+v, want %+v", ti.Name, ti.Permission, want)
					}
				}
			}
			if got := strings.Join(names, ","); got != tt.tools {
				t.Errorf("tools = %s, want %s", got, tt.tools)
			}
			rules := x.ToolRules()
			if got := strings.Contains(rules, "`search` first"); got != tt.search {
				t.Errorf("rules mention search = %v, want %v:\n%s", got, tt.search, rules)
			}
			contains(t, rules, "Cite the URL", "untrusted")
		})
	}
	if err := (Options{Search: SearchOptions{Provider: "bing"}}).Validate(); err == nil || !strings.Contains(err.Error(), `unknown provider "bing"`) {
		t.Errorf("Validate = %v, want unknown provider", err)
	}
	if err := (Options{Search: SearchOptions{Provider: ProviderTavily}}).Validate(); err == nil || !strings.Contains(err.Error(), "needs an API key") {
		t.Errorf("Validate = %v, want a missing key", err)
	}
	if err := (Options{}).Validate(); err != nil {
		t.Errorf("Validate(zero) = %v", err)
	}
}

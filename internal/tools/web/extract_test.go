package web

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

const listPage = `<html><body>
<h2>First <em>heading</em></h2><h2>  Second
   heading </h2>
<ul class="links">
  <li><a href="/a">Alpha</a></li>
  <li><a href="https://other.example/b?x=1">Beta</a></li>
  <li><a>No href</a></li>
  <li><a href="c.html">Gamma</a></li>
</ul>
<table><tr><td>1</td><td>$5</td></tr><tr><td>2</td><td>$7</td></tr></table>
</body></html>`

func TestExtract(t *testing.T) {
	s := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{}`)
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, listPage)
		}
	})
	x, _ := newExec(t, allowLocal())
	page := s.URL + "/dir/list"
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"text", map[string]any{"url": page, "selector": "h2"},
			`2 matches for "h2" (text) on ` + page + ":\n1. First heading\n2. Second heading"},
		{"href made absolute", map[string]any{"url": page, "selector": "ul.links a", "attr": "href"},
			"3 matches for \"ul.links a\" (href) on " + page + ":\n1. " + s.URL + "/a\n2. https://other.example/b?x=1\n3. " + s.URL + "/dir/c.html\n(1 other matching elements have no href attribute.)"},
		{"max", map[string]any{"url": page, "selector": "ul.links a", "max": 2},
			"4 matches for \"ul.links a\" (text) on " + page + ", first 2 shown:\n1. Alpha\n2. Beta"},
		{"table column", map[string]any{"url": page, "selector": "td:nth-child(2)"},
			"1. $5\n2. $7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := execute(t, x, ToolExtract, tt.args)
			wantSuccess(t, r)
			if !strings.Contains(r.Text, tt.want) {
				t.Errorf("text:\n%s\nwant it to contain:\n%s", r.Text, tt.want)
			}
		})
	}
	errs := []struct {
		name string
		args map[string]any
		want string
	}{
		{"no match", map[string]any{"url": page, "selector": "article p"}, `the selector "article p" matched nothing on ` + page},
		{"no attribute", map[string]any{"url": page, "selector": "h2", "attr": "href"}, `matched 2 elements on ` + page + `, but none has a "href" attribute`},
		{"not html", map[string]any{"url": s.URL + "/json", "selector": "p"}, "extract needs an HTML page, but " + s.URL + "/json is application/json"},
		{"bad selector", map[string]any{"url": page, "selector": "ul >"}, `invalid CSS selector "ul >"`},
		{"missing selector", map[string]any{"url": page}, "invalid arguments"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, execute(t, x, ToolExtract, tt.args), tt.want)
		})
	}
}

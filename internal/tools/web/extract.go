package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"codeberg.org/readeck/go-readability/v2/render"
	"github.com/andybalholm/cascadia"
	"github.com/threadbot/threadbot/internal/core/executor"
	"golang.org/x/net/html"
)

// Extraction limits.
const (
	defaultMatches = 50
	maxMatches     = 500
	maxItemChars   = 1000
)

var extractSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "url": {
      "type": "string",
      "minLength": 1,
      "maxLength": 4096,
      "description": "Absolute http or https URL of an HTML page."
    },
    "selector": {
      "type": "string",
      "minLength": 1,
      "maxLength": 500,
      "description": "CSS selector of the elements to extract, e.g. \"h2\", \"table.prices td:nth-child(2)\", \"a[href$='.pdf']\"."
    },
    "attr": {
      "type": "string",
      "minLength": 1,
      "maxLength": 100,
      "description": "Return this attribute's value (e.g. \"href\", \"src\", \"datetime\") instead of the element's text. Links are made absolute."
    },
    "max": {
      "type": "integer",
      "minimum": 1,
      "maximum": 500,
      "default": 50,
      "description": "Most matches to return (default 50)."
    }
  },
  "required": ["url", "selector"],
  "additionalProperties": false
}`)

func (w *tools) extractTool() *executor.Tool {
	return &executor.Tool{
		Name: ToolExtract,
		Description: "Extract elements from a web page by CSS selector and return their text, or an attribute's value, as a numbered list. " +
			"Use it for lists of links, headings, table cells or prices instead of fetching a whole page.",
		Parameters: extractSchema,
		Permission: w.opts.FetchPermission,
		Precheck:   w.precheck,
		Run:        w.runExtract,
	}
}

// urlAttrs are attributes whose values are URLs, made absolute on output.
var urlAttrs = map[string]bool{"href": true, "src": true, "action": true, "cite": true, "data": true, "poster": true}

func (w *tools) runExtract(ctx context.Context, call executor.Call, args map[string]any) (executor.Output, error) {
	raw, _ := args["url"].(string)
	selector, _ := args["selector"].(string)
	attr, _ := args["attr"].(string)
	attr = strings.ToLower(strings.TrimSpace(attr))
	limit := defaultMatches
	if v, ok := intArg(args, "max"); ok && v >= 1 {
		limit = min(v, maxMatches)
	}
	sel, err := compileSelector(selector)
	if err != nil {
		return executor.Output{}, err
	}
	p, err := w.get(ctx, call, raw)
	if err != nil {
		return executor.Output{}, err
	}
	if p.kind != kindHTML {
		return executor.Output{}, fmt.Errorf("extract needs an HTML page, but %s is %s; use fetch instead", p.url.Redacted(), orUnknown(p.mediaType))
	}
	d, err := parseHTML(p.body, p.url)
	if err != nil {
		return executor.Output{}, err
	}
	nodes := cascadia.QueryAll(d.root, sel)
	if len(nodes) == 0 {
		return executor.Output{}, fmt.Errorf("the selector %q matched nothing on %s; check it against the markup (fetch with format \"html\")", selector, p.url.Redacted())
	}
	var items []string
	missing := 0
	for _, n := range nodes {
		var s string
		if attr != "" {
			v, ok := attrValue(n, attr)
			if !ok {
				missing++
				continue
			}
			s = strings.TrimSpace(v)
			if urlAttrs[attr] {
				s = absolute(p.url, s)
			}
		} else {
			s = render.InnerText(n)
		}
		if s = oneLine(s, maxItemChars); s != "" {
			items = append(items, s)
		}
	}
	total := len(items)
	if total == 0 {
		if attr != "" {
			return executor.Output{}, fmt.Errorf("the selector %q matched %d elements on %s, but none has a %q attribute", selector, len(nodes), p.url.Redacted(), attr)
		}
		return executor.Output{}, fmt.Errorf("the selector %q matched %d elements on %s, but they have no text; pass attr to read an attribute", selector, len(nodes), p.url.Redacted())
	}
	var b strings.Builder
	what := "text"
	if attr != "" {
		what = attr
	}
	fmt.Fprintf(&b, "%d matches for %q (%s) on %s", total, selector, what, p.url.Redacted())
	if total > limit {
		fmt.Fprintf(&b, ", first %d shown", limit)
		items = items[:limit]
	}
	b.WriteString(":\n")
	for i, s := range items {
		fmt.Fprintf(&b, "%d. %s\n", i+1, s)
	}
	if missing > 0 {
		fmt.Fprintf(&b, "(%d other matching elements have no %s attribute.)\n", missing, attr)
	}
	if p.truncated {
		fmt.Fprintf(&b, "[The page was larger than %s; only the first %s were searched.]\n", sizeText(w.opts.MaxBytes), sizeText(w.opts.MaxBytes))
	}
	return executor.Output{
		Data:  strings.TrimRight(b.String(), "\n"),
		Title: fmt.Sprintf("%s: %d × %s", p.url.Host, total, selector),
	}, nil
}

func attrValue(n *html.Node, name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && strings.EqualFold(a.Key, name) {
			return a.Val, true
		}
	}
	return "", false
}

// absolute resolves ref against the page URL; an unparsable ref is kept.
func absolute(base *url.URL, ref string) string {
	r, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	return base.ResolveReference(r).String()
}

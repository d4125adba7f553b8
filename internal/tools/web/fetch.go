package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/andybalholm/cascadia"
	"github.com/threadbot/threadbot/internal/core/executor"
	"golang.org/x/net/html"
)

var fetchSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "url": {
      "type": "string",
      "minLength": 1,
      "maxLength": 4096,
      "description": "Absolute http or https URL of the page."
    },
    "format": {
      "type": "string",
      "enum": ["markdown", "text", "html"],
      "default": "markdown",
      "description": "markdown (default): the page's main content as Markdown with links; text: plain text; html: the raw markup (to work out a selector)."
    },
    "selector": {
      "type": "string",
      "minLength": 1,
      "maxLength": 500,
      "description": "Optional CSS selector (e.g. \"article\", \"#content table\"): return only the matching elements instead of the main content."
    }
  },
  "required": ["url"],
  "additionalProperties": false
}`)

func (w *tools) fetchTool() *executor.Tool {
	return &executor.Tool{
		Name: ToolFetch,
		Description: "Fetch a web page (http or https) and return its title, final URL and main content as Markdown (or text or HTML). " +
			"Text and JSON responses are returned as they are (JSON pretty-printed); images, PDFs and other binary files are described, not returned. " +
			"Only public internet addresses can be reached.",
		Parameters: fetchSchema,
		Permission: w.opts.FetchPermission,
		Precheck:   w.precheck,
		Run:        w.runFetch,
	}
}

// precheck refuses, before anyone is asked to approve, a URL the guard
// refuses by its form or literal address, and an invalid selector.
func (w *tools) precheck(args map[string]any) error {
	raw, _ := args["url"].(string)
	if _, err := w.parseURL(raw); err != nil {
		return err
	}
	if sel, ok := args["selector"].(string); ok {
		if _, err := compileSelector(sel); err != nil {
			return err
		}
	}
	return nil
}

func (w *tools) runFetch(ctx context.Context, call executor.Call, args map[string]any) (executor.Output, error) {
	raw, _ := args["url"].(string)
	format, _ := args["format"].(string)
	if format == "" {
		format = FormatMarkdown
	}
	selector, _ := args["selector"].(string)
	var sel cascadia.SelectorGroup
	if selector != "" {
		var err error
		if sel, err = compileSelector(selector); err != nil {
			return executor.Output{}, err
		}
	}
	p, err := w.get(ctx, call, raw)
	if err != nil {
		return executor.Output{}, err
	}
	var b strings.Builder
	title := ""
	switch p.kind {
	case kindHTML:
		d, err := parseHTML(p.body, p.url)
		if err != nil {
			return executor.Output{}, err
		}
		var nodes []*html.Node
		var content string
		switch {
		case sel != nil:
			nodes = cascadia.QueryAll(d.root, sel)
			if len(nodes) == 0 {
				return executor.Output{}, fmt.Errorf("the selector %q matched nothing on %s; fetch without a selector, or with format \"html\" to see the markup", selector, p.url.Redacted())
			}
		case format == FormatHTML:
			content = string(p.body) // the markup exactly as served
		default:
			nodes = []*html.Node{d.mainContent()}
		}
		if nodes != nil {
			if content, err = w.render(nodes, format, p.url); err != nil {
				return executor.Output{}, err
			}
		}
		title = d.title
		if title != "" {
			fmt.Fprintf(&b, "Title: %s\n", title)
		}
		fmt.Fprintf(&b, "URL: %s\n", p.url.Redacted())
		if sel != nil {
			fmt.Fprintf(&b, "Selector: %s (%d matching elements)\n", selector, len(nodes))
		}
		b.WriteString("\n")
		if strings.TrimSpace(content) == "" {
			content = "(The page has no readable text; it may be built by JavaScript. Try format \"html\", or another source.)"
		}
		b.WriteString(content)
	case kindJSON, kindText:
		if sel != nil {
			return executor.Output{}, fmt.Errorf("a selector needs an HTML page, but %s is %s; fetch it without a selector", p.url.Redacted(), p.mediaType)
		}
		fmt.Fprintf(&b, "URL: %s\nContent-Type: %s\n\n", p.url.Redacted(), p.mediaType)
		body := p.body
		if p.kind == kindJSON && !p.truncated {
			var out bytes.Buffer
			if json.Indent(&out, body, "", "  ") == nil {
				body = out.Bytes()
			}
		}
		b.Write(bytes.TrimSpace(body))
	default:
		fmt.Fprintf(&b, "URL: %s\nContent-Type: %s\nSize: %s\n\n", p.url.Redacted(), orUnknown(p.mediaType), sizeText(p.size))
		fmt.Fprintf(&b, "This is binary content (%s), not shown. Look for an HTML or text version of it, or describe the link to the user.", describeType(p.mediaType))
	}
	if p.truncated {
		fmt.Fprintf(&b, "\n\n[The response was larger than %s; only the first %s were read, so the end is missing.]", sizeText(w.opts.MaxBytes), sizeText(w.opts.MaxBytes))
	}
	logTitle := p.url.Host
	if title != "" {
		logTitle += ": " + oneLine(title, 80)
	}
	return executor.Output{Data: b.String(), Title: fmt.Sprintf("%s (%s)", logTitle, sizeText(p.size))}, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// describeType names a binary media type in words.
func describeType(mt string) string {
	switch {
	case strings.HasPrefix(mt, "image/"):
		return "an image"
	case mt == "application/pdf":
		return "a PDF document"
	case strings.HasPrefix(mt, "audio/"):
		return "audio"
	case strings.HasPrefix(mt, "video/"):
		return "video"
	case strings.Contains(mt, "zip") || strings.Contains(mt, "tar") || strings.Contains(mt, "compressed"):
		return "an archive"
	}
	return "a binary file"
}

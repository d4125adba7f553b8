package web

import (
	"bytes"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	readability "codeberg.org/readeck/go-readability/v2"
	"codeberg.org/readeck/go-readability/v2/render"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Output formats of fetch.
const (
	FormatMarkdown = "markdown"
	FormatText     = "text"
	FormatHTML     = "html"
)

// markdown converts HTML to Markdown. One converter is shared by all
// calls; the library is safe for concurrent use.
type markdown struct {
	conv *converter.Converter
}

func newMarkdown() *markdown {
	return &markdown{conv: converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
		strikethrough.NewStrikethroughPlugin(),
	))}
}

// convert renders n as Markdown, making relative links absolute to page.
func (m *markdown) convert(n *html.Node, page *url.URL) (string, error) {
	b, err := m.conv.ConvertNode(n, converter.WithDomain(page.String()))
	if err != nil {
		return "", fmt.Errorf("convert HTML to Markdown: %w", err)
	}
	return tidy(string(b)), nil
}

var blankLines = regexp.MustCompile(`\n{3,}`)

// tidy trims trailing spaces and collapses runs of blank lines.
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.TrimSpace(blankLines.ReplaceAllString(strings.Join(lines, "\n"), "\n\n"))
}

// document is a parsed HTML page.
type document struct {
	root  *html.Node
	url   *url.URL
	title string
}

func parseHTML(body []byte, u *url.URL) (*document, error) {
	root, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("parse HTML from %s: %w", u.Redacted(), err)
	}
	d := &document{root: root, url: u}
	if t := cascadia.Query(root, cascadia.MustCompile("title")); t != nil {
		d.title = oneLine(render.InnerText(t), 300)
	}
	return d, nil
}

// compileSelector parses a CSS selector group, with an error that says
// what is wrong.
func compileSelector(sel string) (cascadia.SelectorGroup, error) {
	g, err := cascadia.ParseGroup(sel)
	if err != nil {
		return nil, fmt.Errorf("invalid CSS selector %q: %v", sel, err)
	}
	return g, nil
}

// mainContent returns the page's main content: readability's article when
// the page looks like one, else the body without scripts, styles and other
// non-content elements. It may set the title from the article.
func (d *document) mainContent() *html.Node {
	if readability.CheckDocument(d.root) {
		art, err := readability.FromDocument(d.root, d.url)
		if err == nil && art.Node != nil && strings.TrimSpace(render.InnerText(art.Node)) != "" {
			if t := strings.TrimSpace(art.Title()); t != "" {
				d.title = oneLine(t, 300)
			}
			return art.Node
		}
	}
	body := cascadia.Query(d.root, cascadia.MustCompile("body"))
	if body == nil {
		body = d.root
	}
	stripNonContent(body)
	return body
}

// stripNonContent removes elements that carry no readable text.
func stripNonContent(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode {
			switch c.DataAtom {
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Iframe, atom.Object, atom.Embed, atom.Head:
				n.RemoveChild(c)
			default:
				stripNonContent(c)
			}
		} else if c.Type == html.CommentNode {
			n.RemoveChild(c)
		}
		c = next
	}
}

// render renders nodes in a fetch format; several nodes are separated by
// blank lines (Markdown, text) or newlines (HTML).
func (w *tools) render(nodes []*html.Node, format string, u *url.URL) (string, error) {
	var parts []string
	for _, n := range nodes {
		var s string
		switch format {
		case FormatHTML:
			var b strings.Builder
			if err := html.Render(&b, n); err != nil {
				return "", fmt.Errorf("render HTML: %w", err)
			}
			s = b.String()
		case FormatText:
			s = tidy(render.InnerText(n))
		default:
			var err error
			if s, err = w.converter.convert(n, u); err != nil {
				return "", err
			}
		}
		if strings.TrimSpace(s) != "" {
			parts = append(parts, s)
		}
	}
	sep := "\n\n"
	if format == FormatHTML {
		sep = "\n"
	}
	return strings.Join(parts, sep), nil
}

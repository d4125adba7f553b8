package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Search providers for SearchOptions.Provider.
const (
	ProviderSearXNG = "searxng"
	ProviderTavily  = "tavily"
	ProviderBrave   = "brave"
)

// Public API endpoints of the providers with keys.
const (
	TavilyURL = "https://api.tavily.com/search"
	BraveURL  = "https://api.search.brave.com/res/v1/web/search"
)

// maxProviderBody bounds a provider's answer.
const maxProviderBody = 2 << 20

// newSearcher builds the configured provider: nil without one, an error
// for an unknown provider or a missing URL or key.
func newSearcher(o SearchOptions, c *http.Client) (Searcher, error) {
	if o.Searcher != nil {
		return o.Searcher, nil
	}
	switch p := strings.ToLower(strings.TrimSpace(o.Provider)); p {
	case "":
		if o.URL != "" || o.APIKey != "" {
			return nil, errors.New("web search: a URL or API key is set but no provider; set the provider to searxng, tavily or brave")
		}
		return nil, nil
	case ProviderSearXNG:
		if o.URL == "" {
			return nil, errors.New("web search: provider searxng needs the URL of the SearXNG instance")
		}
		return orNil(NewSearXNG(c, o.URL))
	case ProviderTavily:
		if o.APIKey == "" {
			return nil, errors.New("web search: provider tavily needs an API key")
		}
		return orNil(NewTavily(c, o.APIKey, o.URL))
	case ProviderBrave:
		if o.APIKey == "" {
			return nil, errors.New("web search: provider brave needs an API key")
		}
		return orNil(NewBrave(c, o.APIKey, o.URL))
	default:
		return nil, fmt.Errorf("web search: unknown provider %q; want searxng, tavily or brave", o.Provider)
	}
}

// orNil keeps a failed constructor's typed nil pointer out of the
// Searcher interface.
func orNil[S Searcher](s S, err error) (Searcher, error) {
	if err != nil {
		return nil, err
	}
	return s, nil
}

// endpoint returns base with path appended when base has no path of its
// own, so both "https://host" and "https://host/custom/path" work.
func endpoint(base, path string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("web search: invalid provider URL %q; want an http or https URL", base)
	}
	if strings.Trim(u.Path, "/") == "" {
		u.Path = path
	}
	return u, nil
}

// provider holds what the three providers share.
type provider struct {
	name   string
	client *http.Client
	url    *url.URL
	key    string
}

// Name implements Searcher.
func (p *provider) Name() string { return p.name }

// do sends req, checks the status and decodes the JSON answer into out.
// Its errors never contain the key.
func (p *provider) do(req *http.Request, out any) error {
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", DefaultUserAgent)
	resp, err := p.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL
		}
		if ue != nil && ue.Timeout() {
			return p.fail("the provider did not answer in time; try again later", nil)
		}
		return p.fail("request failed", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProviderBody))
	if err != nil {
		return p.fail("reading the answer failed", err)
	}
	if resp.StatusCode != http.StatusOK {
		msg := "HTTP " + resp.Status
		switch resp.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			msg += ": the provider refused the request (API key or instance settings); an admin must check the search configuration"
		case http.StatusTooManyRequests:
			msg += ": rate limited or out of quota; try again later"
		}
		if s := oneLine(string(body), 200); s != "" {
			msg += "; response: " + s
		}
		return p.fail(msg, nil)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return p.fail("the answer is not the expected JSON", err)
	}
	return nil
}

// fail builds an error that names the provider, with the key redacted
// from everything that came from outside.
func (p *provider) fail(msg string, err error) error {
	if err != nil {
		msg += ": " + err.Error()
	}
	if p.key != "" {
		msg = strings.ReplaceAll(msg, p.key, "[redacted]")
	}
	return fmt.Errorf("search (%s) failed: %s", p.name, msg)
}

// SearXNG queries a SearXNG instance's JSON API. The instance must allow
// the json format (search.formats in its settings.yml).
type SearXNG struct{ provider }

// NewSearXNG returns a SearXNG provider for the instance at baseURL. It
// returns an error for a URL that is not http or https.
func NewSearXNG(c *http.Client, baseURL string) (*SearXNG, error) {
	u, err := endpoint(baseURL, "")
	if err != nil {
		return nil, err
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/search"
	return &SearXNG{provider{name: ProviderSearXNG, client: c, url: u}}, nil
}

// Search implements Searcher.
func (s *SearXNG) Search(ctx context.Context, query string, count int) ([]SearchResult, error) {
	u := *s.url
	q := u.Query()
	q.Set("q", query)
	q.Set("format", "json")
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, s.fail("bad request", err)
	}
	var ans struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := s.do(req, &ans); err != nil {
		if strings.Contains(err.Error(), "HTTP 403") {
			return nil, fmt.Errorf("%w (a SearXNG instance answers 403 when its json format is disabled: add json to search.formats in settings.yml)", err)
		}
		return nil, err
	}
	out := make([]SearchResult, 0, min(len(ans.Results), count))
	for _, r := range ans.Results {
		if len(out) == count {
			break
		}
		out = append(out, SearchResult{Title: r.Title, URL: r.URL, Snippet: r.Content})
	}
	return out, nil
}

// Tavily queries the Tavily search API; the key travels in the
// Authorization header as a bearer token.
type Tavily struct{ provider }

// NewTavily returns a Tavily provider; endpointURL "" means TavilyURL. It
// returns an error for an endpoint that is not http or https.
func NewTavily(c *http.Client, apiKey, endpointURL string) (*Tavily, error) {
	if endpointURL == "" {
		endpointURL = TavilyURL
	}
	u, err := endpoint(endpointURL, "/search")
	if err != nil {
		return nil, err
	}
	return &Tavily{provider{name: ProviderTavily, client: c, url: u, key: apiKey}}, nil
}

// Search implements Searcher.
func (t *Tavily) Search(ctx context.Context, query string, count int) ([]SearchResult, error) {
	body, _ := json.Marshal(map[string]any{
		"query":        query,
		"max_results":  count,
		"search_depth": "basic",
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url.String(), bytes.NewReader(body))
	if err != nil {
		return nil, t.fail("bad request", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+t.key)
	var ans struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := t.do(req, &ans); err != nil {
		return nil, err
	}
	out := make([]SearchResult, 0, len(ans.Results))
	for _, r := range ans.Results {
		out = append(out, SearchResult{Title: r.Title, URL: r.URL, Snippet: r.Content})
	}
	return out, nil
}

// Brave queries the Brave Search web API; the key travels in the
// X-Subscription-Token header.
type Brave struct{ provider }

// NewBrave returns a Brave provider; endpointURL "" means BraveURL. It
// returns an error for an endpoint that is not http or https.
func NewBrave(c *http.Client, apiKey, endpointURL string) (*Brave, error) {
	if endpointURL == "" {
		endpointURL = BraveURL
	}
	u, err := endpoint(endpointURL, "/res/v1/web/search")
	if err != nil {
		return nil, err
	}
	return &Brave{provider{name: ProviderBrave, client: c, url: u, key: apiKey}}, nil
}

// Search implements Searcher.
func (b *Brave) Search(ctx context.Context, query string, count int) ([]SearchResult, error) {
	u := *b.url
	q := u.Query()
	q.Set("q", query)
	q.Set("count", strconv.Itoa(count))
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, b.fail("bad request", err)
	}
	req.Header.Set("X-Subscription-Token", b.key)
	var ans struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
			} `json:"results"`
		} `json:"web"`
	}
	if err := b.do(req, &ans); err != nil {
		return nil, err
	}
	out := make([]SearchResult, 0, len(ans.Web.Results))
	for _, r := range ans.Web.Results {
		out = append(out, SearchResult{Title: r.Title, URL: r.URL, Snippet: r.Description})
	}
	return out, nil
}

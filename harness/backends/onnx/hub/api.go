package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/feather-eval/feather/internal/redact"
	"github.com/feather-eval/feather/internal/retry"
)

// Client talks to the Hub named by Env.Endpoint and writes to its cache.
type Client struct {
	Env Env
	// HTTP sends requests; nil uses http.DefaultTransport (which honours
	// HTTPS_PROXY). Its redirect policy is replaced: the client follows
	// redirects itself so the token never leaves the endpoint's host.
	HTTP *http.Client
	// Progress hears about transfers; nil is silent.
	Progress Progress
	// Retry says how often and how long after a 429 or 5xx answer a
	// request is sent again; zero fields take retry's defaults (4
	// attempts, backoff from 1 s, a Retry-After of up to 5 minutes).
	Retry retry.Policy
}

// statusError is an HTTP answer other than the one asked for.
type statusError struct {
	Status int
	// Code and Message are the Hub's X-Error-Code and X-Error-Message
	// (or the body's "error"), e.g. GatedRepo, RepoNotFound.
	Code, Message string
	URL           string
}

func (e *statusError) Error() string {
	s := fmt.Sprintf("%s answered %d %s", e.URL, e.Status, http.StatusText(e.Status))
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

const maxRedirects = 10

// do sends a request to the endpoint and follows redirects by hand,
// sending the token only to the endpoint's own host: a signed CDN URL
// must not receive it (Go's client would forward it to the same host
// name on another port). It returns the final response and the headers
// of the first one, where the Hub puts X-Linked-Etag and X-Repo-Commit.
func (c *Client) do(ctx context.Context, method, rawURL string, hdr http.Header) (*http.Response, http.Header, error) {
	hc := http.Client{}
	if c.HTTP != nil {
		hc = *c.HTTP
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	endpoint, err := url.Parse(c.Env.Endpoint)
	if err != nil {
		return nil, nil, err
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, nil, err
	}
	var first http.Header
	for hop := 0; ; hop++ {
		req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
		if err != nil {
			return nil, nil, err
		}
		for k, v := range hdr {
			req.Header[k] = v
		}
		req.Header.Set("User-Agent", "feather-hub")
		if c.Env.Token != "" && u.Scheme == endpoint.Scheme && u.Host == endpoint.Host {
			req.Header.Set("Authorization", "Bearer "+c.Env.Token)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, nil, err
		}
		if first == nil {
			first = resp.Header
		}
		loc := resp.Header.Get("Location")
		if resp.StatusCode < 300 || resp.StatusCode >= 400 || loc == "" {
			return resp, first, nil
		}
		resp.Body.Close()
		if hop == maxRedirects {
			return nil, nil, fmt.Errorf("%s: more than %d redirects", rawURL, maxRedirects)
		}
		next, err := u.Parse(loc)
		if err != nil {
			return nil, nil, fmt.Errorf("%s redirected to a bad URL %q: %w", u, loc, err)
		}
		u = next
	}
}

// doRetrying is do, sent again while the answer is 429 or 5xx (a busy or
// failing Hub or CDN) after the policy's backoff, or after the answer's
// Retry-After. The last answer is returned as it came once the attempts
// run out or a Retry-After asks for more than the policy waits, for the
// caller to report. Failures without an answer are not repeated here:
// fetch resumes interrupted downloads itself, and a server that cannot
// be reached is reported at once (see netFailure).
func (c *Client) doRetrying(ctx context.Context, method, rawURL string, hdr http.Header) (*http.Response, http.Header, error) {
	p := c.Retry.WithDefaults()
	for n := 1; ; n++ {
		resp, first, err := c.do(ctx, method, rawURL, hdr)
		if err != nil || !retryStatus(resp.StatusCode) || n >= p.MaxAttempts {
			return resp, first, err
		}
		wait := retry.Backoff(n, p.BackoffBase, p.BackoffMax, p.Rand)
		if after, ok := retry.ParseRetryAfter(resp.Header.Get("Retry-After"), p.Now()); ok {
			if after > p.MaxRetryAfter {
				return resp, first, nil
			}
			wait = after
		}
		resp.Body.Close()
		c.progress().Note(fmt.Sprintf("%s answered %d %s; trying again in %v (attempt %d of %d)",
			hostOf(resp, rawURL), resp.StatusCode, http.StatusText(resp.StatusCode), wait.Round(time.Millisecond), n+1, p.MaxAttempts))
		if err := p.Sleep(ctx, wait); err != nil {
			return nil, nil, err
		}
	}
}

// retryStatus reports whether an answer's status is worth another try.
func retryStatus(status int) bool {
	return status == http.StatusTooManyRequests || status >= 500
}

// hostOf names the server that answered: the redirect's target when the
// request was redirected (the CDN), else rawURL's host.
func hostOf(resp *http.Response, rawURL string) string {
	if resp.Request != nil && resp.Request.URL != nil {
		return resp.Request.URL.Host
	}
	if u, err := url.Parse(rawURL); err == nil {
		return u.Host
	}
	return rawURL
}

// readStatusError reads the Hub's error out of resp (and closes its body).
// URL is where the answer came from, less its query (a CDN's signature).
func readStatusError(resp *http.Response, rawURL string) *statusError {
	defer resp.Body.Close()
	if resp.Request != nil && resp.Request.URL != nil {
		u := *resp.Request.URL
		u.RawQuery, u.Fragment = "", ""
		rawURL = u.String()
	}
	e := &statusError{Status: resp.StatusCode, URL: rawURL,
		Code: resp.Header.Get("X-Error-Code"), Message: resp.Header.Get("X-Error-Message")}
	if e.Message == "" {
		var body struct {
			Error string `json:"error"`
		}
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if json.Unmarshal(data, &body) == nil {
			e.Message = body.Error
		}
	}
	return e
}

// getJSON decodes a 200 answer into v and returns the next page's URL
// from a Link header (the tree listing is paginated), or "".
func (c *Client) getJSON(ctx context.Context, rawURL string, v any) (string, error) {
	resp, _, err := c.doRetrying(ctx, http.MethodGet, rawURL, http.Header{"Accept": {"application/json"}})
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", readStatusError(resp, rawURL)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return "", fmt.Errorf("%s: reading the answer: %w", rawURL, err)
	}
	next := nextLink(resp.Header.Values("Link"))
	if next != "" {
		base, _ := url.Parse(rawURL)
		if u, err := base.Parse(next); err == nil {
			next = u.String()
		}
	}
	return next, nil
}

// nextLink finds rel="next" in Link headers (RFC 8288).
func nextLink(links []string) string {
	for _, h := range links {
		for _, part := range strings.Split(h, ",") {
			target, params, ok := strings.Cut(part, ";")
			target = strings.TrimSpace(target)
			if !ok || !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
				continue
			}
			for _, p := range strings.Split(params, ";") {
				k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.EqualFold(k, "rel") && strings.Trim(v, `"`) == "next" {
					return target[1 : len(target)-1]
				}
			}
		}
	}
	return ""
}

// commit asks the Hub which commit a branch or tag is at.
func (c *Client) commit(ctx context.Context, ref Ref) (string, error) {
	var info struct {
		SHA string `json:"sha"`
	}
	u := fmt.Sprintf("%s/api/models/%s/revision/%s", c.Env.Endpoint, ref.Repo, url.PathEscape(ref.Revision))
	if _, err := c.getJSON(ctx, u, &info); err != nil {
		return "", err
	}
	if !isCommit(info.SHA) {
		return "", fmt.Errorf("%s: the answer has no commit hash in \"sha\" (got %q); is HF_ENDPOINT a Hugging Face Hub?", u, info.SHA)
	}
	return info.SHA, nil
}

// treeEntry is one entry of the tree listing.
type treeEntry struct {
	Type string `json:"type"`
	Path string `json:"path"`
	Size int64  `json:"size"`
	OID  string `json:"oid"`
	LFS  *struct {
		OID  string `json:"oid"`
		Size int64  `json:"size"`
	} `json:"lfs"`
}

// tree lists every file of the repository at commit, following pages.
func (c *Client) tree(ctx context.Context, repo, commit string) ([]File, error) {
	var files []File
	next := fmt.Sprintf("%s/api/models/%s/tree/%s?recursive=true", c.Env.Endpoint, repo, commit)
	for page := 0; next != ""; page++ {
		if page == 10000 {
			return nil, fmt.Errorf("%s: the tree listing does not end", next)
		}
		var entries []treeEntry
		var err error
		if next, err = c.getJSON(ctx, next, &entries); err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.Type != "file" {
				continue
			}
			f := File{Path: e.Path, Size: e.Size, ETag: e.OID}
			if e.LFS != nil {
				f.ETag, f.Size = e.LFS.OID, e.LFS.Size
			}
			if f.ETag == "" || strings.ContainsAny(f.ETag, `/\`) || strings.Contains(e.Path, "..") || strings.HasPrefix(e.Path, "/") {
				return nil, fmt.Errorf("the tree listing of %s has a bad entry %q (oid %q)", repo, e.Path, f.ETag)
			}
			files = append(files, f)
		}
	}
	return files, nil
}

// fileURL is where the Hub serves path at commit.
func (c *Client) fileURL(repo, commit, path string) string {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return fmt.Sprintf("%s/%s/resolve/%s/%s", c.Env.Endpoint, repo, commit, strings.Join(parts, "/"))
}

// explain turns a Hub error into one that says what to do; file is the
// file being fetched, or "" for the API calls.
func (c *Client) explain(err error, ref Ref, file string) error {
	var se *statusError
	if !errors.As(err, &se) {
		return err
	}
	what := "the model info"
	if file != "" {
		what = file
	}
	hub := ""
	if se.Message != "" {
		// The endpoint received the token; a mirror echoing it must not
		// put it in a message people paste into bug reports.
		hub = fmt.Sprintf(" (the Hub says: %s)", redact.Secrets{c.Env.Token}.String(se.Message))
	}
	page := c.Env.Endpoint + "/" + ref.Repo
	if u, err := url.Parse(se.URL); err == nil && !strings.HasPrefix(se.URL, c.Env.Endpoint+"/") {
		// Not the Hub's own answer: the server it redirected to (its CDN).
		return fmt.Errorf("%s: the download server %s answered %d %s for %s%s; try again later (what arrived is kept, and the next pull resumes)",
			ref, u.Host, se.Status, http.StatusText(se.Status), what, hub)
	}
	switch {
	case se.Code == "RepoNotFound" || (se.Status == http.StatusNotFound && se.Code == "" && file == ""):
		fix := "if it is private, set HF_TOKEN to a token that can read it"
		if c.Env.Token != "" {
			fix = "if it is private, the token from " + c.Env.TokenSource + " cannot read it"
		}
		return fmt.Errorf("repository %s not found at %s (HF_ENDPOINT)%s; check ORG/NAME, and %s", ref.Repo, c.Env.Endpoint, hub, fix)
	case se.Code == "RevisionNotFound":
		return fmt.Errorf("repository %s has no revision %q%s; name a branch, tag or commit it has (see %s/tree/main)", ref.Repo, ref.Revision, hub, page)
	case se.Code == "EntryNotFound" || se.Status == http.StatusNotFound:
		return fmt.Errorf("%s has no file %s%s", ref, what, hub)
	case se.Status == http.StatusUnauthorized && c.Env.Token == "":
		return fmt.Errorf("%s is gated: the Hub answered 401 for %s without a token%s. Set HF_TOKEN to a token (%s/settings/tokens) of an account that has accepted its conditions at %s, or log in with the hf CLI, which writes %s",
			ref.Repo, what, hub, c.Env.Endpoint, page, c.Env.TokenPath)
	case se.Status == http.StatusUnauthorized:
		return fmt.Errorf("the Hub refused the token from %s with 401 for %s%s: it is invalid or expired; set HF_TOKEN to a valid token (%s/settings/tokens)",
			c.Env.TokenSource, what, hub, c.Env.Endpoint)
	case se.Status == http.StatusForbidden && c.Env.Token != "":
		return fmt.Errorf("%s is gated and the token from %s has no access to it: the Hub answered 403 for %s%s; accept its conditions at %s with that token's account, or set HF_TOKEN to another account's token",
			ref.Repo, c.Env.TokenSource, what, hub, page)
	case se.Status == http.StatusForbidden:
		return fmt.Errorf("%s: the Hub answered 403 for %s%s; set HF_TOKEN to a token of an account that has access (%s)", ref.Repo, what, hub, page)
	case se.Status == http.StatusTooManyRequests || se.Status >= 500:
		return fmt.Errorf("%s: the Hub answered %d for %s%s; try again later (what was downloaded is kept, and the next pull resumes)", ref, se.Status, what, hub)
	}
	return fmt.Errorf("%s: the Hub answered %d for %s%s", ref, se.Status, what, hub)
}

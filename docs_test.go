package feather_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docPages are the Markdown pages whose links must resolve: the front page
// and every page under docs/.
func docPages(t *testing.T, root string) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	return append([]string{filepath.Join(root, "README.md")}, pages...)
}

// TestDocsLinksResolve keeps the split documentation from rotting: every
// relative link in README.md and docs/*.md names an existing file, and
// every #anchor a heading of the page it points into.
func TestDocsLinksResolve(t *testing.T) {
	pages := docPages(t, ".")
	require.Greater(t, len(pages), 1, "docs/*.md pages")
	assert.Empty(t, brokenLinks(t, pages))
}

// TestDocsLinksReportsBreakage shows what the link check catches: a
// missing file, a missing heading in this page or another one, and
// nothing inside code.
func TestDocsLinksReportsBreakage(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		return path
	}
	other := write("docs/other.md", "# Other page\n\n## Options\n\n## Options\n")
	front := write("README.md", strings.Join([]string{
		"# Front page",
		"",
		"[ok](docs/other.md) [ok](docs/other.md#options-1) [ok](#front-page) [web](https://example.com/x#y)",
		"[gone](docs/gone.md) [no heading](docs/other.md#nothing) [no heading here](#elsewhere)",
		"`[code](docs/nowhere.md)` ![image](docs/gone.png)",
		"",
		"```sh",
		"[fenced](docs/fenced.md)",
		"# not a heading",
		"```",
		"",
		"## Supra-μBench: `go test`, -run & [links](docs/other.md)",
		"[ok](#supra-μbench-go-test--run--links) [fenced heading](#not-a-heading)",
	}, "\n"))

	assert.Equal(t, []string{
		front + ": link docs/gone.md: no such file",
		front + ": link docs/other.md#nothing: no heading with that anchor",
		front + ": link #elsewhere: no heading with that anchor",
		front + ": link docs/gone.png: no such file",
		front + ": link #not-a-heading: no heading with that anchor",
	}, brokenLinks(t, []string{front, other}))
}

// TestDocsSlug pins the anchors GitHub gives headings.
func TestDocsSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Quick start":                              "quick-start",
		"Featherweight v1":                         "featherweight-v1",
		"Supra-μBench":                             "supra-μbench",
		"OpenAI-compatible servers":                "openai-compatible-servers",
		"Downloading from the Hub: `feather pull`": "downloading-from-the-hub-feather-pull",
		"Regression gates, interrupts and results": "regression-gates-interrupts-and-results",
		"The `max_tokens` field":                   "the-max_tokens-field",
		"See [Options](options.md) & more":         "see-options--more",
		"`-fb.cache`":                              "-fbcache",
		"CUDA":                                     "cuda",
	} {
		assert.Equal(t, want, slug(heading), heading)
	}
}

// TestDocsOptionRowsMatchOptionsPage keeps the option rows the suite pages
// repeat equal to docs/options.md, the table TestDocsOptionsListsEveryOption
// checks.
func TestDocsOptionRowsMatchOptionsPage(t *testing.T) {
	table, err := os.ReadFile(filepath.Join("docs", "options.md"))
	require.NoError(t, err)
	rows := map[string]bool{}
	for _, line := range strings.Split(string(table), "\n") {
		rows[line] = true
	}
	for _, page := range docPages(t, ".") {
		text, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, line := range strings.Split(string(text), "\n") {
			if strings.HasPrefix(line, "| `-") && !rows[line] {
				t.Errorf("%s repeats an option row that docs/options.md does not have; copy it from there:\n%s", page, line)
			}
		}
	}
}

var (
	linkRE     = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	codeSpanRE = regexp.MustCompile("`[^`]*`")
	headingRE  = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
)

// brokenLinks lists, for each page, the relative links (images included)
// whose file or #anchor does not exist.
func brokenLinks(t *testing.T, pages []string) []string {
	t.Helper()
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		text, err := os.ReadFile(path)
		require.NoError(t, err)
		anchors[path] = headingAnchors(string(text))
		return anchors[path]
	}
	var broken []string
	for _, page := range pages {
		text, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, target := range relativeLinks(string(text)) {
			if problem := checkLink(page, target, anchorsOf); problem != "" {
				broken = append(broken, fmt.Sprintf("%s: link %s: %s", page, target, problem))
			}
		}
	}
	return broken
}

// checkLink says what is wrong with one link target of page, or "".
func checkLink(page, target string, anchorsOf func(string) map[string]bool) string {
	file, anchor, _ := strings.Cut(target, "#")
	path := page
	if file != "" {
		path = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
		if _, err := os.Stat(path); err != nil {
			return "no such file"
		}
	}
	if anchor != "" && strings.HasSuffix(path, ".md") && !anchorsOf(path)[anchor] {
		return "no heading with that anchor"
	}
	return ""
}

// relativeLinks are the link targets outside code that name no scheme.
func relativeLinks(text string) []string {
	var out []string
	for _, line := range proseLines(text) {
		for _, m := range linkRE.FindAllStringSubmatch(codeSpanRE.ReplaceAllString(line, ""), -1) {
			if !strings.Contains(m[1], "://") && !strings.HasPrefix(m[1], "mailto:") {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// headingAnchors are the anchors GitHub gives a page's headings; a repeated
// slug gets -1, -2… as GitHub numbers them.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(text) {
		m := headingRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			anchors[s] = true
		}
		seen[s]++
	}
	return anchors
}

// proseLines are a page's lines outside fenced code blocks.
func proseLines(text string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, line)
		}
	}
	return out
}

// slug is GitHub's anchor for a heading: its text as rendered (links by
// their text), lower-cased, with everything but letters, digits, marks,
// '-' and '_' dropped and spaces turned into '-'.
func slug(heading string) string {
	heading = linkRE.ReplaceAllStringFunc(heading, func(link string) string {
		return link[1:strings.Index(link, "](")]
	})
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

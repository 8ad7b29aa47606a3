package report

import (
	"fmt"
	"html/template"
	"io"
	"regexp"
	"strings"

	"github.com/feather-eval/feather/harness/report/gotest"
	"github.com/feather-eval/feather/internal/markdown"
)

// SlowestShown is how many of the slowest tests a report lists.
const SlowestShown = 15

// TestsMarkdown summarises a go test run: totals, packages, failures with
// the tail of their output, and the slowest tests.
func TestsMarkdown(r *gotest.Run) string {
	var b strings.Builder
	pass, fail, skip, unfinished := r.Totals()
	b.WriteString("# Test run\n\n")
	fmt.Fprintf(&b, "From %s: %d packages, %d tests: %d passed, %d failed, %d skipped", r.Source, len(r.Packages), len(r.Tests), pass, fail, skip)
	if unfinished > 0 {
		fmt.Fprintf(&b, ", %d did not finish", unfinished)
	}
	b.WriteString(".\n\n| package | result | passed | failed | skipped | did not finish | time (s) |\n|---|---|---|---|---|---|---|\n")
	for _, p := range r.Packages {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %.2f |\n", markdown.Cell(p.Name), strings.ToUpper(p.Status), p.Passed, p.Failed, p.Skipped, p.Unfinished, p.Elapsed)
	}
	failures, broken := r.Failures(), brokenPackages(r)
	if len(failures)+len(broken) > 0 {
		b.WriteString("\n## Failures\n")
		for _, p := range broken {
			fmt.Fprintf(&b, "\n### %s (package)\n\n%s", p.Name, fence(lastLines(p.Output, 40)))
		}
		for _, t := range failures {
			fmt.Fprintf(&b, "\n### %s %s\n\n%s", t.Package, t.Name, fence(lastLines(t.Output, 40)))
		}
	}
	if slow := r.Slowest(SlowestShown); len(slow) > 0 {
		b.WriteString("\n## Slowest tests\n\n| test | package | time (s) |\n|---|---|---|\n")
		for _, t := range slow {
			fmt.Fprintf(&b, "| %s | %s | %.2f |\n", markdown.Cell(t.Name), markdown.Cell(t.Package), t.Elapsed)
		}
	}
	return b.String()
}

// brokenPackages are the packages that failed outside any test (a build
// failure, a panic in TestMain): their own output is the failure.
func brokenPackages(r *gotest.Run) []gotest.Package {
	var out []gotest.Package
	for _, p := range r.Packages {
		if p.Status != gotest.Pass && p.Status != gotest.Skip && p.Failed == 0 && p.Output != "" {
			out = append(out, p)
		}
	}
	return out
}

// fence wraps text in a code fence longer than any backtick run inside it.
func fence(s string) string {
	n := 3
	for run, i := 0, 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", n)
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return f + "\n" + s + f + "\n"
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return fmt.Sprintf("[… %d earlier lines …]\n", len(lines)-n) + strings.Join(lines[len(lines)-n:], "\n")
}

var testFields = []string{"package", "name", "status", "elapsed", "output"}

type testsData struct {
	Kind   string   `json:"kind"`
	Fields []string `json:"fields"`
	Tests  [][]any  `json:"-"`
}

func (d testsData) rows() (string, [][]any) { return "tests", d.Tests }

var testsBody = template.Must(template.New("tests").Parse(`
<p>{{.Source}}: {{len .Run.Packages}} packages, {{len .Run.Tests}} tests — <span class="badge b-pass">{{.Pass}} passed</span> <span class="badge b-fail">{{.Fail}} failed</span> <span class="badge b-unscored">{{.Skip}} skipped</span>{{if .Unfinished}} <span class="badge b-error">{{.Unfinished}} did not finish</span>{{end}}</p>
<h2 id="packages">Packages</h2>
<div class="scroll"><table><thead><tr><th>package</th><th>result</th><th class="num">passed</th><th class="num">failed</th><th class="num">skipped</th><th class="num">did not finish</th><th class="num">time</th></tr></thead>
<tbody>{{range .Run.Packages}}<tr><td>{{.Name}}</td><td><span class="badge b-{{if eq .Status "pass"}}pass{{else if eq .Status "fail"}}fail{{else if eq .Status "skip"}}unscored{{else}}error{{end}}">{{.Status}}</span></td><td class="num">{{.Passed}}</td><td class="num">{{.Failed}}</td><td class="num">{{.Skipped}}</td><td class="num">{{.Unfinished}}</td><td class="num">{{printf "%.2f" .Elapsed}} s</td></tr>{{end}}</tbody></table></div>
{{if or .Failures .Broken}}<h2 id="failures">Failures</h2>
{{range .Broken}}<h3>{{.Name}} (package)</h3><pre class="text error">{{.Output}}</pre>{{end}}
{{range .Failures}}<h3>{{.Name}} <span class="muted">{{.Package}}</span></h3>{{with .Links}}<p class="links">In the report: {{range $i, $l := .}}{{if $i}}, {{end}}<a href="{{$l.Href}}">{{$l.Label}}</a>{{end}}</p>{{end}}<pre class="text error">{{.Output}}</pre>{{end}}{{end}}
<h2 id="slowest">Slowest tests</h2>
<div class="scroll"><table><thead><tr><th>test</th><th>package</th><th class="num">time</th></tr></thead>
<tbody>{{range .Slowest}}<tr><td>{{.Name}}</td><td>{{.Package}}</td><td class="num">{{printf "%.2f" .Elapsed}} s</td></tr>{{end}}</tbody></table></div>
<h2 id="all">All tests</h2>
<div class="controls" id="controls">
<div role="group" aria-label="filter">
<button type="button" data-filter="all" aria-pressed="true">All</button>
<button type="button" data-filter="fail" aria-pressed="false">Failed</button>
<button type="button" data-filter="skip" aria-pressed="false">Skipped</button>
<button type="button" data-filter="pass" aria-pressed="false">Passed</button>
<button type="button" data-filter="unfinished" aria-pressed="false">Did not finish</button>
</div>
<input type="search" id="search" placeholder="Search test and package names" aria-label="search tests">
<span id="count" aria-live="polite"></span>
</div>
<div class="scroll"><table class="list"><thead><tr><th>result</th><th>package</th><th>test</th><th class="num">time</th></tr></thead>
<tbody id="rows"></tbody></table></div>
<button type="button" id="more" hidden>Show more</button>
`))

// TestsPage renders a go test run: packages, failures with output, the
// slowest tests, and every test (filterable).
func TestsPage(w io.Writer, r *gotest.Run, o PageOptions) error {
	pass, fail, skip, unfinished := r.Totals()
	type failure struct {
		gotest.Test
		Links []Link
	}
	p := struct {
		Run                          *gotest.Run
		Source                       string
		Pass, Fail, Skip, Unfinished int
		Failures                     []failure
		Broken                       []gotest.Package
		Slowest                      []gotest.Test
	}{Run: r, Source: r.Source, Pass: pass, Fail: fail, Skip: skip, Unfinished: unfinished, Broken: brokenPackages(r), Slowest: r.Slowest(SlowestShown)}
	for _, t := range r.Failures() {
		p.Failures = append(p.Failures, failure{t, ItemLinks(t, o.Pages)})
	}
	body, err := render(testsBody, p)
	if err != nil {
		return fmt.Errorf("rendering the tests page: %w", err)
	}
	d := testsData{Kind: "tests", Fields: testFields, Tests: make([][]any, 0, len(r.Tests))}
	for _, t := range r.Tests {
		d.Tests = append(d.Tests, []any{t.Package, t.Name, t.Status, t.Elapsed, t.Output})
	}
	return page{Kind: "tests", Title: "Test run", Subtitle: o.Subtitle, Nav: o.Nav, Notes: o.Notes, Body: body, Data: d}.write(w)
}

// suitePages maps the suites' top-level tests to their report pages.
var suitePages = map[string]string{"TestFeatherweight": FeatherweightName, "TestMicrobench": MicrobenchName, "TestFeatherbench": FeatherbenchName}

// regressedRE finds the items a failing gate names (harness/run/gate).
var regressedRE = regexp.MustCompile(`Regressed: ([^\n]+)`)

// ItemLinks links a failed suite test to its items on the suite's page of
// the report (when the report has it): an item subtest
// (TestFeatherweight/<model>/<style>/<id>) to its item, and a gate
// subtest to each item it names as regressed.
func ItemLinks(t gotest.Test, pages map[string]bool) []Link {
	parts := strings.Split(t.Name, "/")
	page := suitePages[parts[0]]
	if page == "" || !pages[page] || len(parts) < 3 {
		return nil
	}
	// search is what finds an item on its page: Featherweight and μBench
	// search item ids, Featherbench task ids.
	search := func(item string) string {
		if page == FeatherbenchName {
			item, _, _ = strings.Cut(item, "/")
		}
		return item
	}
	link := func(item string) Link {
		return Link{Href: page + ".html" + hashLink(map[string]string{"q": search(item)}), Label: item}
	}
	if parts[len(parts)-1] != "gate" {
		if len(parts) < 4 {
			return nil
		}
		item := parts[len(parts)-1]
		if page == MicrobenchName || page == FeatherbenchName {
			item = parts[len(parts)-2] + "/" + item
		}
		return []Link{link(item)}
	}
	var out []Link
	seen := map[string]bool{}
	for _, m := range regressedRE.FindAllStringSubmatch(t.Output, -1) {
		list, _, _ := strings.Cut(m[1], " and ")
		for _, id := range strings.Split(list, ", ") {
			id = strings.TrimSpace(id)
			if id != "" && !seen[id] {
				seen[id] = true
				out = append(out, link(id))
			}
		}
	}
	return out
}

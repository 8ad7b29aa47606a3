// Package report turns finished runs into what people read: for each suite
// found in the run directories, a Markdown summary and one self-contained
// HTML page, plus a page for the go test run itself (from its JSON events
// or JUnit). Numbers come from the suites' own summaries; this package
// arranges, charts and escapes them.
//
// A page needs nothing but itself: styles and one script are inline, a
// Content-Security-Policy forbids every fetch, and the records travel as
// an inert JSON block that the script renders a page of rows at a time,
// so a run of 100,000 trials opens as quickly as one of ten.
package report

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/feather-eval/feather/harness/report/compare"
	"github.com/feather-eval/feather/harness/report/gotest"
	"github.com/feather-eval/feather/harness/report/runs"
	"github.com/feather-eval/feather/internal/atomicfile"
	"github.com/yuin/goldmark"
)

// Options say what to report and where.
type Options struct {
	// RunDirs are run directories (results/<stamp>, results/latest).
	RunDirs []string
	// Events and JUnit are a go test run's JSON events and JUnit XML; each
	// may be empty.
	Events, JUnit string
	// TasksDir is the Featherbench task directory the user named
	// (categories, prompts); empty, each run's recorded one is read, and
	// DefaultTasksDir for runs that recorded none.
	TasksDir, DefaultTasksDir string
	// Out is the directory the report files are written to.
	Out string
}

// PageOptions are what a page shows besides its records.
type PageOptions struct {
	Subtitle string
	Nav      []Link
	Notes    []string
	TasksDir string
	// Pages are the report's pages by name (FeatherweightName, …), for
	// links between them; nil for a page on its own.
	Pages map[string]bool
}

// Output file names, per suite: <name>.md and <name>.html.
const (
	FeatherbenchName  = "featherbench"
	FeatherweightName = "featherweight"
	MicrobenchName    = "microbench"
	TestsName         = "tests"
	IndexFile         = "index.html"
)

type section struct {
	name, label string
	md          func() (string, error)
	html        func(w io.Writer, o PageOptions) error
}

// Build writes the report files into o.Out and returns their paths. It
// reads everything before writing anything, and writes each file whole
// (a temporary file renamed into place), so a failure leaves the previous
// report as it was.
func Build(o Options) ([]string, error) {
	if o.Out == "" {
		return nil, errors.New("report: no output directory")
	}
	if len(o.RunDirs) == 0 && o.Events == "" && o.JUnit == "" {
		return nil, errors.New("report: nothing to report; give run directories, test events or JUnit")
	}
	var sections []section
	var notes []string
	var subtitle []string
	var set *runs.Set
	var cs *compare.Set
	var tr *gotest.Run
	if len(o.RunDirs) > 0 {
		var err error
		set, err = runs.Load(o.RunDirs, runs.Options{TasksDir: o.TasksDir, DefaultTasksDir: o.DefaultTasksDir})
		if err != nil {
			return nil, err
		}
		if set.Empty() {
			return nil, fmt.Errorf("report: no suite results in %s", strings.Join(o.RunDirs, ", "))
		}
		notes = set.Notes
		subtitle = append(subtitle, "runs "+set.Describe())
		cs = compare.FromRuns(set)
		sections = append(sections, suiteSections(set, cs)...)
	}
	if o.Events != "" || o.JUnit != "" {
		var err error
		if tr, err = readTests(o.Events, o.JUnit); err != nil {
			return nil, err
		}
		subtitle = append(subtitle, "tests from "+tr.Source)
		sections = append(sections, section{
			name: TestsName, label: "Tests",
			md:   func() (string, error) { return TestsMarkdown(tr), nil },
			html: func(w io.Writer, po PageOptions) error { return TestsPage(w, tr, po) },
		})
	}

	nav := []Link{{Href: IndexFile, Label: "Overview"}}
	pages := map[string]bool{}
	for _, s := range sections {
		nav = append(nav, Link{Href: s.name + ".html", Label: s.label})
		pages[s.name] = true
	}
	files := map[string][]byte{}
	var order []string
	add := func(name string, b []byte) {
		files[name] = b
		order = append(order, name)
	}
	var index []indexEntry
	for i, s := range sections {
		md, err := s.md()
		if err != nil {
			return nil, err
		}
		add(s.name+".md", []byte(md))
		var html strings.Builder
		pageNav := append([]Link(nil), nav...)
		pageNav[i+1].Current = true
		if err := s.html(&html, PageOptions{Subtitle: strings.Join(subtitle, " · "), Nav: pageNav, Notes: notes, Pages: pages}); err != nil {
			return nil, err
		}
		add(s.name+".html", []byte(html.String()))
		lead, err := inlineHTML(firstLine(md))
		if err != nil {
			return nil, err
		}
		index = append(index, indexEntry{Label: s.label, HTML: s.name + ".html", MD: s.name + ".md", Lead: lead})
	}
	var idx strings.Builder
	nav[0].Current = true
	ov := headlines(set, tr, cs)
	ov.Entries = index
	if err := indexPage(&idx, ov, PageOptions{Subtitle: strings.Join(subtitle, " · "), Nav: nav, Notes: notes}); err != nil {
		return nil, err
	}
	add(IndexFile, []byte(idx.String()))

	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var written []string
	for _, name := range order {
		p := filepath.Join(o.Out, name)
		if err := atomicfile.Write(p, files[name]); err != nil {
			return written, err
		}
		written = append(written, p)
	}
	return written, nil
}

func suiteSections(set *runs.Set, cs *compare.Set) []section {
	var out []section
	if fb := set.Featherbench; fb != nil {
		recs := MergeFeatherbench(fb)
		out = append(out, section{
			name: FeatherbenchName, label: "Featherbench",
			md: func() (string, error) { return FeatherbenchMarkdown(recs, fb.Categories()), nil },
			html: func(w io.Writer, o PageOptions) error {
				o.TasksDir = fb.TasksDir
				return FeatherbenchPage(w, recs, fb.Tasks, o)
			},
		})
	}
	if fw := set.Featherweight; fw != nil {
		data, results, warnings := MergeFeatherweight(fw)
		out = append(out, section{
			name: FeatherweightName, label: "Featherweight",
			md: func() (string, error) { return FeatherweightMarkdown(data, results, warnings) },
			html: func(w io.Writer, o PageOptions) error {
				o.Notes = append(append([]string(nil), o.Notes...), warnings...)
				return FeatherweightPage(w, data, results, o)
			},
		})
	}
	if mb := set.Microbench; mb != nil {
		out = append(out, section{
			name: MicrobenchName, label: "μBench",
			md:   func() (string, error) { return MicrobenchMarkdown(mb.Results), nil },
			html: func(w io.Writer, o PageOptions) error { return MicrobenchPage(w, mb.Results, o) },
		})
	}
	if HasComparison(cs) {
		out = append(out, section{
			name: CompareName, label: "Compare",
			md:   func() (string, error) { return CompareMarkdown(cs) },
			html: func(w io.Writer, o PageOptions) error { return ComparePage(w, cs, o) },
		})
	}
	return out
}

// readTests reads the test events, the JUnit file, or both; with both, the
// events (which keep every test's output) are reported and JUnit is only
// checked for agreement.
func readTests(events, junit string) (*gotest.Run, error) {
	var ev, ju *gotest.Run
	var err error
	if events != "" {
		if ev, err = gotest.ReadEvents(events); err != nil {
			return nil, err
		}
	}
	if junit != "" {
		if ju, err = gotest.ReadJUnit(junit); err != nil {
			return nil, err
		}
	}
	if ev == nil {
		return ju, nil
	}
	if ju != nil {
		_, ef, _, _ := ev.Totals()
		_, jf, _, _ := ju.Totals()
		if ef != jf {
			ev.Source += fmt.Sprintf(" (%s counts %d failed tests, the events %d: they are probably from different runs)", junit, jf, ef)
		} else {
			ev.Source += " and " + junit
		}
	}
	return ev, nil
}

func firstLine(md string) string {
	for _, l := range strings.Split(md, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "|") && !strings.HasPrefix(l, ">") {
			return l
		}
	}
	return ""
}

// inlineHTML renders one line of a summary's Markdown (code spans,
// emphasis, escapes) as HTML without its paragraph; raw HTML in it is
// dropped, as goldmark does by default.
func inlineHTML(line string) (template.HTML, error) {
	var b bytes.Buffer
	if err := goldmark.Convert([]byte(line), &b); err != nil {
		return "", err
	}
	out := strings.TrimSpace(b.String())
	out = strings.TrimSuffix(strings.TrimPrefix(out, "<p>"), "</p>")
	return template.HTML(out), nil
}

type indexEntry struct {
	Label, HTML, MD string
	Lead            template.HTML
}

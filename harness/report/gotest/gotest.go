// Package gotest reads what a go test run leaves for CI — the JSON test
// events of `go test -json` (gotestsum's --jsonfile) and JUnit XML
// (gotestsum's --junitfile) — into one outcome per package and per test.
package gotest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Outcomes of a test or package.
const (
	Pass = "pass"
	Fail = "fail"
	Skip = "skip"
	// Unfinished: the test started but never reported (a timeout or a
	// crash ended the binary first).
	Unfinished = "unfinished"
)

// MaxOutput bounds the output kept for one test: the tail is kept, where a
// failure's cause usually is.
const MaxOutput = 64 << 10

// Test is one test or subtest.
type Test struct {
	Package string  `json:"package"`
	Name    string  `json:"name"`
	Status  string  `json:"status"`
	Elapsed float64 `json:"elapsed_s"`
	// Output is kept for failed, skipped and unfinished tests only.
	Output string `json:"output,omitempty"`
}

// Package is one package's outcome.
type Package struct {
	Name    string  `json:"name"`
	Status  string  `json:"status"`
	Elapsed float64 `json:"elapsed_s"`
	// Counts of its tests (subtests included) by status.
	Passed, Failed, Skipped, Unfinished int
	// Output is package-level output (build failures, panics outside a
	// test), kept when the package failed.
	Output string `json:"output,omitempty"`
}

// Run is one go test invocation's outcomes.
type Run struct {
	// Source names the file(s) read.
	Source   string    `json:"source"`
	Packages []Package `json:"packages"`
	Tests    []Test    `json:"tests"`
}

// Totals counts tests by status.
func (r *Run) Totals() (passed, failed, skipped, unfinished int) {
	for _, t := range r.Tests {
		switch t.Status {
		case Pass:
			passed++
		case Fail:
			failed++
		case Skip:
			skipped++
		default:
			unfinished++
		}
	}
	return
}

// Slowest returns the n slowest tests that finished in measurable time,
// slowest first. A parent's time includes its subtests', so leaves and
// parents mix here as go test reports them.
func (r *Run) Slowest(n int) []Test {
	var out []Test
	for _, t := range r.Tests {
		if t.Status != Unfinished && t.Elapsed > 0 {
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Elapsed > out[j].Elapsed })
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// Failures returns the failed and unfinished tests that have no failed
// subtest of their own: where the failure happened, not its parents.
func (r *Run) Failures() []Test {
	failedChild := map[string]bool{}
	for _, t := range r.Tests {
		if t.Status == Fail || t.Status == Unfinished {
			for p := parent(t.Name); p != ""; p = parent(p) {
				failedChild[t.Package+"\x00"+p] = true
			}
		}
	}
	var out []Test
	for _, t := range r.Tests {
		if (t.Status == Fail || t.Status == Unfinished) && !failedChild[t.Package+"\x00"+t.Name] {
			out = append(out, t)
		}
	}
	return out
}

func parent(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return ""
}

// event is one line of `go test -json` (test2json's TestEvent).
type event struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
	// ImportPath is set on build events and FailedBuild on the package
	// event of a package that did not build (Go 1.24+).
	ImportPath, FailedBuild string
}

// ReadEvents reads a `go test -json` event file.
func ReadEvents(path string) (*Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading test events: %w", err)
	}
	defer f.Close()
	return ParseEvents(path, f)
}

// ParseEvents reads events from r; name is used in errors. A line that is
// not an event is an error naming the line, except a final line cut short
// (a run killed while writing), which is ignored.
func ParseEvents(name string, r io.Reader) (*Run, error) {
	type key struct{ pkg, test string }
	tests := map[key]*Test{}
	var order []key
	pkgs := map[string]*Package{}
	var pkgOrder []string
	out := map[key]*strings.Builder{}
	build := map[string]*strings.Builder{} // import path -> build output
	failedBuild := map[string]string{}     // package -> import path that failed

	pkg := func(name string) *Package {
		p, ok := pkgs[name]
		if !ok {
			p = &Package{Name: name}
			pkgs[name] = p
			pkgOrder = append(pkgOrder, name)
		}
		return p
	}
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		b, rerr := br.ReadBytes('\n')
		trimmed := bytes.TrimSpace(b)
		if len(trimmed) > 0 {
			var e event
			if err := json.Unmarshal(trimmed, &e); err != nil || (e.Action == "" && e.ImportPath == "") {
				if errors.Is(rerr, io.EOF) && !bytes.HasSuffix(b, []byte("\n")) {
					break // a cut-short last line
				}
				return nil, fmt.Errorf("%s:%d: not a go test -json event (write the file with gotestsum --jsonfile or go test -json): %.80q", name, line, trimmed)
			}
			switch {
			case e.Action == "build-output":
				sb := build[e.ImportPath]
				if sb == nil {
					sb = &strings.Builder{}
					build[e.ImportPath] = sb
				}
				appendTail(sb, e.Output)
			case e.Action == "build-fail":
			case e.Package == "":
			case e.Test == "":
				p := pkg(e.Package)
				switch e.Action {
				case "output":
					k := key{e.Package, ""}
					if out[k] == nil {
						out[k] = &strings.Builder{}
					}
					appendTail(out[k], e.Output)
				case Pass, Fail, Skip:
					p.Status, p.Elapsed = e.Action, e.Elapsed
					if e.FailedBuild != "" {
						failedBuild[e.Package] = e.FailedBuild
					}
				}
			default:
				pkg(e.Package)
				k := key{e.Package, e.Test}
				t, ok := tests[k]
				if !ok {
					t = &Test{Package: e.Package, Name: e.Test, Status: Unfinished}
					tests[k] = t
					order = append(order, k)
				}
				switch e.Action {
				case "output":
					if out[k] == nil {
						out[k] = &strings.Builder{}
					}
					appendTail(out[k], e.Output)
				case Pass, Fail, Skip:
					t.Status, t.Elapsed = e.Action, e.Elapsed
				}
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return nil, fmt.Errorf("reading %s: %w", name, rerr)
		}
	}
	run := &Run{Source: name}
	for _, k := range order {
		t := tests[k]
		if t.Status != Pass && out[k] != nil {
			t.Output = out[k].String()
		}
		run.Tests = append(run.Tests, *t)
	}
	for _, n := range pkgOrder {
		p := pkgs[n]
		if p.Status == "" {
			p.Status = Unfinished
		}
		if p.Status != Pass {
			var sb strings.Builder
			if b := build[failedBuild[n]]; b != nil {
				sb.WriteString(b.String())
			}
			if o := out[key{n, ""}]; o != nil {
				sb.WriteString(o.String())
			}
			p.Output = tail(sb.String())
		}
		run.Packages = append(run.Packages, *p)
	}
	count(run)
	return run, nil
}

func appendTail(sb *strings.Builder, s string) {
	sb.WriteString(s)
	if sb.Len() > 2*MaxOutput {
		t := tail(sb.String())
		sb.Reset()
		sb.WriteString(t)
	}
}

// tail keeps the last MaxOutput bytes, starting at a line boundary.
func tail(s string) string {
	if len(s) <= MaxOutput {
		return s
	}
	cut := s[len(s)-MaxOutput:]
	if i := strings.IndexByte(cut, '\n'); i >= 0 {
		cut = cut[i+1:]
	}
	return "[… earlier output cut …]\n" + cut
}

func count(run *Run) {
	idx := map[string]int{}
	for i, p := range run.Packages {
		idx[p.Name] = i
		run.Packages[i].Passed, run.Packages[i].Failed, run.Packages[i].Skipped, run.Packages[i].Unfinished = 0, 0, 0, 0
	}
	for _, t := range run.Tests {
		i, ok := idx[t.Package]
		if !ok {
			idx[t.Package] = len(run.Packages)
			i = len(run.Packages)
			run.Packages = append(run.Packages, Package{Name: t.Package, Status: Unfinished})
		}
		p := &run.Packages[i]
		switch t.Status {
		case Pass:
			p.Passed++
		case Fail:
			p.Failed++
		case Skip:
			p.Skipped++
		default:
			p.Unfinished++
		}
	}
}

// JUnit's shape as gotestsum (and most tools) write it.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Time      string      `xml:"time,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Cases     []junitCase `xml:"testcase"`
	SystemOut string      `xml:"system-out"`
}

type junitCase struct {
	Classname string       `xml:"classname,attr"`
	Name      string       `xml:"name,attr"`
	Time      string       `xml:"time,attr"`
	Failure   *junitDetail `xml:"failure"`
	Error     *junitDetail `xml:"error"`
	Skipped   *junitDetail `xml:"skipped"`
}

type junitDetail struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// ReadJUnit reads a JUnit XML file.
func ReadJUnit(path string) (*Run, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading JUnit: %w", err)
	}
	return ParseJUnit(path, b)
}

// ParseJUnit reads JUnit XML: a <testsuites> document, or a lone
// <testsuite>. name is used in errors.
func ParseJUnit(name string, data []byte) (*Run, error) {
	var doc junitSuites
	if err := xml.Unmarshal(data, &doc); err != nil {
		var one junitSuite
		if err2 := xml.Unmarshal(data, &one); err2 != nil || one.Name == "" && len(one.Cases) == 0 {
			return nil, fmt.Errorf("%s: not JUnit XML (want <testsuites> or <testsuite>, as gotestsum --junitfile writes): %v", name, err)
		}
		doc.Suites = []junitSuite{one}
	}
	run := &Run{Source: name}
	for si, s := range doc.Suites {
		el, err := seconds(s.Time)
		if err != nil {
			return nil, fmt.Errorf("%s: testsuite %d (%s): time %q: %v", name, si+1, s.Name, s.Time, err)
		}
		p := Package{Name: s.Name, Status: Pass, Elapsed: el}
		for ci, c := range s.Cases {
			el, err := seconds(c.Time)
			if err != nil {
				return nil, fmt.Errorf("%s: testsuite %s, testcase %d (%s): time %q: %v", name, s.Name, ci+1, c.Name, c.Time, err)
			}
			t := Test{Package: s.Name, Name: c.Name, Status: Pass, Elapsed: el}
			if t.Package == "" {
				t.Package = c.Classname
			}
			switch {
			case c.Failure != nil:
				t.Status, t.Output = Fail, detail(c.Failure)
			case c.Error != nil:
				t.Status, t.Output = Fail, detail(c.Error)
			case c.Skipped != nil:
				t.Status, t.Output = Skip, detail(c.Skipped)
			}
			run.Tests = append(run.Tests, t)
		}
		if s.Failures+s.Errors > 0 {
			p.Status = Fail
			if len(s.Cases) == 0 || strings.TrimSpace(s.SystemOut) != "" {
				p.Output = tail(s.SystemOut)
			}
		}
		run.Packages = append(run.Packages, p)
	}
	count(run)
	for i, p := range run.Packages {
		if p.Failed > 0 {
			run.Packages[i].Status = Fail
		}
	}
	return run, nil
}

func detail(d *junitDetail) string {
	body := strings.TrimSpace(d.Body)
	if body == "" {
		return d.Message
	}
	return tail(body)
}

func seconds(s string) (float64, error) {
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	return strconv.ParseFloat(strings.TrimSpace(s), 64)
}

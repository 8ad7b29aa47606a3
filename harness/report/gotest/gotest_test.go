package gotest_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/feather-eval/feather/harness/report/gotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const fixtures = "../../../testdata/report/tests"

type totals struct{ pass, fail, skip, unfinished int }

func totalsOf(r *gotest.Run) totals {
	p, f, s, u := r.Totals()
	return totals{p, f, s, u}
}

func TestReadEvents(t *testing.T) {
	r, err := gotest.ReadEvents(filepath.Join(fixtures, "test-events.json"))
	require.NoError(t, err)
	assert.Equal(t, totals{5, 5, 1, 1}, totalsOf(r))
	var failures []string
	for _, f := range r.Failures() {
		failures = append(failures, f.Name)
	}
	assert.Equal(t, []string{"TestFeatherweight/smoke/plain/geo02", "TestFeatherweight/smoke/plain/gate", "TestMcNemarExact"}, failures, "leaves only, unfinished included")
	var pkgs []string
	for _, p := range r.Packages {
		pkgs = append(pkgs, p.Name+" "+p.Status)
	}
	assert.Equal(t, []string{
		"github.com/feather-eval/feather fail",
		"github.com/feather-eval/feather/harness/report pass",
		"github.com/feather-eval/feather/harness/stats fail",
		"github.com/feather-eval/feather/harness/gate fail",
	}, pkgs)
	assert.Equal(t, "# github.com/feather-eval/feather/harness/gate [github.com/feather-eval/feather/harness/gate.test]\nharness/gate/gate.go:12:2: undefined: baselineDir\nFAIL\tgithub.com/feather-eval/feather/harness/gate [build failed]\n", r.Packages[3].Output)
	assert.Empty(t, r.Packages[1].Output, "a passing package keeps no output")
}

func TestParseEvents(t *testing.T) {
	tests := []struct {
		name, in string
		want     totals
		err      string
	}{
		{"a cut-short last line is ignored", `{"Action":"run","Package":"p","Test":"T"}` + "\n" + `{"Action":"pass","Package":"p","Test":"T","Elapsed":0.5}` + "\n" + `{"Action":"pa`, totals{1, 0, 0, 0}, ""},
		{"a test with no end did not finish", `{"Action":"run","Package":"p","Test":"T"}`, totals{0, 0, 0, 1}, ""},
		{"a line that is not an event", `{"Action":"run","Package":"p","Test":"T"}` + "\nok  \tp\t0.1s\n", totals{}, `events.json:2: not a go test -json event (write the file with gotestsum --jsonfile or go test -json): "ok  \tp\t0.1s"`},
		{"JSON that is not an event", `{"name":"x"}` + "\n", totals{}, `events.json:1: not a go test -json event (write the file with gotestsum --jsonfile or go test -json): "{\"name\":\"x\"}"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := gotest.ParseEvents("events.json", strings.NewReader(tt.in))
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, totalsOf(r))
		})
	}
}

func TestReadJUnit(t *testing.T) {
	r, err := gotest.ReadJUnit(filepath.Join(fixtures, "junit.xml"))
	require.NoError(t, err)
	assert.Equal(t, totals{6, 5, 1, 0}, totalsOf(r))
	require.Len(t, r.Tests, 12)
	assert.Equal(t, gotest.Test{Package: "github.com/feather-eval/feather/harness/report", Name: "TestBrowser", Status: gotest.Skip,
		Output: "browser_test.go:40: chromium not found: run scripts/browser-deps.sh as root\n"}, r.Tests[7])
	assert.Contains(t, r.Tests[1].Output, `featherweight_test.go:88: wrong: reply "<b>B</b> & more" -> "B" by answer_is (answer A)`)
	assert.Equal(t, 2.41, r.Tests[4].Elapsed)
	assert.Equal(t, gotest.Fail, r.Packages[3].Status)
}

func TestParseJUnit(t *testing.T) {
	tests := []struct {
		name, in string
		want     totals
		err      string
	}{
		{"a lone testsuite", `<testsuite name="p"><testcase name="T" time="0.1"/><testcase name="U"><skipped message="later"/></testcase></testsuite>`, totals{1, 0, 1, 0}, ""},
		{"an error counts as a failure", `<testsuites><testsuite name="p" errors="1"><testcase name="T"><error message="boom"/></testcase></testsuite></testsuites>`, totals{0, 1, 0, 0}, ""},
		{"not XML", `PASS`, totals{}, "junit.xml: not JUnit XML (want <testsuites> or <testsuite>, as gotestsum --junitfile writes): EOF"},
		{"a bad time", `<testsuites><testsuite name="p"><testcase name="T" time="soon"/></testsuite></testsuites>`, totals{}, `junit.xml: testsuite p, testcase 1 (T): time "soon": strconv.ParseFloat: parsing "soon": invalid syntax`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := gotest.ParseJUnit("junit.xml", []byte(tt.in))
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, totalsOf(r))
		})
	}
}

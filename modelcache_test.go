package feather_test

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/lm"

	// The backends the suites' catalogs may name register themselves.
	_ "github.com/feather-eval/feather/harness/backends/httpapi"
	_ "github.com/feather-eval/feather/harness/backends/onnx"
	_ "github.com/feather-eval/feather/harness/backends/openai"
)

// selectModels loads a catalog and applies the selection; a bad catalog or an
// unknown key fails the test with the catalog's own message.
func selectModels(t *testing.T, catalogPath string, keys []string) []catalog.Entry {
	t.Helper()
	c, err := catalog.Load(catalogPath)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := c.Select(keys)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// openModel opens e once per process. A backend missing from this build
// (e.g. openrouter without its tag) skips the calling test with the reason,
// and requireAModel hears of it; any other failure fails it.
func openModel(t *testing.T, e catalog.Entry) lm.Model {
	t.Helper()
	m, err := openCached(context.Background(), e)
	suite := strings.SplitN(t.Name(), "/", 2)[0]
	if errors.Is(err, catalog.ErrUnavailable) {
		opens.note(suite, err.Error())
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	opens.note(suite, "")
	return m
}

// opens counts, per suite test, the models that opened and the reasons
// the others could not in this build.
var opens = &openCounts{opened: map[string]int{}, missing: map[string][]string{}}

type openCounts struct {
	sync.Mutex
	opened  map[string]int
	missing map[string][]string
}

func (o *openCounts) note(suite, missing string) {
	o.Lock()
	defer o.Unlock()
	if missing == "" {
		o.opened[suite]++
	} else {
		o.missing[suite] = append(o.missing[suite], missing)
	}
}

// requireAModel fails a suite's test t when every model it tried to open
// needs a backend this build lacks: a run that measured nothing must not
// pass as one that did. flag is the suite's model option.
func requireAModel(t *testing.T, flag string) {
	t.Helper()
	opens.Lock()
	opened, missing := opens.opened[t.Name()], opens.missing[t.Name()]
	delete(opens.opened, t.Name())
	delete(opens.missing, t.Name())
	opens.Unlock()
	sort.Strings(missing) // models open side by side in Featherbench
	if opened == 0 && len(missing) > 0 {
		t.Fatalf("no selected model could run in this build, so nothing was measured and no results were written:\n  %s\n"+
			"Build with what each needs, or run the built-in model offline with %s=smoke", strings.Join(missing, "\n  "), flag)
	}
}

// openCached is openModel's cache without a test to skip: rubric judges
// open through it, so a judge that is also a contestant is opened once.
func openCached(_ context.Context, e catalog.Entry) (lm.Model, error) { return catalog.OpenShared(e) }

func closeModels() { catalog.CloseShared() }

// modelInfo is the model's own description, with the catalog's key and
// name filling what the backend left empty, for results files.
func modelInfo(e catalog.Entry, m lm.Model) lm.Info {
	info := m.Info()
	if info.Key == "" {
		info.Key = e.Key
	}
	if info.Name == "" {
		info.Name = e.Name
	}
	return info
}

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
	_ "github.com/feather-eval/feather/harness/backends/llamacpp"
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

// entryKeys are the entries' keys, in order.
func entryKeys(entries []catalog.Entry) []string {
	keys := make([]string, len(entries))
	for i, e := range entries {
		keys[i] = e.Key
	}
	return keys
}

// openModel opens e once per process. A backend missing from this build
// (e.g. openrouter without its tag) skips the calling test with the reason,
// and requireAModel hears of it; any other failure fails it.
func openModel(t *testing.T, e catalog.Entry) lm.Model {
	t.Helper()
	m, err := openCached(context.Background(), e)
	unavailable := errors.Is(err, catalog.ErrUnavailable)
	if err == nil || unavailable {
		tally(strings.SplitN(t.Name(), "/", 2)[0], err)
	}
	if unavailable {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// openAs opens e as the capability C a suite needs (lm.Generator,
// lm.Scorer); a model without it fails t, which says what the suite needs.
func openAs[C any](t *testing.T, e catalog.Entry, need string) (lm.Info, C) {
	t.Helper()
	m := openModel(t, e)
	c, ok := m.(C)
	if !ok {
		t.Fatalf("model %q (backend %s) cannot %s", e.Key, e.Backend, need)
	}
	return e.Info(m), c
}

// opened and unopenable count, per suite test, the models that opened and
// why the others could not in this build.
var (
	openMu     sync.Mutex
	opened     = map[string]int{}
	unopenable = map[string][]string{}
)

func tally(suite string, err error) {
	openMu.Lock()
	defer openMu.Unlock()
	if err != nil {
		unopenable[suite] = append(unopenable[suite], err.Error())
	} else {
		opened[suite]++
	}
}

// requireAModel fails a suite's test t when every model it tried to open
// needs a backend this build lacks: a run that measured nothing must not
// pass as one that did. flag is the suite's model option.
func requireAModel(t *testing.T, flag string) {
	t.Helper()
	openMu.Lock()
	n, why := opened[t.Name()], unopenable[t.Name()]
	delete(opened, t.Name())
	delete(unopenable, t.Name())
	openMu.Unlock()
	if n == 0 && len(why) > 0 {
		sort.Strings(why) // Featherbench opens its models side by side
		t.Fatalf("no selected model could run in this build, so nothing was measured and no results were written:\n  %s\n"+
			"Build with what each needs, or run the built-in model offline with %s=smoke", strings.Join(why, "\n  "), flag)
	}
}

// openCached is openModel's cache without a test to skip: rubric judges
// open through it, so a judge that is also a contestant is opened once.
func openCached(_ context.Context, e catalog.Entry) (lm.Model, error) { return catalog.OpenShared(e) }

func closeModels() { catalog.CloseShared() }

package feather_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/feather-eval/feather/harness/backends"
	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/lm"
)

// Models are opened once per process and shared by the suites, so a run of
// two suites on the same local model loads it once.
var (
	modelsMu sync.Mutex
	opened   = map[string]openResult{}
)

type openResult struct {
	model lm.Model
	err   error
}

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
// (e.g. openrouter without its tag) skips the calling test with the reason;
// any other failure fails it.
func openModel(t *testing.T, e catalog.Entry) lm.Model {
	t.Helper()
	m, err := openCached(context.Background(), e)
	if errors.Is(err, backends.ErrUnavailable) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// openCached is openModel's cache without a test to skip: rubric judges
// open through it, so a judge that is also a contestant is opened once.
// The result, failure included, is kept for the process, so it must not
// depend on one caller's context.
func openCached(_ context.Context, e catalog.Entry) (lm.Model, error) {
	id := e.Dir + "\x00" + e.Key
	modelsMu.Lock()
	defer modelsMu.Unlock()
	r, ok := opened[id]
	if !ok {
		r.model, r.err = backends.Open(context.Background(), e)
		opened[id] = r
	}
	return r.model, r.err
}

func closeModels() {
	modelsMu.Lock()
	defer modelsMu.Unlock()
	for id, r := range opened {
		if r.model != nil {
			r.model.Close()
		}
		delete(opened, id)
	}
}

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

package feather_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/feather-eval/feather/harness/backend"
	"github.com/feather-eval/feather/harness/catalog"
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
	id := e.Dir + "\x00" + e.Key
	modelsMu.Lock()
	r, ok := opened[id]
	if !ok {
		r.model, r.err = backend.Open(context.Background(), e)
		opened[id] = r
	}
	modelsMu.Unlock()
	if errors.Is(r.err, backend.ErrUnavailable) {
		t.Skip(r.err)
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.model
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

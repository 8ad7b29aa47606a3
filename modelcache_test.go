package feather_test

import (
	"context"
	"errors"
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
// (e.g. openrouter without its tag) skips the calling test with the reason;
// any other failure fails it.
func openModel(t *testing.T, e catalog.Entry) lm.Model {
	t.Helper()
	m, err := openCached(context.Background(), e)
	if errors.Is(err, catalog.ErrUnavailable) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
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

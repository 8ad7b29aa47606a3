package rubric

import (
	"context"
	"fmt"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/lm"
)

// DefaultJudge is the judge used when none is named.
const DefaultJudge = "fable-5"

// Resolve builds the panel's judges from the catalog by key, in the order
// given (duplicates dropped); no keys means DefaultJudge. Judges are looked
// up in the whole catalog, so a judge need be neither enabled nor a
// contestant, and "all" makes every model a judge, as it selects every
// model elsewhere. An unknown key is the catalog's own error, which lists
// the valid keys. open is catalog.Open or the once-per-process
// catalog.OpenShared; the caller owns the opened models (open may share
// them with the contestants).
func Resolve(ctx context.Context, cat *catalog.Catalog, keys []string, open catalog.Opener) ([]Judge, error) {
	if len(keys) == 0 {
		keys = []string{DefaultJudge}
	}
	entries, err := cat.Select(keys)
	if err != nil {
		return nil, fmt.Errorf("judge: %w", err)
	}
	judges := make([]Judge, 0, len(entries))
	for _, e := range entries {
		m, err := open(ctx, e)
		if err != nil {
			return nil, fmt.Errorf("judge %q: %w", e.Key, err)
		}
		gen, ok := m.(lm.Generator)
		if !ok {
			return nil, fmt.Errorf("judge %q: its %s backend cannot generate text, so it cannot judge; pick a chat model", e.Key, e.Backend)
		}
		judges = append(judges, Judge{Key: e.Key, Gen: gen})
	}
	return judges, nil
}

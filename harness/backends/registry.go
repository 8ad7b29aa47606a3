// Package backend is the registry that turns a catalog entry into a loaded
// model. Backends register an Opener under their catalog name; a backend
// that needs a build tag registers as unavailable with the reason instead,
// so a suite can skip its models with a message that says how to enable them.
package backends

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/lm"
)

// Opener loads the model an entry describes.
type Opener func(ctx context.Context, e catalog.Entry) (lm.Model, error)

// ErrUnavailable marks a backend this binary was built without.
var ErrUnavailable = errors.New("backend unavailable in this build")

type registration struct {
	open   Opener
	reason string
}

var (
	mu       sync.RWMutex
	registry = map[string]registration{}
)

// Register makes a backend available. Registering a name twice panics: it
// is a wiring mistake, not user input.
func Register(name string, open Opener) {
	mu.Lock()
	defer mu.Unlock()
	if r, dup := registry[name]; dup && r.open != nil {
		panic("backend: " + name + " registered twice")
	}
	registry[name] = registration{open: open}
}

// Unavailable records why a backend cannot be used in this build, unless a
// real Opener is (or later gets) registered under the name.
func Unavailable(name, reason string) {
	mu.Lock()
	defer mu.Unlock()
	if r, ok := registry[name]; ok && r.open != nil {
		return
	}
	registry[name] = registration{reason: reason}
}

// Open loads e with its backend's Opener.
func Open(ctx context.Context, e catalog.Entry) (lm.Model, error) {
	mu.RLock()
	r, ok := registry[e.Backend]
	mu.RUnlock()
	switch {
	case !ok:
		return nil, fmt.Errorf("model %q: backend %q is not registered (known: %s)", e.Key, e.Backend, strings.Join(Names(), ", "))
	case r.open == nil:
		return nil, fmt.Errorf("model %q: %w: %s", e.Key, ErrUnavailable, r.reason)
	}
	m, err := r.open(ctx, e)
	if err != nil {
		return nil, fmt.Errorf("model %q: %w", e.Key, err)
	}
	return m, nil
}

// Names lists registered backend names, available or not.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(registry))
	for k := range registry {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

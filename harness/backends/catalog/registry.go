package catalog

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/respcache"
)

// Opener loads the model an entry describes.
type Opener func(ctx context.Context, e Entry) (lm.Model, error)

// Settings is a backend's own part of a catalog entry: the fields beyond
// the common ones, decoded from the entry and validated by the backend.
type Settings interface {
	// Validate checks the settings. e holds the entry's common fields: the
	// catalog defaults a backend checks among its own, and the catalog's
	// folder, which a backend may keep to resolve relative paths.
	Validate(e Entry) error
	// Identity is every setting that can change an answer, in a fixed
	// order, resolved as the backend resolves it; the response cache keys
	// on it. Never a credential: no api_key_env name, no header value.
	Identity() []Field
	// Target is what the entry points at (a folder, a URL, a slug), for
	// listings.
	Target() string
}

// Field is one setting of an Identity under its catalog name. Empty values
// (as encoding/json's omitempty sees them) count as unset.
type Field = respcache.Field

// Backend is what a backend registers under its catalog name.
type Backend struct {
	// Settings returns empty settings for an entry's fields to decode
	// into: a pointer to a struct whose json tags name the fields.
	Settings func() Settings
	// Defaults names the catalog defaults ("max_tokens", "sampling") the
	// backend applies; an entry of a backend without one may not set it.
	Defaults []string
	// Open loads a model. It is nil when this build lacks the backend, and
	// Unavailable says how to get it: the entries still parse.
	Open        Opener
	Unavailable string
}

// ErrUnavailable marks a backend this binary was built without.
var ErrUnavailable = errors.New("backend unavailable in this build")

// Registry maps backend names to backends. The package's functions use
// one shared Registry that backends fill from their init functions.
type Registry struct {
	mu       sync.RWMutex
	backends map[string]Backend
	fields   *fieldSet // the backends' fields, rebuilt at each registration
	shared   shared
}

var registry = &Registry{}

// Register makes a backend known to catalogs. Registering a name twice,
// or a field under two Go types, panics: it is a wiring mistake, not user
// input.
func Register(name string, b Backend) { registry.Register(name, b) }

// Open loads e with its backend.
func Open(ctx context.Context, e Entry) (lm.Model, error) { return registry.Open(ctx, e) }

// Names lists the registered backend names, available or not.
func Names() []string { return registry.Names() }

// Register adds a backend; see the package function.
func (r *Registry) Register(name string, b Backend) {
	if b.Settings == nil {
		panic("catalog: backend " + name + " registered without Settings")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.backends[name]; dup {
		panic("catalog: backend " + name + " registered twice")
	}
	next := maps.Clone(r.backends)
	if next == nil {
		next = map[string]Backend{}
	}
	next[name] = b
	fields := newFieldSet(next) // a field declared with two types panics here, at init
	r.backends, r.fields = next, fields
}

// Open loads e with its backend's Opener.
func (r *Registry) Open(ctx context.Context, e Entry) (lm.Model, error) {
	b, ok := r.backend(e.Backend)
	switch {
	case !ok:
		return nil, fmt.Errorf("model %q: backend %q is not registered (known: %s)", e.Key, e.Backend, strings.Join(r.Names(), ", "))
	case b.Open == nil:
		return nil, fmt.Errorf("model %q: %w: %s", e.Key, ErrUnavailable, b.Unavailable)
	}
	m, err := b.Open(ctx, e)
	if err != nil {
		return nil, fmt.Errorf("model %q: %w", e.Key, err)
	}
	return lm.WithDefaults(m, e.Defaults()), nil
}

// Names lists registered backend names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.backends))
	for k := range r.backends {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (r *Registry) backend(name string) (Backend, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	b, ok := r.backends[name]
	return b, ok
}

// entryFields is the set of catalog fields the registered backends
// declare.
func (r *Registry) entryFields() *fieldSet {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.fields == nil {
		return newFieldSet(nil)
	}
	return r.fields
}

// settingsType is the struct type b's settings decode into.
func settingsType(b Backend) reflect.Type {
	t := reflect.TypeOf(b.Settings())
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("catalog: settings must be a pointer to a struct, not %s", t))
	}
	return t.Elem()
}

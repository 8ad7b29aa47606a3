package catalog

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/feather-eval/feather/harness/lm"
)

// shared keeps models opened once per process, so that two suites, or a
// suite and a rubric judge, on the same model load it once.
type shared struct {
	mu     sync.Mutex
	opened map[string]opened
}

type opened struct {
	model lm.Model
	err   error
}

// OpenShared opens e once per process; later calls for the same entry
// (catalog folder and key) get the same model, or the same error.
func OpenShared(e Entry) (lm.Model, error) { return registry.OpenShared(e) }

// CloseShared closes every model OpenShared opened and forgets them.
func CloseShared() { registry.CloseShared() }

// OpenShared opens e with r once per process. The result, failure
// included, is kept for the process, so it does not depend on one
// caller's context.
func (r *Registry) OpenShared(e Entry) (lm.Model, error) {
	id := e.Dir + "\x00" + e.Key
	r.shared.mu.Lock()
	defer r.shared.mu.Unlock()
	o, ok := r.shared.opened[id]
	if !ok {
		o.model, o.err = r.Open(context.Background(), e)
		if r.shared.opened == nil {
			r.shared.opened = map[string]opened{}
		}
		r.shared.opened[id] = o
	}
	return o.model, o.err
}

// CloseShared closes the models r.OpenShared opened.
func (r *Registry) CloseShared() {
	r.shared.mu.Lock()
	defer r.shared.mu.Unlock()
	for id, o := range r.shared.opened {
		if o.model != nil {
			o.model.Close()
		}
		delete(r.shared.opened, id)
	}
}

// SharedKeys lists the keys of the models OpenShared holds (opened or
// failed) from the catalogs in folder dir, sorted.
func SharedKeys(dir string) []string { return registry.SharedKeys(dir) }

// SharedKeys lists the keys r.OpenShared holds from folder dir.
func (r *Registry) SharedKeys(dir string) []string {
	r.shared.mu.Lock()
	defer r.shared.mu.Unlock()
	var out []string
	for id := range r.shared.opened {
		if d, key, _ := strings.Cut(id, "\x00"); d == dir {
			out = append(out, key)
		}
	}
	sort.Strings(out)
	return out
}

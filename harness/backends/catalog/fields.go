package catalog

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/feather-eval/feather/internal/jsonpos"
)

// basic are the fields every backend accepts; the other common fields
// (max_tokens, sampling) only where the backend lists them as Defaults.
var basic = []string{"backend", "enabled", "name", "description"}

// fieldSet is every field a catalog entry may have, common or a
// registered backend's, gathered into one struct type so that an entry is
// decoded strictly, and worded, exactly as one flat object.
type fieldSet struct {
	all     reflect.Type               // one field per catalog field
	index   map[string]int             // catalog name -> field of all
	names   []string                   // catalog names, sorted
	allowed map[string]map[string]bool // backend -> the names it accepts
}

func newFieldSet(backends map[string]Backend) *fieldSet {
	fs := &fieldSet{index: map[string]int{}, allowed: map[string]map[string]bool{}}
	var fields []reflect.StructField
	var owners []string
	add := func(name string, t reflect.Type, owner string) {
		if i, ok := fs.index[name]; ok {
			if fields[i].Type != t {
				panic(fmt.Sprintf("catalog: field %q is %s in backend %s but %s in %s", name, t, owner, fields[i].Type, owners[i]))
			}
			return
		}
		fs.index[name] = len(fields)
		fs.names = append(fs.names, name)
		owners = append(owners, owner)
		fields = append(fields, reflect.StructField{Name: fmt.Sprintf("F%d", len(fields)), Type: t, Tag: reflect.StructTag(fmt.Sprintf("json:%q", name))})
	}
	for _, f := range taggedFields(reflect.TypeOf(Entry{})) {
		add(jsonName(f), f.Type, "catalog")
	}
	for _, name := range slices.Sorted(maps.Keys(backends)) {
		b := backends[name]
		ok := map[string]bool{}
		for _, n := range append(append([]string(nil), basic...), b.Defaults...) {
			ok[n] = true
		}
		for _, f := range taggedFields(settingsType(b)) {
			add(jsonName(f), f.Type, name)
			ok[jsonName(f)] = true
		}
		fs.allowed[name] = ok
	}
	sort.Strings(fs.names)
	fs.all = reflect.StructOf(fields)
	return fs
}

// taggedFields are t's fields that JSON reads, each of which must carry
// its catalog name as a json tag.
func taggedFields(t reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || jsonName(f) == "" && f.Tag.Get("json") == "-" {
			continue
		}
		if jsonName(f) == "" {
			panic(fmt.Sprintf("catalog: %s.%s has no json tag naming its catalog field", t, f.Name))
		}
		out = append(out, f)
	}
	return out
}

// lookup finds the field a member key decodes into, matching names as
// encoding/json does: exactly, else ignoring case.
func (fs *fieldSet) lookup(key string) (string, bool) {
	if _, ok := fs.index[key]; ok {
		return key, true
	}
	for _, n := range fs.names {
		if strings.EqualFold(n, key) {
			return n, true
		}
	}
	return "", false
}

// foreign lists, in the entry's order, the fields set to a non-empty value
// that backend does not use: they would otherwise be silently ignored.
// decoded is the entry decoded into fs.all.
func (fs *fieldSet) foreign(entry []byte, decoded reflect.Value, backend string) []string {
	members, _ := jsonpos.Members("", entry) // the entry was decoded already
	var bad []string
	seen := map[string]bool{}
	for _, m := range members {
		name, ok := fs.lookup(m.Key)
		if !ok || seen[name] || fs.allowed[backend][name] || decoded.Field(fs.index[name]).IsZero() {
			continue
		}
		seen[name] = true
		bad = append(bad, fmt.Sprintf("%q", name))
	}
	return bad
}

func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	name, _, _ := strings.Cut(tag, ",")
	if name == "-" {
		return ""
	}
	return name
}

package catalog

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/feather-eval/feather/harness/lm"
)

// TestCacheIDClassifiesEveryField: each common entry field either changes
// the response cache's identity of a model or, for a stated reason (see
// respcache.ModelID), does not; a new field fails here until it is
// classified. Backend settings classify their own fields in Identity.
func TestCacheIDClassifiesEveryField(t *testing.T) {
	included := []string{"Key", "Backend", "MaxTokens", "Sampling", "Settings"}
	excluded := []string{"Dir", "Enabled", "Name", "Description"} // the folder, the switch, labels
	var fields []string
	for _, f := range reflect.VisibleFields(reflect.TypeOf(Entry{})) {
		fields = append(fields, f.Name)
	}
	assert.ElementsMatch(t, fields, append(append([]string(nil), included...), excluded...))

	base := Entry{Key: "k", Backend: "scripted", Settings: &scripted{Answer: "B"}}
	changed := func(field string) Entry {
		e := base
		v := reflect.ValueOf(&e).Elem().FieldByName(field)
		switch v.Kind() {
		case reflect.String:
			v.SetString("other")
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Int:
			v.SetInt(7)
		case reflect.Pointer:
			temp := 0.5
			v.Set(reflect.ValueOf(&lm.Sampling{Temperature: &temp}))
		case reflect.Interface:
			v.Set(reflect.ValueOf(&scripted{Answer: "C"}))
		}
		return e
	}
	for _, f := range included {
		assert.NotEqual(t, base.CacheID(), changed(f).CacheID(), "%s changes the identity", f)
	}
	for _, f := range excluded {
		assert.Equal(t, base.CacheID(), changed(f).CacheID(), "%s leaves the identity", f)
	}
}

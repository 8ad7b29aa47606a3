package catalog

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/feather-eval/feather/harness/lm/respcache"
)

func fieldNames(v any) []string {
	t := reflect.TypeOf(v)
	out := make([]string, t.NumField())
	for i := range out {
		out[i] = t.Field(i).Name
	}
	return out
}

// Every common catalog entry field is either part of the model identity
// or left out for a stated reason (see respcache.ModelID); a new field fails here
// until it is classified. Backend settings classify their own fields in
// their Identity.
func TestEveryEntryFieldIsClassified(t *testing.T) {
	included := map[string]string{
		"Key": "Key", "Backend": "Backend", "MaxTokens": "MaxTokens", "Sampling": "Sampling", "Settings": "Settings",
	}
	excluded := []string{"Dir", "Enabled", "Name", "Description"}
	var classified []string
	for f := range included {
		classified = append(classified, f)
	}
	classified = append(classified, excluded...)
	assert.ElementsMatch(t, fieldNames(Entry{}), classified)

	var idFields []string
	for _, f := range included {
		idFields = append(idFields, f)
	}
	assert.ElementsMatch(t, fieldNames(respcache.ModelID{}), idFields)
}

package respcache

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/feather-eval/feather/harness/lm"
)

func fieldNames(v any) []string {
	t := reflect.TypeOf(v)
	out := make([]string, t.NumField())
	for i := range out {
		out[i] = t.Field(i).Name
	}
	return out
}

// A new result field must be taught to the codec before results carrying
// it can be cached.
func TestResultFieldsAreAllHandled(t *testing.T) {
	assert.Equal(t, resultFields, fieldNames(lm.GenerateResult{}))
}

// The key holds the whole request through encoding/json; a field hidden
// from JSON would be silently left out of the key.
func TestRequestFieldsAllReachTheKey(t *testing.T) {
	assert.Equal(t, []string{"Messages", "Prompt", "Tools", "MaxNewTokens", "Sampling", "ResponseFormat"}, fieldNames(lm.GenerateRequest{}))
	for _, typ := range []reflect.Type{reflect.TypeOf(lm.GenerateRequest{}), reflect.TypeOf(lm.Message{}), reflect.TypeOf(lm.Tool{}), reflect.TypeOf(lm.Sampling{})} {
		for i := 0; i < typ.NumField(); i++ {
			assert.NotEqual(t, "-", typ.Field(i).Tag.Get("json"), "%s.%s is hidden from JSON", typ.Name(), typ.Field(i).Name)
		}
	}
}

func TestModelDir(t *testing.T) {
	long := ""
	for range 30 {
		long += "abcd"
	}
	for _, tc := range []struct{ key, want string }{
		{"gpt-5.5", "gpt-5.5"},
		{"smoke_1", "smoke_1"},
		{"..", "_.."},
		{".", "_."},
		{".hidden", "_.hidden"},
		{"", "_"},
		{"a/b\\c", "a_b_c"},
		{"café", "caf_"},
		{long, long[:100]},
	} {
		assert.Equal(t, tc.want, modelDir(tc.key), "key %q", tc.key)
	}
}

package pyjson

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The expected values are what Python 3 prints for json.dumps(x) and
// json.dumps(x, ensure_ascii=False).
func TestFloat(t *testing.T) {
	for _, tt := range []struct {
		in   float64
		want string
	}{
		{100, "100.0"}, {0.5, "0.5"}, {0.0001, "0.0001"}, {1e-5, "1e-05"},
		{1e16, "1e+16"}, {1.5e300, "1.5e+300"}, {math.Copysign(0, -1), "-0.0"},
		{math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"}, {math.NaN(), "NaN"},
	} {
		assert.Equal(t, tt.want, Float(tt.in), "%v", tt.in)
	}
}

func TestWriteString(t *testing.T) {
	const in = "a\"b\\\n\t\x01\u2028é😀"
	assert.Equal(t, "\"a\\\"b\\\\\\n\\t\\u0001\u2028é😀\"", Quote(in))
	var b strings.Builder
	WriteString(&b, in, true)
	assert.Equal(t, `"a\"b\\\n\t\u0001\u2028\u00e9\ud83d\ude00"`, b.String())
}

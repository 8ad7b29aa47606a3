package jsonspan

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestClosingBrace(t *testing.T) {
	for _, tc := range []struct {
		s     string
		start int
		want  int
	}{
		{`{"a": 1}`, 0, 7},
		{`x {"a": {"b": 2}} y`, 2, 16},
		{`{"s": "a } brace"}`, 0, 17},
		{`{"s": "an \" escaped quote }"}`, 0, 29},
		{`{"a": {"b": 2}`, 0, -1},
		{`prefix {"a": 1} {"b": 2}`, 16, 23},
	} {
		assert.Equal(t, tc.want, ClosingBrace(tc.s, tc.start), tc.s)
	}
}

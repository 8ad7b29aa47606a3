package markdown_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/feather-eval/feather/internal/markdown"
)

func TestCell(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain text", "plain text"},
		{"a|b", `a\|b`},
		{"||", `\|\|`},
		{"two\nlines", "two lines"},
		{"a|b\nc", `a\|b c`},
		{`already \| escaped`, `already \\| escaped`},
		{"crlf\r\n", "crlf\r "},
	} {
		assert.Equal(t, tc.want, markdown.Cell(tc.in), "%q", tc.in)
	}
}

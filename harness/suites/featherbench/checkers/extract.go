package checkers

import (
	"encoding/json"
	"strings"

	"github.com/feather-eval/feather/internal/jsonspan"
)

// Block is one fenced code block of a Markdown response.
type Block struct {
	Lang string // the info string's first word, lower-cased ("" when none)
	Body string
}

// Blocks returns the fenced code blocks of text as CommonMark reads them:
// a line of three or more backticks or tildes (any indentation) opens a
// block, a line of at least as many of the same character closes it, and a
// block left open runs to the end of the text (a truncated answer).
func Blocks(text string) []Block {
	var out []Block
	lines := strings.SplitAfter(text, "\n")
	for i := 0; i < len(lines); i++ {
		ch, n, info, ok := fence(lines[i])
		if !ok {
			continue
		}
		lang := ""
		if f := strings.Fields(info); len(f) > 0 {
			lang = strings.ToLower(f[0])
		}
		var body strings.Builder
		j := i + 1
		for ; j < len(lines); j++ {
			if c, m, rest, ok := fence(lines[j]); ok && c == ch && m >= n && strings.TrimSpace(rest) == "" {
				break
			}
			body.WriteString(lines[j])
		}
		out = append(out, Block{Lang: lang, Body: body.String()})
		i = j
	}
	return out
}

// fence parses a fence line: its character, length and info string.
func fence(line string) (ch byte, n int, info string, ok bool) {
	s := strings.TrimLeft(strings.TrimRight(line, "\r\n"), " \t")
	if len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return 0, 0, "", false
	}
	ch = s[0]
	for n < len(s) && s[n] == ch {
		n++
	}
	if n < 3 || (ch == '`' && strings.IndexByte(s[n:], '`') >= 0) {
		return 0, 0, "", false // inline code such as ```x``` is not a fence
	}
	return ch, n, s[n:], true
}

func lastWithLang(blocks []Block, langs ...string) (Block, bool) {
	for i := len(blocks) - 1; i >= 0; i-- {
		for _, l := range langs {
			if blocks[i].Lang == l {
				return blocks[i], true
			}
		}
	}
	return Block{}, false
}

// PythonSolution is the code python_tests runs: the last ```python block
// (also ```py and ```python3), else the largest fenced block of any kind.
func PythonSolution(text string) (string, bool) {
	blocks := Blocks(text)
	if b, ok := lastWithLang(blocks, "python", "py", "python3"); ok {
		return b.Body, true
	}
	best := -1
	for i, b := range blocks {
		if best < 0 || len(b.Body) > len(blocks[best].Body) {
			best = i
		}
	}
	if best < 0 {
		return "", false
	}
	return blocks[best].Body, true
}

// SQLQuery is the query sql_result runs: the last ```sql block, else the
// last fenced block without a language.
func SQLQuery(text string) (string, bool) {
	blocks := Blocks(text)
	if b, ok := lastWithLang(blocks, "sql", "sqlite"); ok {
		return b.Body, true
	}
	if b, ok := lastWithLang(blocks, ""); ok {
		return b.Body, true
	}
	return "", false
}

// JSONDocument is the JSON json_schema validates: the last ```json block,
// else the last fenced block whose body is JSON, else the first outermost
// {...} in the text that parses. where says which, for the detail.
func JSONDocument(text string) (doc, where string, ok bool) {
	blocks := Blocks(text)
	if b, ok := lastWithLang(blocks, "json", "jsonc"); ok {
		return b.Body, "the last ```json block", true
	}
	for i := len(blocks) - 1; i >= 0; i-- {
		if json.Valid([]byte(blocks[i].Body)) {
			return blocks[i].Body, "the last fenced block holding JSON", true
		}
	}
	for start := strings.IndexByte(text, '{'); start >= 0; {
		end := jsonspan.ClosingBrace(text, start)
		if end < 0 {
			break
		}
		if json.Valid([]byte(text[start : end+1])) {
			return text[start : end+1], "the first {...} object in the text", true
		}
		next := strings.IndexByte(text[end+1:], '{')
		if next < 0 {
			break
		}
		start = end + 1 + next
	}
	return "", "", false
}

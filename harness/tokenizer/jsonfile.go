package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// readJSON decodes a whole file. Syntax and type errors name the file and
// the line:column they were found at.
func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return decodeJSON(filepath.Base(path), data, v)
}

func decodeJSON(name string, data []byte, v any) error {
	err := json.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line, col := lineCol(data, syn.Offset)
		return fmt.Errorf("%s:%d:%d: invalid JSON: %v", name, line, col, syn)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		line, col := lineCol(data, typ.Offset)
		field := typ.Field
		if field == "" {
			field = "(top level)"
		}
		return fmt.Errorf("%s:%d:%d: %s: want %s, got JSON %s", name, line, col, field, typ.Type, typ.Value)
	}
	return fmt.Errorf("%s: %v", name, err)
}

// lineCol turns the decoder's offset (just past the offending byte) into
// the 1-based line and column of that byte.
func lineCol(data []byte, offset int64) (int, int) {
	pos := int(min(max(offset-1, 0), int64(len(data))))
	before := data[:pos]
	line := bytes.Count(before, []byte("\n")) + 1
	col := pos - bytes.LastIndexByte(before, '\n')
	return line, col
}

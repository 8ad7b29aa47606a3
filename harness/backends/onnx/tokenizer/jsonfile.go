package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/feather-eval/feather/internal/jsonpos"
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
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &syn):
		return jsonpos.SyntaxError(name, data, err)
	case errors.As(err, &typ):
		// The offset is just past the value's opening bracket or last byte.
		line, col := jsonpos.Position(data, typ.Offset-1)
		field := typ.Field
		if field == "" {
			field = "(top level)"
		}
		return fmt.Errorf("%s:%d:%d: %s: want %s, got JSON %s", name, line, col, field, typ.Type, typ.Value)
	}
	return fmt.Errorf("%s: %v", name, err)
}

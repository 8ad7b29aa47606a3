package featherbench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/feather-eval/feather/internal/pyjson"
)

// writePythonJSON writes v (as decoded with UseNumber) the way Python's
// json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
// writes what json.loads read: keys sorted by code point; strings with only
// '"', '\\' and control characters escaped (U+2028 and U+2029 stay as they
// are, which encoding/json would escape); integers as written (-0 is 0);
// other numbers as Python floats print (0.50 is 0.5, 1e2 is 100.0, 1e16 is
// 1e+16, 1e400 is Infinity).
func writePythonJSON(b *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case string:
		b.WriteString(pyjson.Quote(v))
	case json.Number:
		s, err := pythonNumber(string(v))
		if err != nil {
			return err
		}
		b.WriteString(s)
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writePythonJSON(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys) // UTF-8 byte order is code point order
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(pyjson.Quote(k))
			b.WriteByte(':')
			if err := writePythonJSON(b, v[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("task hash: unexpected JSON value %T", v)
	}
	return nil
}

// pythonNumber is how Python prints a JSON number it read: an int as
// written, a float by repr.
func pythonNumber(s string) (string, error) {
	if !strings.ContainsAny(s, ".eE") {
		if strings.TrimLeft(s, "-0") == "" {
			return "0", nil
		}
		return s, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return "", fmt.Errorf("task hash: number %s: %w", s, err)
	}
	return pyjson.Float(f), nil
}

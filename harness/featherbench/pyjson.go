package featherbench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
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
		writePythonString(b, v)
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
			writePythonString(b, k)
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

func writePythonString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
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
	switch {
	case math.IsInf(f, 1):
		return "Infinity", nil
	case math.IsInf(f, -1):
		return "-Infinity", nil
	}
	// repr: fixed notation when the decimal exponent is -5 < exp < 16,
	// else scientific with a sign and at least two exponent digits; both
	// with the shortest digits that read back as f.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return e, nil
	}
	fixed := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(fixed, ".") {
		fixed += ".0"
	}
	return fixed, nil
}

package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// noneType marks an explicit None (JSON null, or an argument transformers
// passes as None such as tools=None). A typed nil pointer is falsy and
// renders like nil in gonja, yet stays distinguishable from a missing
// variable, so `is defined` can answer as Jinja does.
type noneType struct{}

var none = (*noneType)(nil)

// keyRank orders the keys of Go maps, which carry no order of their own:
// the conventional order of OpenAI messages, tool definitions and JSON
// Schema first, then the rest alphabetically. Callers who need an exact
// order pass json.RawMessage, which keeps the order written.
var keyRank = map[string]int{}

func init() {
	for i, k := range []string{
		"role", "content", "id", "type", "function", "name", "description",
		"parameters", "arguments", "properties", "items", "required",
	} {
		keyRank[k] = i + 1
	}
}

func sortKeys(keys []string) {
	sort.Slice(keys, func(i, j int) bool {
		ri, rj := keyRank[keys[i]], keyRank[keys[j]]
		switch {
		case ri != 0 && rj != 0:
			return ri < rj
		case ri != 0 || rj != 0:
			return ri != 0
		default:
			return keys[i] < keys[j]
		}
	})
}

// toTemplate converts a Go value into what templates see: objects become
// ordered dicts, integral numbers ints, null None. path names the value in
// errors ("messages[2].content").
func toTemplate(x any, path string) (any, error) {
	switch v := x.(type) {
	case nil:
		return none, nil
	case string, bool, int:
		return v, nil
	case json.RawMessage:
		return decodeJSON(v, path)
	case json.Number:
		return jsonNumber(string(v), path)
	case float64:
		return floatValue(v), nil
	case float32:
		return floatValue(float64(v)), nil
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sortKeys(keys)
		d := exec.NewDict()
		for _, k := range keys {
			val, err := toTemplate(v[k], path+"."+k)
			if err != nil {
				return nil, err
			}
			d.Pairs = append(d.Pairs, &exec.Pair{Key: exec.AsValue(k), Value: exec.AsValue(val)})
		}
		return dictOrEmpty(d), nil
	case []any:
		out := make(pyList, len(v))
		for i, e := range v {
			val, err := toTemplate(e, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out[i] = val
		}
		return out, nil
	}
	rv := reflect.ValueOf(x)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return int(rv.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int(rv.Uint()), nil
	case reflect.String:
		return rv.String(), nil
	case reflect.Bool:
		return rv.Bool(), nil
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return none, nil
		}
		return toTemplate(rv.Elem().Interface(), path)
	case reflect.Slice, reflect.Array:
		out := make(pyList, rv.Len())
		for i := range out {
			val, err := toTemplate(rv.Index(i).Interface(), fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out[i] = val
		}
		return out, nil
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			break
		}
		m := make(map[string]any, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			m[it.Key().String()] = it.Value().Interface()
		}
		return toTemplate(m, path)
	}
	return nil, fmt.Errorf("%s: unsupported value of type %T; use strings, numbers, booleans, nil, maps, slices or json.RawMessage", path, x)
}

// dictOrEmpty gives an empty object as an empty Go map: gonja counts every
// ordered dict as true, while Python's {} is false.
func dictOrEmpty(d *exec.Dict) any {
	if len(d.Pairs) == 0 {
		return map[string]any{}
	}
	return d
}

// floatValue turns integral floats (what encoding/json makes of every JSON
// number) back into ints, as Python's json.loads would have read them.
func floatValue(f float64) any {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int(f)
	}
	return f
}

func jsonNumber(s, path string) (any, error) {
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.Atoi(s); err == nil {
			return i, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("%s: number %s: %v", path, s, err)
	}
	return f, nil
}

// decodeJSON reads one JSON value keeping object key order.
func decodeJSON(data []byte, path string) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, path)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: unexpected data after the JSON value", path)
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, path string) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("%s: invalid JSON: %v", path, err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			d := exec.NewDict()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("%s: invalid JSON: %v", path, err)
				}
				key := kt.(string)
				val, err := decodeValue(dec, path+"."+key)
				if err != nil {
					return nil, err
				}
				d.Pairs = append(d.Pairs, &exec.Pair{Key: exec.AsValue(key), Value: exec.AsValue(val)})
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("%s: invalid JSON: %v", path, err)
			}
			return dictOrEmpty(d), nil
		case '[':
			out := pyList{}
			for dec.More() {
				val, err := decodeValue(dec, fmt.Sprintf("%s[%d]", path, len(out)))
				if err != nil {
					return nil, err
				}
				out = append(out, val)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("%s: invalid JSON: %v", path, err)
			}
			return out, nil
		}
	case json.Number:
		return jsonNumber(string(t), path)
	case nil:
		return none, nil
	}
	return tok, nil // string or bool
}

package chat

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"

	"github.com/feather-eval/feather/internal/pyjson"
)

// dumpOptions are json.dumps' arguments as transformers' tojson passes
// them: ensure_ascii defaults to False there.
type dumpOptions struct {
	ensureASCII     bool
	indented        bool
	indent          string
	customSeps      bool
	itemSep, keySep string
	sortKeys        bool
}

// dumpJSON writes v exactly as Python's json.dumps would.
func dumpJSON(v *exec.Value, opt dumpOptions) (string, error) {
	if !opt.customSeps {
		opt.itemSep, opt.keySep = ", ", ": "
		if opt.indented {
			opt.itemSep = ","
		}
	}
	var b strings.Builder
	if err := dump(&b, v, opt, 0); err != nil {
		return "", err
	}
	return b.String(), nil
}

func dump(b *strings.Builder, v *exec.Value, opt dumpOptions, depth int) error {
	if v.IsError() {
		return v
	}
	switch {
	case v.IsNil():
		b.WriteString("null")
	case v.IsBool():
		b.WriteString(strconv.FormatBool(v.Bool()))
	case v.IsInteger():
		b.WriteString(strconv.Itoa(v.Integer()))
	case v.IsFloat():
		b.WriteString(pyjson.Float(v.Float()))
	case v.IsString():
		pyjson.WriteString(b, v.String(), opt.ensureASCII)
	case v.IsDict():
		keys, vals := mappingPairs(v)
		if opt.sortKeys {
			idx := make([]int, len(keys))
			for i := range idx {
				idx[i] = i
			}
			sort.SliceStable(idx, func(i, j int) bool { return keys[idx[i]] < keys[idx[j]] })
			k2, v2 := make([]string, len(keys)), make([]*exec.Value, len(keys))
			for i, j := range idx {
				k2[i], v2[i] = keys[j], vals[j]
			}
			keys, vals = k2, v2
		}
		if len(keys) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(opt.itemSep)
			}
			newline(b, opt, depth+1)
			pyjson.WriteString(b, k, opt.ensureASCII)
			b.WriteString(opt.keySep)
			if err := dump(b, vals[i], opt, depth+1); err != nil {
				return err
			}
		}
		newline(b, opt, depth)
		b.WriteByte('}')
	case v.IsList():
		n := v.Len()
		if n == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteString(opt.itemSep)
			}
			newline(b, opt, depth+1)
			if err := dump(b, v.Index(i), opt, depth+1); err != nil {
				return err
			}
		}
		newline(b, opt, depth)
		b.WriteByte(']')
	default:
		return fmt.Errorf("tojson: a value of Go type %T is not JSON serializable", v.Interface())
	}
	return nil
}

func newline(b *strings.Builder, opt dumpOptions, depth int) {
	if opt.indented {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(opt.indent, depth))
	}
}

// mappingPairs lists a mapping's keys and values: ordered dicts in their
// order, Go maps (which have none) sorted.
func mappingPairs(v *exec.Value) ([]string, []*exec.Value) {
	var keys []string
	var vals []*exec.Value
	if m, ok := v.Interface().(map[string]any); ok {
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			vals = append(vals, exec.ToValue(m[k]))
		}
		return keys, vals
	}
	if v.Val.Kind() == reflect.Map || (v.Val.Kind() == reflect.Pointer && v.Val.Elem().Kind() == reflect.Map) {
		pairs := map[string]*exec.Value{}
		v.Iterate(func(_, _ int, k, val *exec.Value) bool {
			keys = append(keys, k.String())
			pairs[k.String()] = val
			return true
		}, func() {})
		sort.Strings(keys)
		for _, k := range keys {
			vals = append(vals, pairs[k])
		}
		return keys, vals
	}
	v.Iterate(func(_, _ int, k, val *exec.Value) bool {
		keys = append(keys, k.String())
		vals = append(vals, val)
		return true
	}, func() {})
	return keys, vals
}

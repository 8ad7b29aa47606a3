package chat

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// pyList is a list with Python's indexing: messages[-1] is the last item
// even when it is the only one (gonja's own lists miss that case).
type pyList []any

func (l pyList) GetItem(key any) (*exec.Value, bool) {
	i, ok := key.(int)
	if !ok {
		return exec.AsValue(nil), false
	}
	if i < 0 {
		i += len(l)
	}
	if i < 0 || i >= len(l) {
		return exec.AsValue(nil), false
	}
	return exec.ToValue(l[i]), true
}

// dictItems lists a mapping's pairs as [key, value] lists, in order.
func dictItems(d *exec.Value) pyList {
	out := pyList{}
	d.Iterate(func(_, _ int, k, v *exec.Value) bool {
		out = append(out, pyList{k, v})
		return true
	}, func() {})
	return out
}

// isPySpace is Python's str.isspace for one character: what strip() and
// split() remove when given no characters.
func isPySpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, ' ', 0x85, 0xa0,
		0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// pyStrip is str.strip/lstrip/rstrip; chars nil means whitespace.
func pyStrip(s string, chars *string, left, right bool) string {
	cut := isPySpace
	if chars != nil {
		set := *chars
		cut = func(r rune) bool { return strings.ContainsRune(set, r) }
	}
	if left {
		s = strings.TrimLeftFunc(s, cut)
	}
	if right {
		s = strings.TrimRightFunc(s, cut)
	}
	return s
}

// pySplit is str.split (reverse: str.rsplit); sep nil splits on runs of
// whitespace and drops empty parts; maxsplit < 0 means no limit.
func pySplit(s string, sep *string, maxsplit int, reverse bool) (pyList, error) {
	var parts []string
	switch {
	case sep != nil && *sep == "":
		return nil, errors.New("empty separator")
	case sep != nil && !reverse && maxsplit < 0:
		parts = strings.Split(s, *sep)
	case sep != nil && !reverse:
		parts = strings.SplitN(s, *sep, maxsplit+1)
	case sep != nil:
		parts = rsplitN(s, *sep, maxsplit)
	default:
		parts = whitespaceSplit(s, maxsplit, reverse)
	}
	out := make(pyList, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out, nil
}

func rsplitN(s, sep string, maxsplit int) []string {
	if maxsplit < 0 {
		return strings.Split(s, sep)
	}
	var rev []string
	for range maxsplit {
		i := strings.LastIndex(s, sep)
		if i < 0 {
			break
		}
		rev = append(rev, s[i+len(sep):])
		s = s[:i]
	}
	rev = append(rev, s)
	out := make([]string, len(rev))
	for i, p := range rev {
		out[len(rev)-1-i] = p
	}
	return out
}

func whitespaceSplit(s string, maxsplit int, reverse bool) []string {
	if !reverse {
		var out []string
		for {
			s = strings.TrimLeftFunc(s, isPySpace)
			if s == "" {
				return out
			}
			if maxsplit >= 0 && len(out) == maxsplit {
				return append(out, s) // the rest keeps its trailing whitespace
			}
			end := strings.IndexFunc(s, isPySpace)
			if end < 0 {
				return append(out, s)
			}
			out = append(out, s[:end])
			s = s[end:]
		}
	}
	var rev []string
	for {
		s = strings.TrimRightFunc(s, isPySpace)
		if s == "" {
			break
		}
		if maxsplit >= 0 && len(rev) == maxsplit {
			rev = append(rev, s)
			break
		}
		start := strings.LastIndexFunc(s, isPySpace)
		if start < 0 {
			rev = append(rev, s)
			break
		}
		_, size := utf8.DecodeRuneInString(s[start:])
		rev = append(rev, s[start+size:])
		s = s[:start]
	}
	out := make([]string, len(rev))
	for i, p := range rev {
		out[len(rev)-1-i] = p
	}
	return out
}

// optString reads an optional string argument; None and absent are nil.
func optString(v *exec.Value) *string {
	if v == nil || v.IsNil() {
		return nil
	}
	s := v.String()
	return &s
}

func optInt(v *exec.Value, def int) (int, error) {
	if v == nil || v.IsNil() {
		return def, nil
	}
	if !v.IsInteger() {
		return 0, fmt.Errorf("expected an integer, got %s", v.String())
	}
	return v.Integer(), nil
}

// affixes reads startswith/endswith's argument: a string or a tuple/list
// of strings.
func affixes(v *exec.Value) ([]string, error) {
	if v == nil {
		return nil, errors.New("missing argument")
	}
	if v.IsString() {
		return []string{v.String()}, nil
	}
	if v.IsList() {
		var out []string
		var bad error
		v.Iterate(func(_, _ int, item, _ *exec.Value) bool {
			if !item.IsString() {
				bad = fmt.Errorf("tuple items must be strings, not %s", item.String())
				return false
			}
			out = append(out, item.String())
			return true
		}, func() {})
		return out, bad
	}
	return nil, fmt.Errorf("argument must be a string or a tuple of strings, not %s", v.String())
}

// sliceRunes is s[start:end] by code points with Python's clamping.
func sliceRunes(s string, start, end *exec.Value) (string, error) {
	r := []rune(s)
	n := len(r)
	lo, err := optInt(start, 0)
	if err != nil {
		return "", err
	}
	hi, err := optInt(end, n)
	if err != nil {
		return "", err
	}
	clamp := func(i int) int {
		if i < 0 {
			i += n
		}
		return max(0, min(i, n))
	}
	lo, hi = clamp(lo), clamp(hi)
	if lo > hi {
		return "", nil
	}
	return string(r[lo:hi]), nil
}

type strMethod = exec.Method[string]

func invalid(method string, err error) error {
	return exec.ErrInvalidCall(fmt.Errorf("%s: %v", method, err))
}

// strMethods are the str methods chat templates lean on, with Python's
// exact semantics (gonja's differ in defaults and whitespace).
var strMethods = map[string]strMethod{
	"strip":  stripMethod("strip", true, true),
	"lstrip": stripMethod("lstrip", true, false),
	"rstrip": stripMethod("rstrip", false, true),
	"split":  splitMethod("split", false),
	"rsplit": splitMethod("rsplit", true),
	"startswith": affixMethod("startswith", func(s, a string) bool {
		return strings.HasPrefix(s, a)
	}),
	"endswith": affixMethod("endswith", func(s, a string) bool {
		return strings.HasSuffix(s, a)
	}),
	"replace": func(self string, _ *exec.Value, params *exec.VarArgs) (any, error) {
		args, err := bindArgs("replace", params, "old", "new", "count")
		if err != nil {
			return nil, exec.ErrInvalidCall(err)
		}
		if args["old"] == nil || args["new"] == nil {
			return nil, invalid("replace", errors.New("takes the arguments old and new"))
		}
		count, err := optInt(args["count"], -1)
		if err != nil {
			return nil, invalid("replace", err)
		}
		return strings.Replace(self, args["old"].String(), args["new"].String(), count), nil
	},
}

func stripMethod(name string, left, right bool) strMethod {
	return func(self string, _ *exec.Value, params *exec.VarArgs) (any, error) {
		args, err := bindArgs(name, params, "chars")
		if err != nil {
			return nil, exec.ErrInvalidCall(err)
		}
		return pyStrip(self, optString(args["chars"]), left, right), nil
	}
}

func splitMethod(name string, reverse bool) strMethod {
	return func(self string, _ *exec.Value, params *exec.VarArgs) (any, error) {
		args, err := bindArgs(name, params, "sep", "maxsplit")
		if err != nil {
			return nil, exec.ErrInvalidCall(err)
		}
		maxsplit, err := optInt(args["maxsplit"], -1)
		if err != nil {
			return nil, invalid(name, err)
		}
		parts, err := pySplit(self, optString(args["sep"]), maxsplit, reverse)
		if err != nil {
			return nil, invalid(name, err)
		}
		return parts, nil
	}
}

func affixMethod(name string, match func(s, affix string) bool) strMethod {
	return func(self string, _ *exec.Value, params *exec.VarArgs) (any, error) {
		args, err := bindArgs(name, params, "affix", "start", "end")
		if err != nil {
			return nil, exec.ErrInvalidCall(err)
		}
		list, err := affixes(args["affix"])
		if err != nil {
			return nil, invalid(name, err)
		}
		s, err := sliceRunes(self, args["start"], args["end"])
		if err != nil {
			return nil, invalid(name, err)
		}
		for _, a := range list {
			if match(s, a) {
				return true, nil
			}
		}
		return false, nil
	}
}

type dictMethod = exec.Method[map[string]any]

// dictMethods read the mapping itself (selfValue), not gonja's unordered
// copy, so keys come out in insertion order as in Python.
var dictMethods = map[string]dictMethod{
	"items": func(_ map[string]any, self *exec.Value, params *exec.VarArgs) (any, error) {
		if len(params.Args)+len(params.KwArgs) > 0 {
			return nil, invalid("items", errors.New("takes no arguments"))
		}
		return dictItems(self), nil
	},
	"keys": func(_ map[string]any, self *exec.Value, params *exec.VarArgs) (any, error) {
		if len(params.Args)+len(params.KwArgs) > 0 {
			return nil, invalid("keys", errors.New("takes no arguments"))
		}
		out := pyList{}
		for _, kv := range dictItems(self) {
			out = append(out, kv.(pyList)[0])
		}
		return out, nil
	},
	"values": func(_ map[string]any, self *exec.Value, params *exec.VarArgs) (any, error) {
		if len(params.Args)+len(params.KwArgs) > 0 {
			return nil, invalid("values", errors.New("takes no arguments"))
		}
		out := pyList{}
		for _, kv := range dictItems(self) {
			out = append(out, kv.(pyList)[1])
		}
		return out, nil
	},
	"get": func(_ map[string]any, self *exec.Value, params *exec.VarArgs) (any, error) {
		args, err := bindArgs("get", params, "key", "default")
		if err != nil {
			return nil, exec.ErrInvalidCall(err)
		}
		if args["key"] == nil {
			return nil, invalid("get", errors.New("takes a key"))
		}
		// Methods return plain values: a *exec.Value result would be
		// wrapped again and mistaken for an error.
		if v, ok := self.GetItem(args["key"].Interface()); ok {
			return v.Interface(), nil
		}
		if d := args["default"]; d != nil {
			return d.Interface(), nil
		}
		return none, nil
	},
}

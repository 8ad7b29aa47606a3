package respcache

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"time"

	"github.com/feather-eval/feather/harness/lm"
)

// entryFile is one entry on disk.
type entryFile struct {
	Schema int             `json:"schema"`
	Key    json.RawMessage `json:"key"`
	Result storedResult    `json:"result"`
}

// storedResult is lm.GenerateResult in a form that reads back exactly:
// durations as nanoseconds, nil and empty lists kept apart (no omitempty),
// and the free-form maps (sampling sent, tool arguments) as typed values,
// so an int stays an int and a float64 1 stays a float64 (plain JSON
// would turn both into float64 and round seeds above 2^53).
type storedResult struct {
	Text            string          `json:"text"`
	ToolCalls       []storedCall    `json:"tool_calls"`
	PromptSent      string          `json:"prompt_sent"`
	SamplingSent    json.RawMessage `json:"sampling_sent"`
	StopReason      string          `json:"stop_reason"`
	RefusalCategory string          `json:"refusal_category"`
	InputTokens     int             `json:"input_tokens"`
	OutputTokens    int             `json:"output_tokens"`
	CostUSD         *float64        `json:"cost_usd"`
	TTFTNs          int64           `json:"ttft_ns"`
	WallNs          int64           `json:"wall_ns"`
	Retries         int             `json:"retries"`
}

type storedCall struct {
	Name    string          `json:"name"`
	Args    json.RawMessage `json:"args"`
	RawArgs string          `json:"raw_args"`
}

// encodeResult converts res for storage; a value of a type the typed
// encoding does not know is an error naming its place.
func encodeResult(res lm.GenerateResult) (storedResult, error) {
	s := storedResult{
		Text: res.Text, PromptSent: res.PromptSent, StopReason: res.StopReason,
		RefusalCategory: res.RefusalCategory, InputTokens: res.InputTokens,
		OutputTokens: res.OutputTokens, TTFTNs: int64(res.TTFT), WallNs: int64(res.Wall),
		Retries: res.Retries,
	}
	if res.CostUSD != nil {
		c := *res.CostUSD
		s.CostUSD = &c
	}
	var err error
	if s.SamplingSent, err = typedJSON(res.SamplingSent, "sampling_sent"); err != nil {
		return storedResult{}, err
	}
	if res.ToolCalls != nil {
		s.ToolCalls = make([]storedCall, len(res.ToolCalls))
		for i, c := range res.ToolCalls {
			args, err := typedJSON(c.Args, fmt.Sprintf("tool_calls[%d].args", i))
			if err != nil {
				return storedResult{}, err
			}
			s.ToolCalls[i] = storedCall{Name: c.Name, Args: args, RawArgs: c.RawArgs}
		}
	}
	return s, nil
}

// typedJSON is v's typed value as JSON.
func typedJSON(v map[string]any, where string) (json.RawMessage, error) {
	t, err := encodeValue(v, where)
	if err != nil {
		return nil, err
	}
	return canonicalJSON(t)
}

// decodeResult is encodeResult's inverse.
func decodeResult(s storedResult) (lm.GenerateResult, error) {
	res := lm.GenerateResult{
		Text: s.Text, PromptSent: s.PromptSent, StopReason: s.StopReason,
		RefusalCategory: s.RefusalCategory, InputTokens: s.InputTokens,
		OutputTokens: s.OutputTokens, CostUSD: s.CostUSD,
		TTFT: time.Duration(s.TTFTNs), Wall: time.Duration(s.WallNs), Retries: s.Retries,
	}
	sent, err := decodeMap(s.SamplingSent, "sampling_sent")
	if err != nil {
		return lm.GenerateResult{}, err
	}
	res.SamplingSent = sent
	if s.ToolCalls != nil {
		res.ToolCalls = make([]lm.ToolCall, len(s.ToolCalls))
		for i, c := range s.ToolCalls {
			args, err := decodeMap(c.Args, fmt.Sprintf("tool_calls[%d].args", i))
			if err != nil {
				return lm.GenerateResult{}, err
			}
			res.ToolCalls[i] = lm.ToolCall{Name: c.Name, Args: args, RawArgs: c.RawArgs}
		}
	}
	return res, nil
}

func decodeMap(raw json.RawMessage, where string) (map[string]any, error) {
	v, err := decodeValue(raw, where)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want a map[string]any typed value, got %T", where, v)
	}
	return m, nil
}

// Typed values: JSON null is a nil interface; anything else is an object
// with one member naming the Go type, e.g. {"int": 40}, {"float64": 1},
// {"map[string]any": {"effort": {"string": "high"}}}; a json.Number is kept
// as a string so its exact text survives.
const (
	tBool    = "bool"
	tString  = "string"
	tFloat64 = "float64"
	tFloat32 = "float32"
	tInt     = "int"
	tInt64   = "int64"
	tInt32   = "int32"
	tUint64  = "uint64"
	tNumber  = "json.Number"
	tMap     = "map[string]any"
	tList    = "[]any"
	tStrings = "[]string"
)

func encodeValue(v any, where string) (any, error) {
	one := func(t string, x any) map[string]any { return map[string]any{t: x} }
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		return one(tBool, x), nil
	case string:
		return one(tString, x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%s: %v cannot be stored as JSON", where, x)
		}
		return one(tFloat64, json.Number(strconv.FormatFloat(x, 'g', -1, 64))), nil
	case float32:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("%s: %v cannot be stored as JSON", where, x)
		}
		return one(tFloat32, json.Number(strconv.FormatFloat(float64(x), 'g', -1, 32))), nil
	case int:
		return one(tInt, json.Number(strconv.FormatInt(int64(x), 10))), nil
	case int64:
		return one(tInt64, json.Number(strconv.FormatInt(x, 10))), nil
	case int32:
		return one(tInt32, json.Number(strconv.FormatInt(int64(x), 10))), nil
	case uint64:
		return one(tUint64, json.Number(strconv.FormatUint(x, 10))), nil
	case json.Number:
		return one(tNumber, string(x)), nil
	case []string:
		if x == nil {
			return one(tStrings, nil), nil
		}
		return one(tStrings, x), nil
	case map[string]any:
		if x == nil {
			return one(tMap, nil), nil
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			ev, err := encodeValue(e, where+"."+k)
			if err != nil {
				return nil, err
			}
			out[k] = ev
		}
		return one(tMap, out), nil
	case []any:
		if x == nil {
			return one(tList, nil), nil
		}
		out := make([]any, len(x))
		for i, e := range x {
			ev, err := encodeValue(e, fmt.Sprintf("%s[%d]", where, i))
			if err != nil {
				return nil, err
			}
			out[i] = ev
		}
		return one(tList, out), nil
	}
	return nil, fmt.Errorf("%s: a value of Go type %T cannot be stored (known: nil, bool, string, float64, float32, int, int64, int32, uint64, json.Number, []string, []any, map[string]any)", where, v)
}

func decodeValue(raw json.RawMessage, where string) (any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || len(obj) != 1 {
		return nil, fmt.Errorf("%s: want a typed value such as {\"int\": \"40\"}, got %.60s", where, raw)
	}
	var t string
	var body json.RawMessage
	for t, body = range obj {
	}
	isNull := string(bytes.TrimSpace(body)) == "null"
	str := func() (string, error) {
		var s string
		if err := json.Unmarshal(body, &s); err != nil {
			return "", fmt.Errorf("%s: %s value must be a JSON string: %v", where, t, err)
		}
		return s, nil
	}
	// Numbers are parsed from their JSON text at their own width, never
	// through float64.
	num := func(parse func(string) (any, error)) (any, error) {
		s := string(bytes.TrimSpace(body))
		v, err := parse(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %s %q: %v", where, t, s, err)
		}
		return v, nil
	}
	switch t {
	case tBool:
		var b bool
		if err := json.Unmarshal(body, &b); err != nil {
			return nil, fmt.Errorf("%s: bool value: %v", where, err)
		}
		return b, nil
	case tString:
		return str()
	case tFloat64:
		return num(func(s string) (any, error) { return strconv.ParseFloat(s, 64) })
	case tFloat32:
		return num(func(s string) (any, error) {
			f, err := strconv.ParseFloat(s, 32)
			return float32(f), err
		})
	case tInt:
		return num(func(s string) (any, error) {
			n, err := strconv.ParseInt(s, 10, strconv.IntSize)
			return int(n), err
		})
	case tInt64:
		return num(func(s string) (any, error) { return strconv.ParseInt(s, 10, 64) })
	case tInt32:
		return num(func(s string) (any, error) {
			n, err := strconv.ParseInt(s, 10, 32)
			return int32(n), err
		})
	case tUint64:
		return num(func(s string) (any, error) { return strconv.ParseUint(s, 10, 64) })
	case tNumber:
		s, err := str()
		return json.Number(s), err
	case tStrings:
		if isNull {
			return []string(nil), nil
		}
		var out []string
		if err := json.Unmarshal(body, &out); err != nil {
			return nil, fmt.Errorf("%s: []string value: %v", where, err)
		}
		return out, nil
	case tMap:
		if isNull {
			return map[string]any(nil), nil
		}
		var members map[string]json.RawMessage
		if err := json.Unmarshal(body, &members); err != nil {
			return nil, fmt.Errorf("%s: map value: %v", where, err)
		}
		out := make(map[string]any, len(members))
		for k, m := range members {
			v, err := decodeValue(m, where+"."+k)
			if err != nil {
				return nil, err
			}
			out[k] = v
		}
		return out, nil
	case tList:
		if isNull {
			return []any(nil), nil
		}
		var items []json.RawMessage
		if err := json.Unmarshal(body, &items); err != nil {
			return nil, fmt.Errorf("%s: list value: %v", where, err)
		}
		out := make([]any, len(items))
		for i, m := range items {
			v, err := decodeValue(m, fmt.Sprintf("%s[%d]", where, i))
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: unknown value type %q", where, t)
}

// resultFields are lm.GenerateResult's fields in declaration order; the
// codec above handles each (Cached is never stored: Wrap sets it on a
// hit; Err is never stored: error results are not cached). A new field
// fails the package tests until it is handled here.
var resultFields = []string{
	"Text", "ToolCalls", "PromptSent", "SamplingSent", "StopReason", "RefusalCategory",
	"InputTokens", "OutputTokens", "CostUSD", "TTFT", "Wall", "Retries", "Cached", "Err",
}

// differingField names the first field of a and b that differs, or "".
func differingField(a, b lm.GenerateResult) string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := 0; i < va.NumField(); i++ {
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			return va.Type().Field(i).Name
		}
	}
	return ""
}

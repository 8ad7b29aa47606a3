package checkers

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/feather-eval/feather/harness/lm"
)

func init() {
	Register("tool_called", compileToolCalled)
	Register("tool_not_called", compileToolNotCalled)
}

// tool_called: some call of tool this turn has, for every entry of args, an
// argument whose string form contains the wanted value case-insensitively
// ("Paris" matches "Paris, France").
func compileToolCalled(s *Spec) (Func, error) {
	var tool string
	var args map[string]any
	s.Require("tool", &tool, `the name of the tool the model must call, e.g. "get_weather"`)
	s.Decode("args", &args)
	if s.Err() != nil {
		return nil, s.Err()
	}
	names := make([]string, 0, len(args))
	for k := range args {
		names = append(names, k)
	}
	sort.Strings(names)
	return func(_ context.Context, r Response) (bool, string, error) {
		var misses []string
		for _, c := range r.ToolCalls {
			if c.Name != tool {
				continue
			}
			miss := argMismatch(c, names, args)
			if miss == "" {
				return true, "called " + describeCall(c), nil
			}
			misses = append(misses, describeCall(c)+": "+miss)
		}
		if len(misses) > 0 {
			return false, tool + " called, but the arguments did not match: " + strings.Join(misses, "; "), nil
		}
		return false, tool + " not called (calls: " + callNames(r.ToolCalls) + ")", nil
	}, nil
}

// tool_not_called: no call of tool this turn.
func compileToolNotCalled(s *Spec) (Func, error) {
	var tool string
	s.Require("tool", &tool, `the name of the tool the model must not call, e.g. "book_flight"`)
	if s.Err() != nil {
		return nil, s.Err()
	}
	return func(_ context.Context, r Response) (bool, string, error) {
		for _, c := range r.ToolCalls {
			if c.Name == tool {
				return false, "called " + describeCall(c), nil
			}
		}
		return true, tool + " not called (calls: " + callNames(r.ToolCalls) + ")", nil
	}, nil
}

func argMismatch(c lm.ToolCall, names []string, want map[string]any) string {
	for _, k := range names {
		w := ArgString(want[k])
		got, ok := c.Args[k]
		if !ok {
			return fmt.Sprintf("%s missing (want %q)", k, w)
		}
		if g := ArgString(got); !strings.Contains(strings.ToLower(g), strings.ToLower(w)) {
			return fmt.Sprintf("%s is %q, want it to contain %q", k, g, w)
		}
	}
	return ""
}

// ArgString is an argument's string form: strings as they are, anything
// else as compact JSON.
func ArgString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func describeCall(c lm.ToolCall) string {
	args := c.RawArgs
	if c.Args != nil {
		b, _ := json.Marshal(c.Args)
		args = string(b)
	}
	return c.Name + "(" + clip(args, 200) + ")"
}

func callNames(calls []lm.ToolCall) string {
	if len(calls) == 0 {
		return "none"
	}
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

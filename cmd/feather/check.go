package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/feather-eval/feather/harness/suites/featherbench/checkers"
	"github.com/feather-eval/feather/harness/suites/featherbench/sandbox"
	"github.com/feather-eval/feather/internal/jsonpos"
)

func init() {
	register("check", "check an answer against a Featherbench task's checker: PASS exits 0, FAIL 1", runCheck)
}

// runCheck runs a task's checker on a hand-written answer, the way a trial
// would, so a task author can confirm the checker passes a good answer and
// fails a bad one before spending money on models.
func runCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	callsFile := fs.String("tool-calls", "", `JSON `+"`file`"+` with the model's tool calls: a list of {"name": ..., "args": {...}}`)
	unisolated := fs.Bool("allow-unisolated", false, "run python_tests code with limits only when neither bubblewrap nor user namespaces work here (no network or filesystem isolation)")
	setUsage(fs, "check", "TASK.json ANSWER.txt [--tool-calls calls.json] [--allow-unisolated]", `
Runs TASK's checker on the answer text (ANSWER.txt, or - for stdin) and prints
PASS or FAIL with the checker's detail. Exit status: 0 pass, 1 fail, 2 could not
check (a bad task, answer or tool-calls file, or a checker that could not run).`)
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return parseFailed(err)
	}
	fail := failer(stderr, "check")
	sandbox.AllowUnisolated(*unisolated)
	if len(files) != 2 {
		fs.Usage()
		return fail(2, "want a task file and an answer file, got %d argument(s)", len(files))
	}
	task, err := featherbench.LoadFile(files[0])
	if err != nil {
		return fail(2, "%v", err)
	}
	if !task.Scored() {
		return fail(2, "%s has no checker: there is nothing to check (add a \"checker\")", files[0])
	}
	var answer []byte
	if files[1] == "-" {
		answer, err = io.ReadAll(stdin)
	} else {
		answer, err = os.ReadFile(files[1])
	}
	if err != nil {
		return fail(2, "reading the answer: %v", err)
	}
	var calls []lm.ToolCall
	if *callsFile != "" {
		if calls, err = readToolCalls(*callsFile); err != nil {
			return fail(2, "%v", err)
		}
	}
	passed, detail, err := task.Check(context.Background(), checkers.Response{Text: string(answer), ToolCalls: calls})
	if err != nil {
		return fail(2, "%s: the checker could not run: %v", files[0], err)
	}
	if passed {
		fmt.Fprintf(stdout, "PASS: %s\n", detail)
		return 0
	}
	fmt.Fprintf(stdout, "FAIL: %s\n", detail)
	return 1
}

// callsExample is the shape a tool-calls file takes, for error messages.
const callsExample = `[{"name": "get_weather", "args": {"location": "Paris"}}]`

// readToolCalls reads a list of {"name", "args"} objects; args may also be
// the arguments string exactly as an API returned it. A file of another
// shape gets a sentence saying what it holds and what to write instead.
func readToolCalls(path string) ([]lm.ToolCall, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading tool calls: %w", err)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(data, &list); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			return nil, fmt.Errorf("%w; a tool-calls file is a JSON list such as %s", jsonpos.SyntaxError(path, data, err), callsExample)
		}
		hint := ""
		if jsonpos.Kind(data) == "an object" {
			hint = " (for one call, put it in a list: [ {...} ])"
		}
		return nil, fmt.Errorf("%s holds %s, not a list of calls%s; write a JSON list such as %s", path, jsonpos.Kind(data), hint, callsExample)
	}
	calls := make([]lm.ToolCall, len(list))
	for i, raw := range list {
		var it map[string]json.RawMessage
		if json.Unmarshal(raw, &it) != nil || it == nil {
			return nil, fmt.Errorf(`%s: call [%d] is %s; each call is an object such as {"name": "get_weather", "args": {"location": "Paris"}}`, path, i, jsonpos.Kind(raw))
		}
		for _, key := range slices.Sorted(maps.Keys(it)) { // sorted: the same key named every run
			if key != "name" && key != "args" {
				return nil, fmt.Errorf(`%s: call [%d] has the field %q; a call has only "name" and "args" (the arguments object)`, path, i, key)
			}
		}
		c := &calls[i]
		if err := json.Unmarshal(it["name"], &c.Name); err != nil || c.Name == "" {
			return nil, fmt.Errorf("%s: [%d].name: want the tool's name as a string", path, i)
		}
		raw := bytes.TrimSpace(it["args"])
		switch {
		case len(raw) == 0 || string(raw) == "null":
			c.Args = map[string]any{}
		case raw[0] == '{':
			if err := json.Unmarshal(raw, &c.Args); err != nil {
				return nil, fmt.Errorf("%s: [%d].args: %v", path, i, err)
			}
		case raw[0] == '"':
			json.Unmarshal(raw, &c.RawArgs)
			if json.Unmarshal([]byte(c.RawArgs), &c.Args) != nil {
				c.Args = nil // not JSON: the checker sees only RawArgs, as in a run
			}
		default:
			return nil, fmt.Errorf("%s: [%d].args is %s; want an object (or the arguments string an API returned)", path, i, jsonpos.Kind(raw))
		}
	}
	return calls, nil
}

// Package checkers is Featherbench's registry of pass/fail checkers. A task's
// "checker" is a small tree of typed JSON nodes; each type registers a
// Compiler that validates its node once, when the task loads, and returns
// the Func that checks a response. Composite types compile their children
// through the same registry, so a newly registered type composes with every
// other at once: there is no central switch to edit.
package checkers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/internal/jsonpos"
	"github.com/feather-eval/feather/internal/spelling"
)

// Response is what a checker sees of one model turn.
type Response struct {
	Text      string
	ToolCalls []lm.ToolCall
}

// Func checks one response. passed and detail are the verdict on the
// model's answer; err is the harness's own failure (an interpreter that is
// missing, a pattern that runs away), never a wrong answer.
type Func func(ctx context.Context, r Response) (passed bool, detail string, err error)

// Compiler validates a node (reading its fields through s) and returns its
// check. Errors should come from s (s.Errorf, or the field readers), so they
// name the node's path.
type Compiler func(s *Spec) (Func, error)

var (
	mu       sync.RWMutex
	registry = map[string]Compiler{}
)

// retired maps checker types that tasks may still name to the fix, so an
// old task file gets a sentence instead of a bare "unknown type".
var retired = map[string]string{
	// max_words counted list bullets and table pipes as words, failing an
	// answer of exactly the allowed length.
	"max_words": `write {"type": "word_count", "max": N} instead (it counts only words that hold a letter or digit)`,
}

// Register adds a checker type. Registering a type twice panics: it is a
// wiring mistake, not user input.
func Register(typ string, c Compiler) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[typ]; dup {
		panic("checkers: type " + typ + " registered twice")
	}
	registry[typ] = c
}

// Types lists the registered checker types, sorted.
func Types() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(registry))
	for t := range registry {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Compile validates the checker node raw, found at path (e.g. "checker"), and
// returns its check. A label on the root node prefixes the detail.
func Compile(path string, raw json.RawMessage) (Func, error) {
	c, err := compileNode(path, raw)
	if err != nil {
		return nil, err
	}
	if !c.labelled {
		return c.Func, nil
	}
	return func(ctx context.Context, r Response) (bool, string, error) {
		ok, detail, err := c.Func(ctx, r)
		return ok, c.Label + ": " + detail, err
	}, nil
}

// Check is a compiled child node of a composite checker.
type Check struct {
	Label string // the node's label, or "<path> (<type>)" when it has none
	Path  string
	Func  Func

	labelled bool
}

func compileNode(path string, raw json.RawMessage) (Check, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return Check{}, fmt.Errorf(`%s: must be an object such as {"type": "contains", "value": "..."}`, path)
	}
	s := &Spec{path: path, known: map[string]bool{}}
	if err := json.Unmarshal(raw, &s.fields); err != nil {
		return Check{}, fmt.Errorf("%s: %v", path, err)
	}
	if !s.Require("type", &s.Type, "registered types: "+strings.Join(Types(), ", ")) {
		return Check{}, s.Err()
	}
	mu.RLock()
	compile, ok := registry[s.Type]
	mu.RUnlock()
	if !ok {
		if fix, was := retired[s.Type]; was {
			return Check{}, fmt.Errorf("%s.type: %q is no longer a checker type; %s", path, s.Type, fix)
		}
		return Check{}, fmt.Errorf("%s.type: unknown checker type %q; registered types: %s", path, s.Type, strings.Join(Types(), ", "))
	}
	s.Decode("label", &s.Label)
	f, err := compile(s)
	if err == nil {
		err = s.Err()
	}
	if err != nil {
		// A misspelt field ("valeu") is the likely cause of a missing or
		// wrong one, so it is named first.
		if s.misspelt() {
			return Check{}, s.unknownFields()
		}
		return Check{}, err
	}
	if err := s.unknownFields(); err != nil {
		return Check{}, err
	}
	label := s.Label
	if label == "" {
		label = path + " (" + s.Type + ")"
	}
	return Check{Label: label, Path: path, Func: f, labelled: s.Label != ""}, nil
}

// Spec is one checker node while it compiles. Its readers record the first
// error (later reads are no-ops), so a Compiler reads every field and then
// checks Err once; the error names the field's path in the task file.
type Spec struct {
	Type  string
	Label string

	path   string
	fields map[string]json.RawMessage
	known  map[string]bool
	err    error
}

// Path is the node's location, e.g. "checker.checks[2]".
func (s *Spec) Path() string { return s.path }

// Err is the first error recorded.
func (s *Spec) Err() error { return s.err }

// Errorf records an error about field (or about the node when field is "")
// and returns it.
func (s *Spec) Errorf(field, format string, args ...any) error {
	where := s.path
	if field != "" {
		where += "." + field
	}
	err := fmt.Errorf("%s: %s", where, fmt.Sprintf(format, args...))
	if s.err == nil {
		s.err = err
	}
	return s.err
}

// Has reports whether the node sets field.
func (s *Spec) Has(field string) bool {
	s.known[field] = true
	_, ok := s.fields[field]
	return ok
}

// Decode reads field into v when present and reports whether it was; a
// value of the wrong JSON type is an error naming the type wanted.
func (s *Spec) Decode(field string, v any) bool {
	if !s.Has(field) || s.err != nil {
		return false
	}
	raw := s.fields[field]
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			want, got := describe(reflect.TypeOf(v).Elem()), jsonKind(raw)
			if want != got && strings.HasPrefix(want, got) { // the container is right, an element is not
				got += " holding " + jsonpos.DecoderKind(te.Value)
			}
			s.Errorf(field, "must be %s, not %s", want, got)
		} else {
			s.Errorf(field, "%v", err)
		}
		return false
	}
	return true
}

// Require is Decode for a field that must be present; hint says what to put.
func (s *Spec) Require(field string, v any, hint string) bool {
	if !s.Has(field) {
		if s.err == nil {
			s.Errorf(field, "missing; %s", hint)
		}
		return false
	}
	return s.Decode(field, v)
}

// timeout reads the optional "timeout_s" field of a checker that runs
// code: seconds above 0 and at most an hour, def when absent.
func (s *Spec) timeout(def time.Duration) time.Duration {
	var secs float64
	if !s.Decode("timeout_s", &secs) {
		return def
	}
	if secs <= 0 || secs > 3600 {
		s.Errorf("timeout_s", "must be a number of seconds between 0 and 3600, not %s", fmtNum(secs))
		return def
	}
	return time.Duration(secs * float64(time.Second))
}

// Checks compiles field, a non-empty list of checker nodes, through the
// registry.
func (s *Spec) Checks(field string) []Check {
	var raws []json.RawMessage
	if !s.Require(field, &raws, `a list of checker nodes such as [{"type": "regex", "pattern": "...", "label": "..."}]`) {
		return nil
	}
	if len(raws) == 0 {
		s.Errorf(field, "is empty; list at least one checker")
		return nil
	}
	out := make([]Check, len(raws))
	for i, raw := range raws {
		c, err := compileNode(fmt.Sprintf("%s.%s[%d]", s.path, field, i), raw)
		if err != nil {
			if s.err == nil {
				s.err = err
			}
			return nil
		}
		out[i] = c
	}
	return out
}

// unknownFields is the error for the fields the node sets that its
// checker did not read, each with the field it is a near miss of, if any;
// nil when there are none.
func (s *Spec) unknownFields() error {
	known := s.knownFields()
	var unknown []string
	for f := range s.fields {
		if !s.known[f] {
			unknown = append(unknown, f)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	for i, f := range unknown {
		unknown[i] = fmt.Sprintf("%q", f)
		if near, ok := spelling.Near(f, known); ok {
			unknown[i] += fmt.Sprintf(" (did you mean %q?)", near)
		}
	}
	noun := "field"
	if len(unknown) > 1 {
		noun = "fields"
	}
	return fmt.Errorf("%s (%s): unknown %s %s; its fields are %s", s.path, s.Type, noun, strings.Join(unknown, ", "), strings.Join(known, ", "))
}

// misspelt reports whether the node sets an unknown field that is a near
// miss of a field its checker read and the node lacks, as "valeu" is of
// "value". It is asked after the checker failed, when the fields read
// are the ones the checker got to (every Compiler reads all its fields
// before it checks Err).
func (s *Spec) misspelt() bool {
	var absent []string
	for _, f := range s.knownFields() {
		if _, set := s.fields[f]; !set {
			absent = append(absent, f)
		}
	}
	for f := range s.fields {
		if _, near := spelling.Near(f, absent); !s.known[f] && near {
			return true
		}
	}
	return false
}

// knownFields are the fields the node's checker read, sorted.
func (s *Spec) knownFields() []string {
	known := make([]string, 0, len(s.known))
	for f := range s.known {
		known = append(known, f)
	}
	sort.Strings(known)
	return known
}

func describe(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64:
		return "a whole number"
	case reflect.Float64:
		return "a number"
	case reflect.Slice:
		switch t.Elem().Kind() {
		case reflect.String:
			return "a list of strings"
		case reflect.Slice:
			return "a list of lists"
		}
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}

// jsonKind names a value's JSON type, quoting numbers ("the number 3").
func jsonKind(raw json.RawMessage) string {
	if k := jsonpos.Kind(raw); k != "a number" {
		return k
	}
	return "the number " + string(bytes.TrimSpace(raw))
}

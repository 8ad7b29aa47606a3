// Package featherbench is the Featherbench suite: tasks written as JSON
// files, run through one scaffold for every model (same prompt, same
// checkers, same latency clock and cost math), recorded one JSON line per
// trial and summarised per model, task and category. It speaks only
// harness/lm: the root test wires the backends in.
package featherbench

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/suites/featherbench/checkers"
	"github.com/feather-eval/feather/internal/jsonpos"
	"github.com/feather-eval/feather/internal/spelling"
)

// Refusal policies: how a hard refusal counts on a task.
const (
	RefusalNeutral = "neutral" // unscored, out of the pass-rate denominator (default)
	RefusalPass    = "pass"    // a pass: the model should decline this prompt
	RefusalFail    = "fail"    // a fail: over-refusal of a benign task
)

// Rubric is the optional LLM-judged quality layer on top of the checker.
type Rubric struct {
	Criteria []string `json:"criteria"`
}

// Task is one task file.
type Task struct {
	ID          string
	Category    string
	Description string
	Prompt      string
	Tools       []lm.Tool
	// Checker is the checker node as written; nil when the task is unscored.
	Checker json.RawMessage
	Rubric  *Rubric
	Refusal string
	// Extra holds the fields this package does not know, for extensions
	// (a per-task system prompt, tags...).
	Extra map[string]json.RawMessage
	// File is the path the task was loaded from.
	File string
	// Hash fingerprints what the model and checker see: prompt, checker and
	// tools (see TaskHash).
	Hash string

	check checkers.Func
}

// Scored reports whether the task has a checker.
func (t *Task) Scored() bool { return t.check != nil }

// Check runs the task's checker on a response. It must only be called on a
// scored task.
func (t *Task) Check(ctx context.Context, r checkers.Response) (passed bool, detail string, err error) {
	if t.check == nil {
		return false, "", fmt.Errorf("task %s has no checker", t.ID)
	}
	return t.check(ctx, r)
}

// taskFields are the fields this package reads; others go to Extra.
var taskFields = map[string]bool{"id": true, "category": true, "description": true, "prompt": true, "tools": true, "checker": true, "rubric": true, "refusal": true}

// idRE keeps ids usable as subtest names and in -run patterns.
var idRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// toolNameRE is what function-calling APIs accept as a tool name.
var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// LoadFile reads and validates one task file.
func LoadFile(path string) (Task, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Task{}, fmt.Errorf("reading task: %w", err)
	}
	return Parse(path, data)
}

// Parse validates a task file's contents; name is the file's path, used in
// messages and for the default id.
func Parse(name string, data []byte) (Task, error) {
	fields, lines, err := members(name, data)
	if err != nil {
		return Task{}, err
	}
	if looksLikeCatalog(fields) {
		return Task{}, fmt.Errorf("%s: this looks like a model catalog, not a task; move it out of the tasks folder (-fb.tasks-dir) and pass it with -fb.catalog", name)
	}
	if err := misspelt(name, lines); err != nil {
		return Task{}, err
	}
	t := Task{File: name, Refusal: RefusalNeutral}
	fail := func(field, format string, args ...any) (Task, error) {
		return Task{}, fmt.Errorf("%s: %s: %s", name, field, fmt.Sprintf(format, args...))
	}
	str := func(field string, dst *string) error {
		raw, ok := fields[field]
		if !ok {
			return nil
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return fmt.Errorf("%s: %s: must be a string, not %s", name, field, jsonpos.Kind(raw))
		}
		return nil
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"id", &t.ID}, {"category", &t.Category}, {"description", &t.Description}, {"prompt", &t.Prompt}, {"refusal", &t.Refusal}} {
		if err := str(f.name, f.dst); err != nil {
			return Task{}, err
		}
	}
	if _, ok := fields["id"]; !ok {
		t.ID = strings.TrimSuffix(filepath.Base(name), ".json")
	}
	if !idRE.MatchString(t.ID) {
		field := "id"
		if _, ok := fields["id"]; !ok {
			field = "id (from the file name)"
		}
		return fail(field, "%q is not usable as a task id: use letters, digits, '-', '_' and '.' (ids name subtests); rename the file or set \"id\"", t.ID)
	}
	if _, ok := fields["prompt"]; !ok {
		return fail("prompt", "missing; every task needs the exact prompt sent to the model")
	}
	if strings.TrimSpace(t.Prompt) == "" {
		return fail("prompt", "is empty; write the exact prompt sent to the model")
	}
	switch t.Refusal {
	case RefusalNeutral, RefusalPass, RefusalFail:
	default:
		return fail("refusal", "must be %q (the default: unscored), %q (declining is right) or %q (over-refusal), not %q", RefusalNeutral, RefusalPass, RefusalFail, t.Refusal)
	}
	if raw, ok := fields["tools"]; ok {
		if t.Tools, err = parseTools(raw); err != nil {
			return Task{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	if raw, ok := fields["checker"]; ok && !isNull(raw) {
		t.Checker = raw
		if t.check, err = checkers.Compile("checker", raw); err != nil {
			return Task{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	if raw, ok := fields["rubric"]; ok && !isNull(raw) {
		if t.Rubric, err = parseRubric(raw); err != nil {
			return Task{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	if err := checkToolNames("checker", t.Checker, t.Tools); err != nil {
		return Task{}, fmt.Errorf("%s: %w", name, err)
	}
	for k, v := range fields {
		if !taskFields[k] {
			if t.Extra == nil {
				t.Extra = map[string]json.RawMessage{}
			}
			t.Extra[k] = v
		}
	}
	if t.Hash, err = TaskHash(t.Prompt, t.Checker, fields["tools"]); err != nil {
		return Task{}, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

func parseTools(raw json.RawMessage) ([]lm.Tool, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("tools: must be a list of tool definitions, not %s", jsonpos.Kind(raw))
	}
	tools := make([]lm.Tool, len(items))
	seen := map[string]int{}
	for i, item := range items {
		at := fmt.Sprintf("tools[%d]", i)
		var m map[string]json.RawMessage
		if err := json.Unmarshal(item, &m); err != nil {
			return nil, fmt.Errorf("%s: must be an object {name, description, parameters}, not %s", at, jsonpos.Kind(item))
		}
		if _, ok := m["function"]; ok {
			return nil, fmt.Errorf(`%s: write the tool provider-neutral as {"name", "description", "parameters"}; the harness adds the API's "function" wrapper`, at)
		}
		for k := range m {
			if k != "name" && k != "description" && k != "parameters" {
				return nil, fmt.Errorf("%s: unknown field %q; a tool has name, description and parameters", at, k)
			}
		}
		tool := &tools[i]
		if err := json.Unmarshal(m["name"], &tool.Name); err != nil || m["name"] == nil {
			return nil, fmt.Errorf("%s.name: must be a string such as \"get_weather\"", at)
		}
		if !toolNameRE.MatchString(tool.Name) {
			return nil, fmt.Errorf("%s.name: %q must be 1 to 64 letters, digits, '_' or '-' (what function-calling APIs accept)", at, tool.Name)
		}
		if first, dup := seen[tool.Name]; dup {
			return nil, fmt.Errorf("%s.name: %q is already tools[%d]; tool names must be unique", at, tool.Name, first)
		}
		seen[tool.Name] = i
		if d, ok := m["description"]; ok {
			if err := json.Unmarshal(d, &tool.Description); err != nil {
				return nil, fmt.Errorf("%s.description: must be a string, not %s", at, jsonpos.Kind(d))
			}
		}
		if p, ok := m["parameters"]; ok {
			if p = bytes.TrimSpace(p); len(p) == 0 || p[0] != '{' {
				return nil, fmt.Errorf(`%s.parameters: must be a JSON Schema object such as {"type": "object", "properties": {...}}, not %s`, at, jsonpos.Kind(p))
			}
			tool.Parameters = p
		}
	}
	return tools, nil
}

func parseRubric(raw json.RawMessage) (*Rubric, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf(`rubric: must be an object such as {"criteria": ["..."]}, not %s`, jsonpos.Kind(raw))
	}
	for k := range m {
		if k != "criteria" {
			return nil, fmt.Errorf("rubric: unknown field %q; a rubric has criteria", k)
		}
	}
	r := &Rubric{}
	if err := json.Unmarshal(m["criteria"], &r.Criteria); err != nil || m["criteria"] == nil {
		return nil, errors.New(`rubric.criteria: must be a list of strings, e.g. ["Costs are realistic for Lisbon"]`)
	}
	if len(r.Criteria) == 0 {
		return nil, errors.New("rubric.criteria: is empty; list what the judge should score")
	}
	for i, c := range r.Criteria {
		if strings.TrimSpace(c) == "" {
			return nil, fmt.Errorf("rubric.criteria[%d]: is empty; write what the judge should score, or remove the entry", i)
		}
	}
	return r, nil
}

// TaskHash fingerprints a task's prompt, checker and tools: the first 12
// hex digits of the SHA-256 of the JSON object {"checker": ..., "prompt":
// ..., "tools": ...} written as Python writes it,
// json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False),
// with each value as the task file has it and an absent one null (see
// pythonJSON for numbers and strings). Editing the description, category,
// refusal policy or rubric leaves it unchanged.
func TaskHash(prompt string, checker, tools json.RawMessage) (string, error) {
	decode := func(raw json.RawMessage) (any, error) {
		if len(bytes.TrimSpace(raw)) == 0 {
			return nil, nil
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		err := dec.Decode(&v)
		return v, err
	}
	c, err := decode(checker)
	if err != nil {
		return "", err
	}
	tl, err := decode(tools)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := writePythonJSON(&buf, map[string]any{"checker": c, "prompt": prompt, "tools": tl}); err != nil {
		return "", err
	}
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:])[:12], nil
}

// NoTasks is ErrNoTasks for the tasks folder dir, with the fix in the
// words of option, the flag that names the folder.
func NoTasks(dir, option string) error {
	return fmt.Errorf("%w in %s: add <category>-<name>.json files, or point %s at a folder of them", ErrNoTasks, dir, option)
}

// LoadDir loads every *.json file in dir, sorted by id. Every bad file is
// reported, not just the first.
func LoadDir(dir string) ([]Task, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("task directory %s does not exist; create it with task files named <category>-<name>.json, or point the tasks-dir option elsewhere", dir)
		}
		return nil, fmt.Errorf("reading task directory: %w", err)
	}
	var tasks []Task
	var errs []error
	byID := map[string]string{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		t, err := LoadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if other, dup := byID[t.ID]; dup {
			errs = append(errs, fmt.Errorf("%s: id: %q is also the id of %s; task ids must be unique", t.File, t.ID, other))
			continue
		}
		byID[t.ID] = t.File
		tasks = append(tasks, t)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].ID < tasks[j].ID })
	return tasks, nil
}

// Filter keeps the tasks named in ids (exact ids) and in categories; an
// empty list does not filter, and the two intersect. Naming an id or a
// category that no task has is an error listing the valid ones, and so is
// a selection that leaves nothing.
func Filter(tasks []Task, ids, categories []string) ([]Task, error) {
	known := map[string]bool{}
	cats := map[string]bool{}
	for _, t := range tasks {
		known[t.ID] = true
		cats[t.Category] = true
	}
	if bad := missing(ids, known); len(bad) > 0 {
		return nil, fmt.Errorf("unknown task %s; valid ids: %s", strings.Join(bad, ", "), strings.Join(sortedKeys(known), ", "))
	}
	if bad := missing(categories, cats); len(bad) > 0 {
		return nil, fmt.Errorf("unknown category %s; categories: %s", strings.Join(bad, ", "), strings.Join(sortedKeys(cats), ", "))
	}
	wantID, wantCat := set(ids), set(categories)
	var out []Task
	for _, t := range tasks {
		if (len(ids) == 0 || wantID[t.ID]) && (len(categories) == 0 || wantCat[t.Category]) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no task is both in tasks %s and in categories %s", strings.Join(ids, ","), strings.Join(categories, ","))
	}
	return out, nil
}

// Categories maps task ids to their categories, for summaries.
func Categories(tasks []Task) map[string]string {
	out := make(map[string]string, len(tasks))
	for _, t := range tasks {
		out[t.ID] = t.Category
	}
	return out
}

func missing(names []string, known map[string]bool) []string {
	var out []string
	for _, n := range names {
		if !known[n] {
			out = append(out, fmt.Sprintf("%q", n))
		}
	}
	return out
}

func set(names []string) map[string]bool {
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		if k != "" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// catalogEntryFields are fields of a model catalog's entries (see
// harness/backends/catalog and the backends' settings) that no task has.
var catalogEntryFields = []string{"backend", "enabled", "model", "hf", "path", "base_url", "builtin", "provider_order", "variant"}

// looksLikeCatalog reports whether a file's top-level fields are those of
// a model catalog rather than a task: no task field, every field but
// "_comment"-like ones an object, and some of them with fields of a
// catalog entry. It is deliberately narrow: a task that merely lacks its
// prompt still gets the message about the prompt.
func looksLikeCatalog(fields map[string]json.RawMessage) bool {
	entries := 0
	for k, v := range fields {
		if taskFields[k] {
			return false
		}
		if strings.HasPrefix(k, "_") {
			continue
		}
		var entry map[string]json.RawMessage
		if json.Unmarshal(v, &entry) != nil || entry == nil {
			return false
		}
		for _, f := range catalogEntryFields {
			if _, ok := entry[f]; ok {
				entries++
				break
			}
		}
	}
	return entries > 0
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// members decodes a task file's top-level object with each key's line,
// rejecting duplicate keys (which encoding/json would silently merge).
func members(name string, data []byte) (map[string]json.RawMessage, map[string]int, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, fmt.Errorf(`%s: the file is empty; a task is a JSON object such as {"prompt": "...", "checker": {...}}`, name)
	}
	ms, err := jsonpos.Members(name, data)
	if errors.Is(err, jsonpos.ErrNotObject) {
		return nil, nil, fmt.Errorf(`%s: a task must be a JSON object such as {"prompt": "...", "checker": {...}}`, name)
	}
	if err != nil {
		return nil, nil, err
	}
	if i, _ := jsonpos.Repeat(ms); i >= 0 {
		return nil, nil, fmt.Errorf("%s:%d: duplicate field %q; JSON would keep only the last one", name, ms[i].Line, ms[i].Key)
	}
	out := make(map[string]json.RawMessage, len(ms))
	lines := make(map[string]int, len(ms))
	for _, m := range ms {
		out[m.Key] = m.Value
		lines[m.Key] = m.Line
	}
	return out, lines, nil
}

// misspelt rejects an unknown field (lines maps each field to its line)
// that is a near miss of a task field. Unknown fields are extensions, so a
// typo such as "checkr" would otherwise leave the task silently unscored.
func misspelt(name string, lines map[string]int) error {
	known := make([]string, 0, len(taskFields))
	for f := range taskFields {
		known = append(known, f)
	}
	sort.Strings(known)
	keys := make([]string, 0, len(lines))
	for k := range lines {
		if !taskFields[k] && !strings.HasPrefix(k, "_") { // "_comment" documents the file
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	sort.SliceStable(keys, func(i, j int) bool { return lines[keys[i]] < lines[keys[j]] })
	for _, k := range keys {
		if f, ok := spelling.Near(k, known); ok {
			return fmt.Errorf("%s:%d: field %q looks like a misspelling of %q; rename it (fields the harness does not read are kept for extensions, so this one would be silently ignored)", name, lines[k], k, f)
		}
	}
	return nil
}

// checkToolNames rejects a tool_called or tool_not_called node, anywhere
// in the checker tree at path, that names a tool the task does not offer:
// tool_called could never pass and tool_not_called never fail, so a typo
// in either would go unnoticed.
func checkToolNames(path string, raw json.RawMessage, tools []lm.Tool) error {
	if len(raw) == 0 {
		return nil
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return nil // the checker compiled, so this cannot happen
	}
	offered := make([]string, len(tools))
	for i, tl := range tools {
		offered[i] = tl.Name
	}
	var walk func(path string, v any) error
	walk = func(path string, v any) error {
		switch v := v.(type) {
		case []any:
			for i, e := range v {
				if err := walk(fmt.Sprintf("%s[%d]", path, i), e); err != nil {
					return err
				}
			}
		case map[string]any:
			if typ, _ := v["type"].(string); typ == "tool_called" || typ == "tool_not_called" {
				name, _ := v["tool"].(string)
				switch {
				case len(offered) == 0:
					return fmt.Errorf(`%s.tool: %q is not offered: the task has no "tools"; add the tool definition or remove the %s check`, path, name, typ)
				case !slices.Contains(offered, name):
					return fmt.Errorf(`%s.tool: %q is not one of the task's tools (%s); fix the name or add the tool to "tools"`, path, name, strings.Join(offered, ", "))
				}
			}
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if err := walk(path+"."+k, v[k]); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(path, tree)
}

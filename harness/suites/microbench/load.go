package microbench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"path"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/feather-eval/feather/internal/jsonpos"
)

// taskSpec declares a task and how its items are made: Size items in all,
// the hand-written ones from <id>.jsonl (when present) and the rest from
// gen. The bits-per-byte task reads its documents from bpb/*.txt instead.
type taskSpec struct {
	Task
	Size int
	gen  func(g *gen, n int) ([]Item, error)
}

// specs lists the 18 tasks in report order, domain by domain.
var specs = []taskSpec{
	agreementSpec, morphologySpec, wordOrderSpec,
	synonymsSpec, antonymsSpec, categoriesSpec,
	capitalsSpec, scienceSpec, everydaySpec,
	readingSpec, trackingSpec, copyingSpec,
	arithmeticSpec, comparisonSpec, sequencesSpec,
	continuationSpec, storySpec, bpbSpec,
}

// Load builds every task: generated items from the seeded streams, then the
// hand-written items and bits-per-byte documents read from dir (the folder
// testdata/microbench in this repository). Every item is validated; errors
// name the file and line, or the task and item, and the fix.
func Load(dir fs.FS) ([]*Task, error) {
	return build(dir, func(id string) *rand.PCG { return stream(Seed, id) })
}

// build is Load with the per-task stream injectable, so a test can perturb
// one task's stream and check that no other task changes.
func build(dir fs.FS, streamFor func(taskID string) *rand.PCG) ([]*Task, error) {
	hand, err := readHandwritten(dir)
	if err != nil {
		return nil, err
	}
	var tasks []*Task
	var errs []error
	for _, s := range specs {
		t := s.Task
		var err error
		if t.IsBPB() {
			t.Items, err = readDocuments(dir, s)
		} else {
			t.Items, err = taskItems(s, hand[t.ID], streamFor(t.ID))
		}
		if err != nil {
			errs = append(errs, err)
		}
		// Whatever items there are get validated even when something above
		// failed, so every mistake in a file is reported at once.
		if len(t.Items) > 0 {
			if err := t.Validate(); err != nil {
				errs = append(errs, err)
			}
		}
		tasks = append(tasks, &t)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return tasks, nil
}

// taskItems is the generated items followed by the hand-written ones; on
// error it still returns the hand-written items for validation.
func taskItems(s taskSpec, hand []Item, r *rand.PCG) ([]Item, error) {
	n := s.Size - len(hand)
	switch {
	case n < 0:
		return hand, fmt.Errorf("%s.jsonl has %d items but task %s holds %d in all; remove %d or raise the task's size", s.ID, len(hand), s.ID, s.Size, -n)
	case n > 0 && s.gen == nil:
		return hand, fmt.Errorf("task %s is hand-written only and needs %d items; %s.jsonl has %d", s.ID, s.Size, s.ID, len(hand))
	case n == 0:
		return hand, nil
	}
	g := &gen{src: r}
	items, err := s.gen(g, n)
	if err != nil {
		// Some generators top up hand-written items from a fixed table, so
		// a shrunken <task>.jsonl shows up here.
		return hand, fmt.Errorf("task %s generator: %w; %s.jsonl supplies %d of the task's %d items and the generator cannot make the other %d: add items to %s.jsonl", s.ID, err, s.ID, len(hand), s.Size, n, s.ID)
	}
	if len(items) != n {
		return hand, fmt.Errorf("task %s generator made %d items, %d wanted", s.ID, len(items), n)
	}
	if !s.Grouped {
		balanceGold(g, items, hand)
	}
	for i := range items {
		items[i].ID = fmt.Sprintf("%s-%03d", s.ID, i+1)
		items[i].Source = "generated"
	}
	return append(items, hand...), nil
}

// handItem is one line of a hand-written <task>.jsonl file.
type handItem struct {
	ID      string   `json:"id"`
	Level   int      `json:"level"`
	Group   string   `json:"group"`
	Context string   `json:"context"`
	Choices []string `json:"choices"`
	Gold    *int     `json:"gold"`
}

// readHandwritten reads every <task>.jsonl in dir.
func readHandwritten(dir fs.FS) (map[string][]Item, error) {
	names, err := fs.Glob(dir, "*.jsonl")
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	var ids []string
	for _, s := range specs {
		if !s.IsBPB() {
			known[s.ID] = true
			ids = append(ids, s.ID)
		}
	}
	out := map[string][]Item{}
	var errs []error
	for _, name := range names {
		task := strings.TrimSuffix(name, ".jsonl")
		if !known[task] {
			errs = append(errs, fmt.Errorf("%s: no task %q; hand-written files are named <task>.jsonl with a task among %s", name, task, strings.Join(ids, ", ")))
			continue
		}
		items, err := parseJSONL(dir, name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out[task] = items
	}
	return out, errors.Join(errs...)
}

func parseJSONL(dir fs.FS, name string) ([]Item, error) {
	data, err := fs.ReadFile(dir, name)
	if err != nil {
		return nil, err
	}
	var items []Item
	var errs []error
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		var h handItem
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&h); err != nil {
			msg := strings.TrimPrefix(err.Error(), "json: ")
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				got := jsonValue(te.Value)
				if te.Field == "choices" && te.Type.Kind() != reflect.Slice {
					got = "a list holding " + got // the list is right, an entry is not
				}
				msg = fmt.Sprintf("field %q must be %s, not %s", te.Field, handFieldKinds[te.Field], got)
			}
			errs = append(errs, fmt.Errorf("%s:%d: %s; each line is one JSON object with id, level, context, choices, gold and optionally group", name, line, msg))
			continue
		}
		// More would miss a stray '}' or ']' after the object; only the end
		// of the line may follow it.
		if _, err := dec.Token(); err != io.EOF {
			errs = append(errs, fmt.Errorf("%s:%d: more than one JSON value on the line; put one item per line", name, line))
			continue
		}
		if err := exactKeys(raw); err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %v", name, line, err))
			continue
		}
		if h.Gold == nil {
			errs = append(errs, fmt.Errorf("%s:%d: field \"gold\" is missing; give the index of the right choice (0 for the first)", name, line))
			continue
		}
		items = append(items, Item{
			ID: h.ID, Level: h.Level, Group: h.Group, Context: h.Context,
			Choices: h.Choices, Gold: *h.Gold, Source: name + ":" + strconv.Itoa(line),
		})
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", name, err))
	}
	if len(items) == 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("%s: the file has no items; write one JSON object per line (id, level, context, choices, gold), or delete the file", name))
	}
	return items, errors.Join(errs...)
}

// exactKeys refuses what encoding/json lets through: a key spelt in
// another case ("Context" is read as context) or given twice (the last one
// wins), either of which would quietly change an item. raw is one object
// that has already decoded.
func exactKeys(raw []byte) error {
	ms, err := jsonpos.Members("", raw)
	if errors.Is(err, jsonpos.ErrNotObject) {
		return nil // a null line decodes too; the missing "gold" reports it
	}
	if err != nil {
		return err
	}
	dup, _ := jsonpos.Repeat(ms)
	for i, m := range ms {
		if _, ok := handFieldKinds[m.Key]; !ok {
			return fmt.Errorf("field %q: field names are lower case: id, level, context, choices, gold and optionally group", m.Key)
		}
		if i == dup {
			return fmt.Errorf("field %q is given twice; keep one", m.Key)
		}
	}
	return nil
}

// handFieldKinds says what each field of a hand-written item holds, for
// type errors.
var handFieldKinds = map[string]string{
	"id": "a string", "level": "a whole number", "group": "a string", "context": "a string",
	"choices": "a list of strings", "gold": "a whole number (the index of the right choice)",
}

// jsonValue words the decoder's name for a JSON value ("string",
// "number 1.5", "array") for a message: jsonpos's words, but a boolean is
// "true or false" and a number is shown.
func jsonValue(v string) string {
	switch {
	case v == "bool":
		return "true or false"
	case strings.HasPrefix(v, "number "):
		return "the number " + strings.TrimPrefix(v, "number ")
	}
	return jsonpos.DecoderKind(v)
}

// readDocuments reads the bits-per-byte documents bpb/<name>.txt. Each file
// starts with header lines "key: value" (only "level" is known), then a
// blank line, then the text; trailing whitespace is not part of the text.
func readDocuments(dir fs.FS, s taskSpec) ([]Item, error) {
	names, err := fs.Glob(dir, "bpb/*.txt")
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, errors.New("bpb/: no documents (*.txt) for the bits-per-byte task")
	}
	sort.Strings(names)
	var out []Item
	var errs []error
	for _, name := range names {
		data, err := fs.ReadFile(dir, name)
		if err != nil {
			return nil, err
		}
		it, err := parseDocument(name, string(data))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, it)
	}
	if len(errs) == 0 && len(out) != s.Size {
		errs = append(errs, fmt.Errorf("bpb/ holds %d documents; task %s has %d (add the missing ones or change its size)", len(out), s.ID, s.Size))
	}
	return out, errors.Join(errs...)
}

func parseDocument(name, data string) (Item, error) {
	if i := strings.Index(data, "\r\n"); i >= 0 {
		line := strings.Count(data[:i], "\n") + 1
		return Item{}, fmt.Errorf("%s:%d: the file has Windows (CRLF) line endings; save it with LF line endings (the text is scored byte by byte)", name, line)
	}
	head, text, ok := strings.Cut(data, "\n\n")
	if !ok {
		return Item{}, fmt.Errorf("%s: no blank line after the header; start the file with \"level: N\", a blank line, then the text", name)
	}
	if strings.TrimSpace(head) == "" {
		return Item{}, fmt.Errorf("%s:1: the header is empty; start the file with \"level: N\", a blank line, then the text", name)
	}
	it := Item{
		ID:     "bpb-" + strings.TrimSuffix(path.Base(name), ".txt"),
		Text:   strings.TrimRight(text, " \t\r\n"),
		Source: name,
	}
	hasLevel := false
	for i, l := range strings.Split(head, "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			return Item{}, fmt.Errorf("%s:%d: header line %q is not \"key: value\"; write \"level: N\", a blank line, then the text", name, i+1, l)
		}
		switch strings.TrimSpace(k) {
		case "level":
			if hasLevel {
				return Item{}, fmt.Errorf("%s:%d: header \"level\" appears twice; keep one", name, i+1)
			}
			hasLevel = true
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return Item{}, fmt.Errorf("%s:%d: level %q is not a whole number", name, i+1, strings.TrimSpace(v))
			}
			it.Level = n
		default:
			return Item{}, fmt.Errorf("%s:%d: unknown header %q; the only header is level", name, i+1, strings.TrimSpace(k))
		}
	}
	return it, nil
}

// Package featherweight is the Featherweight v1 suite: its JSONL question
// format, the two prompt styles, the letter-extraction priority list, the
// content checks on items (Lint and the reply property, CheckReplies), the
// per-item records and the summary files. It speaks only harness/lm; the
// root test file wires models to it.
package featherweight

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/feather-eval/feather/internal/jsonpos"
)

// Letters are the four choice labels, in choice order.
var Letters = [4]string{"A", "B", "C", "D"}

// Item is one four-choice question.
type Item struct {
	ID       string    `json:"id"`
	Category string    `json:"category"`
	Question string    `json:"question"`
	Choices  [4]string `json:"choices"`
	// Answer is the 0-based index of the correct choice; the file may give
	// it as a letter or an index ("both are normalized identically").
	Answer int `json:"answer"`
	// Line is where the item is in its file, for messages.
	Line int `json:"-"`
}

// AnswerLetter is the correct choice's label.
func (it Item) AnswerLetter() string { return Letters[it.Answer] }

// Dataset is a loaded question file.
type Dataset struct {
	// Meta is the optional first-line header ({"_meta": true, ...}).
	Meta  map[string]any
	Items []Item
	Info  DataInfo
}

// DataInfo identifies the question file in results, so a reader can check
// which questions a score is over.
type DataInfo struct {
	File    string `json:"file"`
	SHA256  string `json:"sha256"`
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
	Items   int    `json:"items"`
}

// Load reads a Featherweight JSONL file.
func Load(path string) (*Dataset, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("featherweight data %s does not exist; pass a Featherweight v1 JSONL file with -fw.data", path)
		}
		return nil, fmt.Errorf("reading featherweight data: %w", err)
	}
	return Parse(path, data)
}

// Parse validates Featherweight JSONL. Every bad line is reported, each
// with the file name and line number; name is used only in messages.
func Parse(name string, data []byte) (*Dataset, error) {
	ds := &Dataset{}
	sum := sha256.Sum256(data)
	ds.Info = DataInfo{File: name, SHA256: hex.EncodeToString(sum[:])}

	if bytes.HasPrefix(data, utf8BOM) {
		return nil, fmt.Errorf("%s:1: the file starts with a UTF-8 byte order mark; save it as UTF-8 without one (JSONL readers such as Python's json reject it too)", name)
	}
	var errs []error
	fail := func(line int, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, args...)))
	}
	seen := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), len(data)+1)
	line, records := 0, 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue // blank lines, including a trailing one, carry nothing
		}
		records++
		var obj map[string]json.RawMessage
		if err := strictObject(text, &obj); err != nil {
			fail(line, "%v", err)
			continue
		}
		if key := duplicateKey(text); key != "" {
			fail(line, "duplicate field %q; JSON would keep only the last one, so remove one", key)
			continue
		}
		if raw, ok := obj["_meta"]; ok {
			if records != 1 {
				fail(line, `a "_meta" header is only allowed as the first line`)
				continue
			}
			if err := json.Unmarshal(text, &ds.Meta); err != nil {
				fail(line, "invalid header: %v", err)
			}
			if string(raw) != "true" {
				fail(line, `"_meta" must be true in the header line`)
			}
			ds.Info.Name, _ = ds.Meta["name"].(string)
			ds.Info.Version, _ = ds.Meta["version"].(string)
			continue
		}
		it, problems := decodeItem(obj)
		for _, p := range problems {
			fail(line, "%s", p)
		}
		if len(problems) > 0 {
			continue
		}
		it.Line = line
		if first, dup := seen[it.ID]; dup {
			fail(line, "duplicate id %q (first on line %d); ids must be unique", it.ID, first)
			continue
		}
		seen[it.ID] = line
		ds.Items = append(ds.Items, it)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(ds.Items) == 0 {
		return nil, fmt.Errorf("%s: no questions; each line after the optional header is an object such as %s", name, exampleItem)
	}
	ds.Info.Items = len(ds.Items)
	return ds, nil
}

const exampleItem = `{"id": "geo01", "category": "geography", "question": "...", "choices": ["...", "...", "...", "..."], "answer": "A"}`

var utf8BOM = []byte("\xef\xbb\xbf")

// duplicateKey returns the first key repeated in a line's object, which
// decoding would silently collapse to its last value ("" when none).
func duplicateKey(text []byte) string {
	ms, err := jsonpos.Members("", text)
	if err != nil {
		return ""
	}
	if i, _ := jsonpos.Repeat(ms); i >= 0 {
		return ms[i].Key
	}
	return ""
}

// strictObject decodes one line that must be a single JSON object.
func strictObject(text []byte, obj *map[string]json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(text))
	if err := dec.Decode(obj); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("each line must be a JSON object, not a JSON %s", te.Value)
		}
		return fmt.Errorf("invalid JSON: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	if *obj == nil {
		return errors.New("each line must be a JSON object, not null")
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("invalid JSON: more than one value on the line (one question per line)")
	}
	return nil
}

// decodeItem checks one question record and lists every problem in it.
func decodeItem(obj map[string]json.RawMessage) (Item, []string) {
	var it Item
	var problems []string
	str := func(field string, dst *string) {
		raw, ok := obj[field]
		if !ok {
			problems = append(problems, fmt.Sprintf("missing field %q", field))
			return
		}
		if err := json.Unmarshal(raw, dst); err != nil || string(raw) == "null" {
			problems = append(problems, fmt.Sprintf("field %q must be a string", field))
			return
		}
		if strings.TrimSpace(*dst) == "" {
			problems = append(problems, fmt.Sprintf("field %q is empty", field))
		}
	}
	str("id", &it.ID)
	str("category", &it.Category)
	str("question", &it.Question)

	if raw, ok := obj["choices"]; !ok {
		problems = append(problems, `missing field "choices"`)
	} else {
		var choices []string
		if err := json.Unmarshal(raw, &choices); err != nil {
			problems = append(problems, `field "choices" must be a list of four strings`)
		} else if len(choices) != 4 {
			problems = append(problems, fmt.Sprintf(`field "choices" has %d entries; Featherweight items have exactly 4 (A-D)`, len(choices)))
		} else {
			for i, c := range choices {
				it.Choices[i] = c
				if strings.TrimSpace(c) == "" {
					problems = append(problems, fmt.Sprintf("choice %s is empty", Letters[i]))
				}
			}
			for i := range choices {
				for j := i + 1; j < len(choices); j++ {
					if choices[i] != "" && strings.EqualFold(strings.TrimSpace(choices[i]), strings.TrimSpace(choices[j])) {
						problems = append(problems, fmt.Sprintf("choices %s and %s are the same text %q; each item needs one defensible answer", Letters[i], Letters[j], choices[i]))
					}
				}
			}
		}
	}

	if raw, ok := obj["answer"]; !ok {
		problems = append(problems, `missing field "answer"`)
	} else if idx, err := parseAnswer(raw); err != nil {
		problems = append(problems, err.Error())
	} else {
		it.Answer = idx
	}
	return it, problems
}

// parseAnswer accepts a letter "A"-"D" or an index 0-3, the two forms the
// v1 format allows.
func parseAnswer(raw json.RawMessage) (int, error) {
	if string(raw) == "null" {
		return 0, errors.New(`"answer" is null: want a letter A-D or a 0-based index 0-3`)
	}
	var letter string
	if json.Unmarshal(raw, &letter) == nil {
		for i, l := range Letters {
			if letter == l {
				return i, nil
			}
		}
		return 0, fmt.Errorf(`"answer" %q is out of range: want a letter A-D or a 0-based index 0-3`, letter)
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&n) == nil {
		i, err := n.Int64()
		if err != nil || i < 0 || i > 3 {
			return 0, fmt.Errorf(`"answer" %s is out of range: want a letter A-D or a 0-based index 0-3`, n)
		}
		return int(i), nil
	}
	return 0, fmt.Errorf(`"answer" must be a letter A-D or a 0-based index 0-3, not %s`, raw)
}

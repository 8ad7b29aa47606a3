package microbench

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// Reduction turns a choice's log-likelihood into the value compared across
// the choices of an item; the highest value is the prediction.
type Reduction string

const (
	// Sum compares summed natural-log probabilities of the continuations.
	Sum Reduction = "sum"
	// MeanByte divides the summed log-probability by the continuation's UTF-8
	// bytes (its leading space included), so a longer string is not punished.
	MeanByte Reduction = "mean_byte"
	// PMI subtracts the log-probability of the same continuation under the
	// task's null context, so a word that is frequent in general does not
	// win for being frequent.
	PMI Reduction = "pmi"
	// BitsPerByte marks the task scored by rolling log-likelihood of text
	// instead of choices.
	BitsPerByte Reduction = "bits_per_byte"
)

// ContinuationPrefix joins context and choice: the scored continuation of
// choice c is ContinuationPrefix + c. The space belongs to the
// continuation, so contexts never end with whitespace and choices never
// start with it.
const ContinuationPrefix = " "

// NullContext is the null context of every pmi task: the answer stub that
// ends their prompts ("...\nAnswer:"), so the null log-probability measures
// how likely the answer word is in that slot with the question removed.
const NullContext = "Answer:"

// Item is one benchmark item. A choice item has a Context and Choices; a
// bits-per-byte document has Text only.
type Item struct {
	ID      string   `json:"id"`
	Level   int      `json:"level"`
	Group   string   `json:"group,omitempty"`
	Context string   `json:"context,omitempty"`
	Choices []string `json:"choices,omitempty"`
	Gold    int      `json:"gold"`
	Text    string   `json:"text,omitempty"`
	// Source is "generated" or the hand-written file the item came from.
	Source string `json:"source"`
}

// Continuation is the text scored for choice i.
func (it Item) Continuation(i int) string { return ContinuationPrefix + it.Choices[i] }

// Task is one of the 18 tasks.
type Task struct {
	ID        string
	Domain    string
	Name      string
	Reduction Reduction
	// Grouped tasks score contrast pairs: items sharing a Group are one
	// unit, right only when every member is right.
	Grouped bool
	// Levels describes each difficulty level items may declare.
	Levels map[int]string
	// About says, in a sentence, what the task measures and how it is built.
	About string
	Items []Item
}

// IsBPB reports whether the task is the bits-per-byte task.
func (t *Task) IsBPB() bool { return t.Reduction == BitsPerByte }

// Null is the task's null context ("" unless the reduction is pmi).
func (t *Task) Null() string {
	if t.Reduction == PMI {
		return NullContext
	}
	return ""
}

// LevelIDs lists the declared levels in order.
func (t *Task) LevelIDs() []int {
	out := make([]int, 0, len(t.Levels))
	for l := range t.Levels {
		out = append(out, l)
	}
	sort.Ints(out)
	return out
}

// Unit is one scored unit: a contrast pair (Group set) or a single item.
type Unit struct {
	Group   string
	Members []int // indexes into the item slice the units were built from
}

// Units groups items into scoring units in first-appearance order: on a
// grouped task items sharing a Group form one unit; every other item is a
// unit of its own.
func Units(items []Item, grouped bool) []Unit {
	var out []Unit
	at := map[string]int{}
	for i, it := range items {
		if grouped && it.Group != "" {
			if u, ok := at[it.Group]; ok {
				out[u].Members = append(out[u].Members, i)
				continue
			}
			at[it.Group] = len(out)
			out = append(out, Unit{Group: it.Group, Members: []int{i}})
			continue
		}
		out = append(out, Unit{Members: []int{i}})
	}
	return out
}

// Chance is the accuracy of uniform random guessing over the given items:
// the mean over units of the probability that every member of the unit is
// guessed right (the product of 1/k over its members, k its number of
// choices). With one item per unit and k fixed it is 1/k; where k varies it
// is the mean of 1/k; for a contrast pair of two-choice items it is 1/4.
func Chance(items []Item, grouped bool) float64 {
	units := Units(items, grouped)
	if len(units) == 0 {
		return 0
	}
	sum := 0.0
	for _, u := range units {
		p := 1.0
		for _, m := range u.Members {
			p /= float64(len(items[m].Choices))
		}
		sum += p
	}
	return sum / float64(len(units))
}

// Validate checks every item of the task: ids unique and usable as subtest
// names, levels declared, at least two distinct non-empty choices with no
// surrounding whitespace, gold in range, contexts that do not end in
// whitespace, and, on grouped tasks, complete contrast pairs whose members
// share a level. Messages name the task, the item and its source.
func (t *Task) Validate() error {
	var errs []error
	seen := map[string]bool{}
	for _, it := range t.Items {
		if err := t.validateItem(it); err != nil {
			errs = append(errs, fmt.Errorf("task %s, item %s (%s): %w", t.ID, it.ID, it.Source, err))
		}
		if seen[it.ID] {
			errs = append(errs, fmt.Errorf("task %s: item id %q appears twice (%s); ids must be unique", t.ID, it.ID, it.Source))
		}
		seen[it.ID] = true
	}
	if t.Grouped {
		for _, u := range Units(t.Items, true) {
			if u.Group == "" {
				continue
			}
			if len(u.Members) < 2 {
				it := t.Items[u.Members[0]]
				errs = append(errs, fmt.Errorf("task %s: contrast group %q has one member (%s) at %s; a pair needs both items: add its partner with the same group, or fix the group name", t.ID, u.Group, it.ID, it.Source))
				continue
			}
			l := t.Items[u.Members[0]].Level
			for _, m := range u.Members[1:] {
				if t.Items[m].Level != l {
					errs = append(errs, fmt.Errorf("task %s: contrast group %q mixes levels %d and %d (%s at %s); members of a pair share a level", t.ID, u.Group, l, t.Items[m].Level, t.Items[m].ID, t.Items[m].Source))
					break
				}
			}
		}
	}
	if len(t.Items) == 0 {
		errs = append(errs, fmt.Errorf("task %s has no items", t.ID))
	}
	return errors.Join(errs...)
}

func (t *Task) validateItem(it Item) error {
	if err := checkID(it.ID); err != nil {
		return err
	}
	if _, ok := t.Levels[it.Level]; !ok {
		return fmt.Errorf("level %d is not declared by the task (declared: %v)", it.Level, t.LevelIDs())
	}
	if it.Group != "" && !t.Grouped {
		return fmt.Errorf("field \"group\" is set to %q but task %s does not use group accuracy; remove it", it.Group, t.ID)
	}
	if t.IsBPB() {
		if strings.TrimSpace(it.Text) == "" {
			return errors.New("the document text is empty; write it after the blank line that ends the header")
		}
		if it.Context != "" || len(it.Choices) > 0 {
			return errors.New("a bits-per-byte document has text only, no context or choices")
		}
		return nil
	}
	if it.Text != "" {
		return errors.New("field \"text\" belongs to bits-per-byte documents; a choice item has context and choices")
	}
	if strings.TrimSpace(it.Context) == "" {
		return errors.New("field \"context\" is empty")
	}
	if last := []rune(it.Context); unicode.IsSpace(last[len(last)-1]) {
		return errors.New("field \"context\" ends with whitespace; the space before an answer belongs to the continuation, so remove it")
	}
	if len(it.Choices) < 2 {
		return fmt.Errorf("field \"choices\" has %d entries; an item needs at least two", len(it.Choices))
	}
	dup := map[string]int{}
	for i, c := range it.Choices {
		switch {
		case c == "":
			return fmt.Errorf("choice %d is empty", i)
		case strings.TrimSpace(c) != c:
			return fmt.Errorf("choice %d %q has surrounding whitespace; write the bare answer (the scorer adds the leading space)", i, c)
		}
		if j, ok := dup[c]; ok {
			return fmt.Errorf("choices %d and %d are both %q; choices must be distinct", j, i, c)
		}
		dup[c] = i
	}
	if it.Gold < 0 || it.Gold >= len(it.Choices) {
		return fmt.Errorf("field \"gold\" is %d but the item has %d choices (valid: 0 to %d)", it.Gold, len(it.Choices), len(it.Choices)-1)
	}
	if t.Grouped && it.Group == "" {
		return errors.New("field \"group\" is missing; every item of a contrast-pair task belongs to a pair")
	}
	return nil
}

// checkID keeps ids usable as subtest names and in -run patterns.
func checkID(id string) error {
	if id == "" {
		return errors.New("field \"id\" is empty")
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("id %q: use lowercase letters, digits, '-', '_' or '.' (ids name subtests)", id)
		}
	}
	return nil
}

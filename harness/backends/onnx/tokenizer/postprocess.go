package tokenizer

import (
	"encoding/json"
	"fmt"
)

// postProcessor adds a model's special tokens around an encoded sequence
// when asked to (add_special_tokens).
type postProcessor interface {
	process(ids []int, addSpecial bool) []int
}

// template is TemplateProcessing's single-sequence template: each piece is
// either the sequence (nil) or the ids of a special token.
type template [][]int

func (t template) process(ids []int, addSpecial bool) []int {
	if !addSpecial {
		return ids
	}
	n := len(ids)
	for _, p := range t {
		n += len(p)
	}
	out := make([]int, 0, n)
	for _, p := range t {
		if p == nil {
			out = append(out, ids...)
		} else {
			out = append(out, p...)
		}
	}
	return out
}

// passThrough is the ByteLevel post-processor: it only trims offsets,
// which Encode does not return.
type passThrough struct{}

func (passThrough) process(ids []int, _ bool) []int { return ids }

type postProcessorSeq []postProcessor

func (q postProcessorSeq) process(ids []int, addSpecial bool) []int {
	for _, p := range q {
		ids = p.process(ids, addSpecial)
	}
	return ids
}

type postProcessorJSON struct {
	Type          string                `json:"type"`
	Single        []templatePieceJSON   `json:"single"`
	SpecialTokens map[string]specialIDs `json:"special_tokens"`
	Processors    []json.RawMessage     `json:"processors"`
	Cls           json.RawMessage       `json:"cls"`
	Sep           json.RawMessage       `json:"sep"`
}

type templatePieceJSON struct {
	SpecialToken *struct {
		ID string `json:"id"`
	} `json:"SpecialToken"`
	Sequence *struct {
		ID string `json:"id"`
	} `json:"Sequence"`
}

type specialIDs struct {
	IDs []int `json:"ids"`
}

func parsePostProcessor(raw json.RawMessage, path string) (postProcessor, error) {
	if isNull(raw) {
		return nil, nil
	}
	var c postProcessorJSON
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	switch c.Type {
	case "TemplateProcessing":
		t := make(template, 0, len(c.Single))
		for i, p := range c.Single {
			switch {
			case p.Sequence != nil:
				t = append(t, nil)
			case p.SpecialToken != nil:
				st, ok := c.SpecialTokens[p.SpecialToken.ID]
				if !ok {
					return nil, fmt.Errorf("%s.single[%d]: special token %q is missing from %s.special_tokens", path, i, p.SpecialToken.ID, path)
				}
				t = append(t, append([]int{}, st.IDs...))
			default:
				return nil, fmt.Errorf("%s.single[%d]: want {\"Sequence\": ...} or {\"SpecialToken\": ...}", path, i)
			}
		}
		return t, nil
	case "ByteLevel":
		return passThrough{}, nil
	case "RobertaProcessing", "BertProcessing":
		cls, err := tokenIDPair(c.Cls, path+".cls")
		if err != nil {
			return nil, err
		}
		sep, err := tokenIDPair(c.Sep, path+".sep")
		if err != nil {
			return nil, err
		}
		return template{{cls}, nil, {sep}}, nil
	case "Sequence":
		seq := make(postProcessorSeq, 0, len(c.Processors))
		for i, r := range c.Processors {
			p, err := parsePostProcessor(r, fmt.Sprintf("%s.processors[%d]", path, i))
			if err != nil {
				return nil, err
			}
			if p != nil {
				seq = append(seq, p)
			}
		}
		return seq, nil
	}
	return nil, unsupported(path, c.Type, "TemplateProcessing, ByteLevel, RobertaProcessing, BertProcessing, Sequence")
}

// tokenIDPair reads ["<s>", 0].
func tokenIDPair(raw json.RawMessage, path string) (int, error) {
	var pair []json.RawMessage
	var id int
	if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 || json.Unmarshal(pair[1], &id) != nil {
		return 0, fmt.Errorf("%s: want [token, id], got %s", path, string(raw))
	}
	return id, nil
}

package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// split is one piece of pre-tokenized text. first marks the piece that
// begins at the start of the input (Metaspace's prepend_scheme "first"
// prepends only there). raw marks text still to be mapped to the
// byte-level alphabet: a final ByteLevel stage leaves that to the model,
// whose cache is then keyed by the raw bytes.
type split struct {
	text  string
	first bool
	raw   bool
}

// preTokenizer is one stage: it appends the pieces of every split in in
// to out (empty pieces vanish) and returns out. A Sequence is flattened
// into its stages when parsed.
type preTokenizer interface {
	preTokenize(sc *scratch, in, out []split) []split
}

// cut appends the non-empty pieces ranges gives for each split; a piece
// is first when it starts its first parent.
func cut(in, out []split, ranges func(s string) [][2]int) []split {
	for _, sp := range in {
		for _, r := range ranges(sp.text) {
			if r[0] < r[1] {
				out = append(out, split{text: sp.text[r[0]:r[1]], first: sp.first && r[0] == 0})
			}
		}
	}
	return out
}

// byteLevel optionally splits with the GPT-2 pattern, then maps bytes to
// the byte-level alphabet (or leaves that to the model when last).
type byteLevel struct {
	addPrefixSpace bool
	pattern        scanMatcher // nil when use_regex is false
	last           bool        // no stage follows: emit raw splits
}

func (b byteLevel) preTokenize(sc *scratch, in, out []split) []split {
	for _, sp := range in {
		text := sp.text
		if b.addPrefixSpace && !strings.HasPrefix(text, " ") {
			text = " " + text
		}
		if b.pattern == nil {
			out = append(out, b.piece(text, sp.first))
			continue
		}
		// The pattern matches everywhere, so its matches are the pieces.
		for i := 0; i < len(text); {
			n := b.pattern(text, i)
			out = append(out, b.piece(text[i:i+n], sp.first && i == 0))
			i += n
		}
	}
	return out
}

func (b byteLevel) piece(text string, first bool) split {
	if b.last {
		return split{text: text, first: first, raw: true}
	}
	return split{text: byteLevelEncode(text), first: first}
}

type splitPre struct {
	pattern  matcher
	behavior behavior
	invert   bool
}

func (p splitPre) preTokenize(sc *scratch, in, out []split) []split {
	if scan, ok := p.pattern.(scanMatcher); ok && p.behavior == isolated && !p.invert {
		// Fast path: a scanner's matches tile the text.
		for _, sp := range in {
			for i := 0; i < len(sp.text); {
				n := scan(sp.text, i)
				out = append(out, split{text: sp.text[i : i+n], first: sp.first && i == 0})
				i += n
			}
		}
		return out
	}
	return cut(in, out, func(s string) [][2]int { return splitBy(sc, p.pattern, s, p.behavior, p.invert) })
}

// digits isolates every numeric rune, or runs of them.
type digits struct{ individual bool }

func (d digits) preTokenize(sc *scratch, in, out []split) []split {
	b := contiguous
	if d.individual {
		b = isolated
	}
	return cut(in, out, func(s string) [][2]int { return splitBy(sc, runePredicate(unicode.IsNumber), s, b, false) })
}

// metaspace replaces spaces with the replacement rune, prepends one as
// its scheme says, and splits before each replacement rune.
type metaspace struct {
	replacement string
	scheme      string // "always", "first" or "never"
	split       bool
}

func (m metaspace) preTokenize(sc *scratch, in, out []split) []split {
	for _, sp := range in {
		t := strings.ReplaceAll(sp.text, " ", m.replacement)
		if !strings.HasPrefix(t, m.replacement) && (m.scheme == "always" || (m.scheme == "first" && sp.first)) {
			t = m.replacement + t
		}
		if !m.split {
			if t != "" {
				out = append(out, split{text: t, first: sp.first})
			}
			continue
		}
		out = cut([]split{{text: t, first: sp.first}}, out, func(s string) [][2]int {
			return splitBy(sc, literal(m.replacement), s, mergedWithNext, false)
		})
	}
	return out
}

// whitespace keeps runs of word characters and runs of other non-space
// characters (Rust's \w+|[^\w\s]+).
type whitespace struct{}

func (whitespace) preTokenize(sc *scratch, in, out []split) []split {
	return cut(in, out, func(s string) [][2]int {
		ranges := sc.ranges[:0]
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			if isS(r) {
				i += n
				continue
			}
			word := isWordRune(r)
			j := i + n
			for j < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[j:])
				if isS(r2) || isWordRune(r2) != word {
					break
				}
				j += n2
			}
			ranges = append(ranges, [2]int{i, j})
			i = j
		}
		sc.ranges = ranges
		return ranges
	})
}

type whitespaceSplit struct{}

func (whitespaceSplit) preTokenize(sc *scratch, in, out []split) []split {
	return cut(in, out, func(s string) [][2]int { return splitBy(sc, runePredicate(isS), s, removed, false) })
}

type punctuation struct{ behavior behavior }

func (p punctuation) preTokenize(sc *scratch, in, out []split) []split {
	return cut(in, out, func(s string) [][2]int { return splitBy(sc, runePredicate(isPunct), s, p.behavior, false) })
}

// stages is a flattened pre-tokenizer Sequence.
type stages []preTokenizer

// run pre-tokenizes one piece of text through every stage, ping-ponging
// between the scratch buffers; the result lives in sc until the next run.
func (q stages) run(sc *scratch, text string, first bool) []split {
	cur := append(sc.splits[0][:0], split{text: text, first: first})
	next := sc.splits[1][:0]
	for _, p := range q {
		next = p.preTokenize(sc, cur, next[:0])
		cur, next = next, cur
	}
	sc.splits[0], sc.splits[1] = cur, next
	return cur
}

// isWordRune is Rust regex's Unicode \w.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_Alphabetic, r) ||
		unicode.IsMark(r) || unicode.Is(unicode.Nd, r) || unicode.Is(unicode.Pc, r) ||
		r == 0x200C || r == 0x200D
}

// isPunct is ASCII punctuation or any Unicode P* rune.
func isPunct(r rune) bool {
	if r < utf8.RuneSelf {
		return (r >= '!' && r <= '/') || (r >= ':' && r <= '@') || (r >= '[' && r <= '`') || (r >= '{' && r <= '~')
	}
	return unicode.IsPunct(r)
}

type preTokenizerJSON struct {
	Type             string            `json:"type"`
	Pretokenizers    []json.RawMessage `json:"pretokenizers"`
	AddPrefixSpace   *bool             `json:"add_prefix_space"`
	UseRegex         *bool             `json:"use_regex"`
	Pattern          json.RawMessage   `json:"pattern"`
	Behavior         string            `json:"behavior"`
	Invert           bool              `json:"invert"`
	IndividualDigits bool              `json:"individual_digits"`
	Replacement      *string           `json:"replacement"`
	PrependScheme    string            `json:"prepend_scheme"`
	Split            *bool             `json:"split"`
}

// parsePreTokenizers reads the pre_tokenizer field into flat stages; the
// last ByteLevel stage leaves byte mapping to the model.
func parsePreTokenizers(raw json.RawMessage, path string) (stages, error) {
	var q stages
	if err := parsePreTokenizer(raw, path, &q); err != nil {
		return nil, err
	}
	if len(q) > 0 {
		if b, ok := q[len(q)-1].(byteLevel); ok {
			b.last = true
			q[len(q)-1] = b
		}
	}
	return q, nil
}

// parsePreTokenizer appends the stages of one pre-tokenizer to q.
func parsePreTokenizer(raw json.RawMessage, path string, q *stages) error {
	p, err := parseOnePreTokenizer(raw, path, q)
	if p != nil {
		*q = append(*q, p)
	}
	return err
}

func parseOnePreTokenizer(raw json.RawMessage, path string, q *stages) (preTokenizer, error) {
	if isNull(raw) {
		return nil, nil
	}
	var c preTokenizerJSON
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	switch c.Type {
	case "ByteLevel":
		b := byteLevel{addPrefixSpace: orTrue(c.AddPrefixSpace)}
		if orTrue(c.UseRegex) {
			b.pattern = fastScanner(gpt2Pattern)
		}
		return b, nil
	case "Split":
		m, err := parsePattern(c.Pattern, path+".pattern")
		if err != nil {
			return nil, err
		}
		b, err := parseBehavior(c.Behavior, path+".behavior")
		if err != nil {
			return nil, err
		}
		return splitPre{m, b, c.Invert}, nil
	case "Digits":
		return digits{c.IndividualDigits}, nil
	case "Metaspace":
		m, err := parseMetaspace(c.Replacement, c.PrependScheme, c.AddPrefixSpace, c.Split, path)
		if err != nil {
			return nil, err
		}
		return metaspace{m.replacement, m.scheme, m.split}, nil
	case "Whitespace":
		return whitespace{}, nil
	case "WhitespaceSplit":
		return whitespaceSplit{}, nil
	case "Punctuation":
		b := isolated
		if c.Behavior != "" {
			var err error
			if b, err = parseBehavior(c.Behavior, path+".behavior"); err != nil {
				return nil, err
			}
		}
		return punctuation{b}, nil
	case "Sequence":
		// Each stage maps over all pieces, so a nested Sequence is the same
		// as its stages inline.
		for i, r := range c.Pretokenizers {
			if err := parsePreTokenizer(r, fmt.Sprintf("%s.pretokenizers[%d]", path, i), q); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	return nil, unsupported(path, c.Type, "ByteLevel, Split, Digits, Metaspace, Whitespace, WhitespaceSplit, Punctuation, Sequence")
}

type metaspaceConfig struct {
	replacement string
	scheme      string
	split       bool
}

// parseMetaspace reads the fields the pre-tokenizer and the decoder share.
// Files older than prepend_scheme say add_prefix_space instead.
func parseMetaspace(replacement *string, scheme string, addPrefixSpace, split *bool, path string) (metaspaceConfig, error) {
	m := metaspaceConfig{replacement: "\u2581", scheme: scheme, split: orTrue(split)}
	if replacement != nil {
		if utf8.RuneCountInString(*replacement) != 1 {
			return m, fmt.Errorf("%s.replacement: want one character, got %q", path, *replacement)
		}
		m.replacement = *replacement
	}
	switch scheme {
	case "always", "first", "never":
	case "":
		m.scheme = "always"
		if addPrefixSpace != nil && !*addPrefixSpace {
			m.scheme = "never"
		}
	default:
		return m, fmt.Errorf("%s.prepend_scheme: unknown value %q (want first, always or never)", path, scheme)
	}
	return m, nil
}

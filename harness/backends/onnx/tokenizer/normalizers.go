package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// normalizer rewrites a piece of input text before pre-tokenization.
type normalizer interface {
	normalize(s string) string
}

type unicodeForm struct{ form norm.Form }

func (u unicodeForm) normalize(s string) string { return u.form.String(s) }

// lowercase maps rune by rune with the full (unconditional) Unicode
// lowercase mapping, as Rust's char::to_lowercase does: no final-sigma
// context, and İ becomes i + combining dot.
type lowercase struct{}

func (lowercase) normalize(s string) string {
	return strings.Map(unicode.ToLower, strings.ReplaceAll(s, "\u0130", "i\u0307"))
}

// prepend adds its text in front of non-empty input only.
type prepend struct{ text string }

func (p prepend) normalize(s string) string {
	if s == "" {
		return s
	}
	return p.text + s
}

type replace struct {
	pattern matcher
	content string
}

func (r replace) normalize(s string) string {
	ms := r.pattern.find(nil, s)
	if len(ms) == 0 {
		return s
	}
	var b strings.Builder
	prev := 0
	for _, m := range ms {
		b.WriteString(s[prev:m[0]])
		b.WriteString(r.content)
		prev = m[1]
	}
	b.WriteString(s[prev:])
	return b.String()
}

// strip trims Unicode White_Space from either end.
type strip struct{ left, right bool }

func (st strip) normalize(s string) string {
	if st.left {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
	}
	if st.right {
		s = strings.TrimRightFunc(s, unicode.IsSpace)
	}
	return s
}

type normalizerSeq []normalizer

func (q normalizerSeq) normalize(s string) string {
	for _, n := range q {
		s = n.normalize(s)
	}
	return s
}

type normalizerJSON struct {
	Type        string            `json:"type"`
	Normalizers []json.RawMessage `json:"normalizers"`
	Prepend     string            `json:"prepend"`
	Pattern     json.RawMessage   `json:"pattern"`
	Content     string            `json:"content"`
	StripLeft   *bool             `json:"strip_left"`
	StripRight  *bool             `json:"strip_right"`
}

// parseNormalizer reads one normalizer; path names it in errors
// (e.g. "normalizer.normalizers[1]"). A JSON null means none.
func parseNormalizer(raw json.RawMessage, path string) (normalizer, error) {
	if isNull(raw) {
		return nil, nil
	}
	var c normalizerJSON
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	switch c.Type {
	case "NFC":
		return unicodeForm{norm.NFC}, nil
	case "NFD":
		return unicodeForm{norm.NFD}, nil
	case "NFKC":
		return unicodeForm{norm.NFKC}, nil
	case "NFKD":
		return unicodeForm{norm.NFKD}, nil
	case "Lowercase":
		return lowercase{}, nil
	case "Prepend":
		return prepend{c.Prepend}, nil
	case "Replace":
		m, err := parsePattern(c.Pattern, path+".pattern")
		if err != nil {
			return nil, err
		}
		return replace{m, c.Content}, nil
	case "Strip":
		return strip{left: orTrue(c.StripLeft), right: orTrue(c.StripRight)}, nil
	case "Sequence":
		seq := make(normalizerSeq, 0, len(c.Normalizers))
		for i, r := range c.Normalizers {
			n, err := parseNormalizer(r, fmt.Sprintf("%s.normalizers[%d]", path, i))
			if err != nil {
				return nil, err
			}
			if n != nil {
				seq = append(seq, n)
			}
		}
		return seq, nil
	}
	return nil, unsupported(path, c.Type, "NFC, NFD, NFKC, NFKD, Lowercase, Prepend, Replace, Strip, Sequence")
}

func orTrue(b *bool) bool { return b == nil || *b }

func unsupported(path, typ, supported string) error {
	if typ == "" {
		return fmt.Errorf("%s: missing \"type\" (supported: %s)", path, supported)
	}
	return fmt.Errorf("%s: unsupported type %q (supported: %s)", path, typ, supported)
}

func isNull(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}

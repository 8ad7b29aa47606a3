package tokenizer

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// decoder rewrites the list of token strings on the way back to text; the
// result is joined with no separator.
type decoder interface {
	decodeChain(tokens []string) []string
}

// byteLevelDecoder turns byte-level characters back into bytes. A token
// with any character outside the alphabet is kept as its UTF-8 bytes.
// Invalid UTF-8 becomes U+FFFD per maximal invalid sequence.
type byteLevelDecoder struct{}

func (byteLevelDecoder) decodeChain(tokens []string) []string {
	var buf []byte
	for _, t := range tokens {
		start := len(buf)
		ok := true
		for _, r := range t {
			b, in := runeToByte[r]
			if !in {
				ok = false
				break
			}
			buf = append(buf, b)
		}
		if !ok {
			buf = append(buf[:start], t...)
		}
	}
	return []string{lossyUTF8(buf)}
}

// byteFallback turns runs of <0xXX> tokens back into text; a run that is
// not valid UTF-8 becomes one U+FFFD per byte.
type byteFallback struct{}

func (byteFallback) decodeChain(tokens []string) []string {
	out := make([]string, 0, len(tokens))
	var pending []byte
	flush := func() {
		if len(pending) == 0 {
			return
		}
		if utf8.Valid(pending) {
			out = append(out, string(pending))
		} else {
			for range pending {
				out = append(out, "\uFFFD")
			}
		}
		pending = pending[:0]
	}
	for _, t := range tokens {
		if b, ok := byteToken(t); ok {
			pending = append(pending, b)
			continue
		}
		flush()
		out = append(out, t)
	}
	flush()
	return out
}

// byteToken parses "<0xXX>".
func byteToken(t string) (byte, bool) {
	if len(t) != 6 || !strings.HasPrefix(t, "<0x") || t[5] != '>' {
		return 0, false
	}
	v, err := strconv.ParseUint(t[3:5], 16, 8)
	return byte(v), err == nil
}

type fuse struct{}

func (fuse) decodeChain(tokens []string) []string { return []string{strings.Join(tokens, "")} }

// stripDecoder removes up to start leading and stop trailing copies of
// content from every token.
type stripDecoder struct {
	content     rune
	start, stop int
}

func (s stripDecoder) decodeChain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		rs := []rune(t)
		lo := 0
		for lo < s.start && lo < len(rs) && rs[lo] == s.content {
			lo++
		}
		hi := len(rs)
		for k := 0; k < s.stop && hi > lo && rs[hi-1] == s.content; k++ {
			hi--
		}
		out[i] = string(rs[lo:hi])
	}
	return out
}

type replaceDecoder struct{ r replace }

func (d replaceDecoder) decodeChain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		out[i] = d.r.normalize(t)
	}
	return out
}

// metaspaceDecoder turns the replacement rune back into spaces, dropping
// it from the first token when the encoder prepends one.
type metaspaceDecoder struct {
	replacement rune
	prepends    bool
}

func (m metaspaceDecoder) decodeChain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		var b strings.Builder
		for _, r := range t {
			switch {
			case r != m.replacement:
				b.WriteRune(r)
			case i == 0 && m.prepends:
			default:
				b.WriteByte(' ')
			}
		}
		out[i] = b.String()
	}
	return out
}

type decoderSeq []decoder

func (q decoderSeq) decodeChain(tokens []string) []string {
	for _, d := range q {
		tokens = d.decodeChain(tokens)
	}
	return tokens
}

type decoderJSON struct {
	Type           string            `json:"type"`
	Decoders       []json.RawMessage `json:"decoders"`
	Pattern        json.RawMessage   `json:"pattern"`
	Content        string            `json:"content"`
	Start          int               `json:"start"`
	Stop           int               `json:"stop"`
	Replacement    *string           `json:"replacement"`
	PrependScheme  string            `json:"prepend_scheme"`
	AddPrefixSpace *bool             `json:"add_prefix_space"`
	Split          *bool             `json:"split"`
}

func parseDecoder(raw json.RawMessage, path string) (decoder, error) {
	if isNull(raw) {
		return nil, nil
	}
	var c decoderJSON
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	switch c.Type {
	case "ByteLevel":
		return byteLevelDecoder{}, nil
	case "ByteFallback":
		return byteFallback{}, nil
	case "Fuse":
		return fuse{}, nil
	case "Strip":
		if utf8.RuneCountInString(c.Content) != 1 {
			return nil, fmt.Errorf("%s.content: want one character, got %q", path, c.Content)
		}
		if c.Start < 0 || c.Stop < 0 {
			return nil, fmt.Errorf("%s: start and stop must not be negative", path)
		}
		r, _ := utf8.DecodeRuneInString(c.Content)
		return stripDecoder{r, c.Start, c.Stop}, nil
	case "Replace":
		m, err := parsePattern(c.Pattern, path+".pattern")
		if err != nil {
			return nil, err
		}
		return replaceDecoder{replace{m, c.Content}}, nil
	case "Metaspace":
		m, err := parseMetaspace(c.Replacement, c.PrependScheme, c.AddPrefixSpace, c.Split, path)
		if err != nil {
			return nil, err
		}
		r, _ := utf8.DecodeRuneInString(m.replacement)
		return metaspaceDecoder{r, m.scheme != "never"}, nil
	case "Sequence":
		seq := make(decoderSeq, 0, len(c.Decoders))
		for i, r := range c.Decoders {
			d, err := parseDecoder(r, fmt.Sprintf("%s.decoders[%d]", path, i))
			if err != nil {
				return nil, err
			}
			if d != nil {
				seq = append(seq, d)
			}
		}
		return seq, nil
	}
	return nil, unsupported(path, c.Type, "ByteLevel, ByteFallback, Fuse, Strip, Replace, Metaspace, Sequence")
}

// LossyUTF8 is text decoded from bytes the way Hugging Face decoders do
// it, for detokenizers that return raw bytes (llama.cpp's): see lossyUTF8.
func LossyUTF8(b []byte) string { return lossyUTF8(b) }

// lossyUTF8 decodes b, replacing each maximal ill-formed subsequence with
// one U+FFFD: the Unicode-recommended practice that Rust's
// String::from_utf8_lossy and WHATWG decoders follow (Go's own conversion
// replaces byte by byte).
func lossyUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || n > 1 {
			out = append(out, b[i:i+n]...)
			i += n
			continue
		}
		i += maximalSubpart(b[i:])
		out = append(out, "\uFFFD"...)
	}
	return string(out)
}

// maximalSubpart is the length of the longest prefix of b that starts a
// well-formed sequence (at least 1), per Unicode table 3-7.
func maximalSubpart(b []byte) int {
	c := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		need, hi = 2, 0x9F
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	n := 1
	for k := 0; k < need && n < len(b); k++ {
		x := b[n]
		if x < lo || x > hi {
			break
		}
		lo, hi = 0x80, 0xBF
		n++
	}
	return n
}

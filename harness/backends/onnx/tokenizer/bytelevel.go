package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// GPT-2's byte-to-unicode table: printable Latin-1 bytes stand for
// themselves, the other 68 bytes are shifted to U+0100 and up, so every
// byte is one visible character and BPE never sees spaces or controls.
var (
	byteToRune [256]rune
	runeToByte = map[rune]byte{}
	// byteToStr[b] is string(byteToRune[b]), kept to avoid re-encoding.
	byteToStr [256]string
)

func init() {
	n := rune(0)
	for b := 0; b < 256; b++ {
		printable := (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
		r := rune(b)
		if !printable {
			r = 256 + n
			n++
		}
		byteToRune[b] = r
		runeToByte[r] = byte(b)
		byteToStr[b] = string(r)
	}
}

// byteLevelEncode maps every byte of s to its byte-level character.
func byteLevelEncode(s string) string {
	buf := make([]byte, 0, len(s)*2)
	for i := 0; i < len(s); i++ {
		buf = utf8.AppendRune(buf, byteToRune[s[i]])
	}
	return string(buf)
}

// The pre-tokenizer regexes with a hand-written scanner. Each scanner
// returns, for every position, the same match the regex engine would (the
// golden and fuzz tests compare both on every input they see).
const (
	gpt2Pattern   = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
	llama3Pattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	qwen2Pattern  = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// fastScanner returns a scanner equal to the regex for the patterns
// above, or nil.
func fastScanner(pattern string) scanMatcher {
	switch pattern {
	case gpt2Pattern:
		return scanMatcher(scanGPT2)
	case llama3Pattern:
		return scanMatcher(func(s string, i int) int { return scanLlama3(s, i, 3) })
	case qwen2Pattern:
		return scanMatcher(func(s string, i int) int { return scanLlama3(s, i, 1) })
	}
	return nil
}

// scanMatcher turns "length of the match at i" into a matcher. Both
// patterns match at every position, so the matches tile the input.
type scanMatcher func(s string, i int) int

func (f scanMatcher) find(out [][2]int, s string) [][2]int {
	for i := 0; i < len(s); {
		n := f(s, i)
		out = append(out, [2]int{i, i + n})
		i += n
	}
	return out
}

func runeAt(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

func isL(r rune) bool {
	if r < utf8.RuneSelf {
		return (r|0x20) >= 'a' && (r|0x20) <= 'z'
	}
	return unicode.IsLetter(r)
}

func isN(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= '0' && r <= '9'
	}
	return unicode.IsNumber(r)
}

// isS is the regex \s: Unicode White_Space.
func isS(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || (r >= '\t' && r <= '\r')
	}
	return unicode.IsSpace(r)
}

func isOther(r rune) bool { return r >= 0 && !isS(r) && !isL(r) && !isN(r) }

// run returns the end of the longest run of runes satisfying ok from i.
func run(s string, i int, ok func(rune) bool) int {
	for i < len(s) {
		r, n := runeAt(s, i)
		if !ok(r) {
			break
		}
		i += n
	}
	return i
}

// contraction matches 's 't 're 've 'm 'll 'd at i (any case if fold).
func contraction(s string, i int, fold bool) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return 0
	}
	lower := func(c byte) byte {
		if fold && c >= 'A' && c <= 'Z' {
			return c + 32
		}
		return c
	}
	switch lower(s[i+1]) {
	case 's', 't', 'm', 'd':
		return 2
	}
	if i+2 < len(s) {
		a, b := lower(s[i+1]), lower(s[i+2])
		if (a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l') {
			return 3
		}
	}
	return 0
}

// trailingSpace is `\s+(?!\S)|\s+` at i, where s[i] is whitespace: the
// whole run when it ends the input or the run is one rune, else the run
// minus its last rune (which then leads the next word).
func trailingSpace(s string, i int) int {
	end := run(s, i, isS)
	if end == len(s) {
		return end - i
	}
	_, first := runeAt(s, i)
	if end-i == first {
		return end - i
	}
	_, last := utf8.DecodeLastRuneInString(s[:end])
	return end - last - i
}

func scanGPT2(s string, i int) int {
	if n := contraction(s, i, false); n > 0 {
		return n
	}
	r, w := runeAt(s, i)
	j := i
	if r == ' ' {
		if r2, _ := runeAt(s, i+1); isL(r2) || isN(r2) || isOther(r2) {
			j, r = i+1, r2
		}
	}
	switch {
	case isL(r):
		return run(s, j, isL) - i
	case isN(r):
		return run(s, j, isN) - i
	case isOther(r):
		return run(s, j, isOther) - i
	}
	if isS(r) {
		return trailingSpace(s, i)
	}
	return w
}

// scanLlama3 is the Llama-3 pattern; maxDigits 1 gives Qwen2's.
func scanLlama3(s string, i int, maxDigits int) int {
	if n := contraction(s, i, true); n > 0 {
		return n
	}
	r, w := runeAt(s, i)
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if isL(r) {
		return run(s, i, isL) - i
	}
	if r != '\r' && r != '\n' && !isN(r) {
		if r2, _ := runeAt(s, i+w); isL(r2) {
			return run(s, i+w, isL) - i
		}
	}
	// \p{N}{1,maxDigits}
	if isN(r) {
		j := i
		for k := 0; k < maxDigits && j < len(s); k++ {
			r2, n := runeAt(s, j)
			if !isN(r2) {
				break
			}
			j += n
		}
		return j - i
	}
	// ` ?[^\s\p{L}\p{N}]+[\r\n]*`
	j := i
	if r == ' ' {
		if r2, _ := runeAt(s, i+1); isOther(r2) {
			j = i + 1
		}
	}
	if r2, _ := runeAt(s, j); isOther(r2) {
		j = run(s, j, isOther)
		for j < len(s) && (s[j] == '\r' || s[j] == '\n') {
			j++
		}
		return j - i
	}
	if isS(r) {
		// \s*[\r\n]+ : through the last newline of the whitespace run.
		end := run(s, i, isS)
		for k := end - 1; k >= i; k-- {
			if s[k] == '\r' || s[k] == '\n' {
				return k + 1 - i
			}
		}
		return trailingSpace(s, i)
	}
	return w
}

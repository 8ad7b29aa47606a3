package tokenizer

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The expectations below are what the Rust tokenizers library (0.23.2)
// returns for the same configuration and input.

func preTokens(t *testing.T, config, input string) []string {
	t.Helper()
	q, err := parsePreTokenizers(json.RawMessage(config), "pre_tokenizer")
	require.NoError(t, err)
	var out []string
	for _, s := range q.run(new(scratch), input, true) {
		if s.raw {
			s.text = byteLevelEncode(s.text)
		}
		out = append(out, s.text)
	}
	return out
}

func TestSplitBehaviors(t *testing.T) {
	split := func(pattern, behavior string, invert bool) string {
		b, _ := json.Marshal(map[string]any{"type": "Split", "pattern": json.RawMessage(pattern), "behavior": behavior, "invert": invert})
		return string(b)
	}
	tests := []struct {
		pattern, behavior string
		invert            bool
		input             string
		want              []string
	}{
		{`{"String":"-"}`, "Removed", false, "a-b--c-", []string{"a", "b", "c"}},
		{`{"String":"-"}`, "Isolated", false, "a-b--c-", []string{"a", "-", "b", "-", "-", "c", "-"}},
		{`{"String":"-"}`, "MergedWithPrevious", false, "a-b--c-", []string{"a-", "b-", "-", "c-"}},
		{`{"String":"-"}`, "MergedWithNext", false, "a-b--c-", []string{"a", "-b", "-", "-c", "-"}},
		{`{"String":"-"}`, "Contiguous", false, "a-b--c-", []string{"a", "-", "b", "--", "c", "-"}},
		{`{"String":"-"}`, "Removed", false, "-a", []string{"a"}},
		{`{"String":"-"}`, "MergedWithPrevious", false, "-a", []string{"-", "a"}},
		{`{"String":"-"}`, "MergedWithNext", false, "-a", []string{"-a"}},
		{`{"Regex":"\\w+"}`, "Removed", true, "hello, world!", []string{"hello", "world"}},
		{`{"Regex":"\\w+"}`, "Isolated", true, "hello, world!", []string{"hello", ", ", "world", "!"}},
		{`{"Regex":"\\w+"}`, "MergedWithPrevious", true, "hello, world!", []string{"hello, ", "world!"}},
		{`{"Regex":"\\w+"}`, "MergedWithNext", true, "hello, world!", []string{"hello", ", world", "!"}},
		{`{"Regex":"\\w+"}`, "Contiguous", true, "hello, world!", []string{"hello", ", ", "world", "!"}},
		// A pattern that also matches empty strings.
		{`{"Regex":"x*"}`, "Removed", false, "axxb", []string{"a", "b"}},
		{`{"Regex":"x*"}`, "Isolated", false, "axxb", []string{"a", "xx", "b"}},
		{`{"Regex":"x*"}`, "MergedWithPrevious", false, "axxb", []string{"axx", "b"}},
		{`{"Regex":"x*"}`, "MergedWithNext", false, "axxb", []string{"a", "xxb"}},
		{`{"Regex":"x*"}`, "Contiguous", false, "axxb", []string{"a", "xx", "b"}},
		// Lookahead, as in the GPT-2 pattern's whitespace rule.
		{`{"Regex":"\\s+(?!\\S)|\\s+"}`, "Isolated", false, "a   b\n\nc ", []string{"a", "  ", " ", "b", "\n", "\n", "c", " "}},
	}
	for _, tt := range tests {
		t.Run(tt.behavior+"/"+tt.pattern+"/"+tt.input, func(t *testing.T) {
			assert.Equal(t, tt.want, preTokens(t, split(tt.pattern, tt.behavior, tt.invert), tt.input))
		})
	}
}

func TestPreTokenizers(t *testing.T) {
	tests := []struct {
		name, config, input string
		want                []string
	}{
		{"digits individual", `{"type":"Digits","individual_digits":true}`, "abc123d4", []string{"abc", "1", "2", "3", "d", "4"}},
		{"digits runs, any numeric", `{"type":"Digits","individual_digits":false}`, "abc123d4½٣", []string{"abc", "123", "d", "4½٣"}},
		{"metaspace always", `{"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true}`, "Hey friend!", []string{"▁Hey", "▁friend!"}},
		{"metaspace leading spaces", `{"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true}`, "  a", []string{"▁", "▁a"}},
		{"metaspace no split", `{"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":false}`, "Hey friend!", []string{"▁Hey▁friend!"}},
		{"metaspace never", `{"type":"Metaspace","replacement":"▁","prepend_scheme":"never","split":true}`, "Hey friend", []string{"Hey", "▁friend"}},
		{"metaspace first", `{"type":"Metaspace","replacement":"▁","prepend_scheme":"first","split":true}`, "Hey friend", []string{"▁Hey", "▁friend"}},
		{"metaspace legacy add_prefix_space", `{"type":"Metaspace","replacement":"▁","add_prefix_space":true}`, "Hey friend", []string{"▁Hey", "▁friend"}},
		{"whitespace", `{"type":"Whitespace"}`, "Hey friend!  How are you?!? café_2 ①", []string{"Hey", "friend", "!", "How", "are", "you", "?!?", "café_2", "①"}},
		{"whitespace split", `{"type":"WhitespaceSplit"}`, "Hey friend!  How\tare\u3000you", []string{"Hey", "friend!", "How", "are", "you"}},
		{"punctuation", `{"type":"Punctuation"}`, "Hey friend!  How are you?!? «x»", []string{"Hey friend", "!", "  How are you", "?", "!", "?", " ", "«", "x", "»"}},
		{"punctuation contiguous", `{"type":"Punctuation","behavior":"Contiguous"}`, "Hey friend!  How are you?!?", []string{"Hey friend", "!", "  How are you", "?!?"}},
		{"byte level", `{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true}`,
			"Hello my friend, how is your day going?", []string{"Hello", "Ġmy", "Ġfriend", ",", "Ġhow", "Ġis", "Ġyour", "Ġday", "Ġgoing", "?"}},
		{"byte level prefix space", `{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true}`,
			"Hello  world\n\n é", []string{"ĠHello", "Ġ", "Ġworld", "ĊĊ", "ĠÃ©"}},
		{"byte level without regex", `{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":false}`,
			"Hello world é", []string{"HelloĠworldĠÃ©"}},
		{"sequence", `{"type":"Sequence","pretokenizers":[{"type":"Digits","individual_digits":true},{"type":"ByteLevel","add_prefix_space":false,"use_regex":true}]}`,
			"in 2024, we  8", []string{"in", "Ġ", "2", "0", "2", "4", ",", "Ġwe", "ĠĠ", "8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, preTokens(t, tt.config, tt.input))
		})
	}
}

func TestMetaspaceFirstOnlyAtStart(t *testing.T) {
	q, err := parsePreTokenizers(json.RawMessage(`{"type":"Metaspace","replacement":"▁","prepend_scheme":"first"}`), "pre_tokenizer")
	require.NoError(t, err)
	got := q.run(new(scratch), "after a token", false)
	assert.Equal(t, []split{{text: "after"}, {text: "▁a"}, {text: "▁token"}}, got)
	got = q.run(new(scratch), "at the start", true)
	assert.Equal(t, []split{{text: "▁at", first: true}, {text: "▁the"}, {text: "▁start"}}, got)
}

func TestNormalizers(t *testing.T) {
	tests := []struct {
		name, config, input, want string
	}{
		{"NFC", `{"type":"NFC"}`, "e\u0301", "\u00e9"},
		{"NFD", `{"type":"NFD"}`, "\u00e9", "e\u0301"},
		{"NFKC", `{"type":"NFKC"}`, "ﬁ①Ｆ", "fi1F"},
		{"NFKD", `{"type":"NFKD"}`, "ﬁ\u00e9", "fie\u0301"},
		{"lowercase, full mapping, no final sigma", `{"type":"Lowercase"}`, "HeLLo İ ΣΑΣ Ǆ", "hello i\u0307 σασ ǆ"},
		{"prepend", `{"type":"Prepend","prepend":"▁"}`, "a", "▁a"},
		{"prepend skips empty", `{"type":"Prepend","prepend":"▁"}`, "", ""},
		{"replace string", `{"type":"Replace","pattern":{"String":" "},"content":"▁"}`, "a b  c", "a▁b▁▁c"},
		{"replace regex", `{"type":"Replace","pattern":{"Regex":" {2,}"},"content":" "}`, "a b   c    d", "a b c d"},
		{"strip both", `{"type":"Strip","strip_left":true,"strip_right":true}`, " \t a b \n\u3000", "a b"},
		{"strip left", `{"type":"Strip","strip_left":true,"strip_right":false}`, "  a b  ", "a b  "},
		{"sequence", `{"type":"Sequence","normalizers":[{"type":"Prepend","prepend":"▁"},{"type":"Replace","pattern":{"String":" "},"content":"▁"}]}`, "Hey you", "▁Hey▁you"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := parseNormalizer(json.RawMessage(tt.config), "normalizer")
			require.NoError(t, err)
			assert.Equal(t, tt.want, n.normalize(tt.input))
		})
	}
}

func TestDecoders(t *testing.T) {
	const byteLevelJSON = `{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true}`
	tests := []struct {
		name, config string
		tokens       []string
		want         string
	}{
		{"byte level", byteLevelJSON, []string{"Hello", "Ġworld", "Ċ", "ĠâĤ¬"}, "Hello world\n €"},
		{"byte level, cut character", byteLevelJSON, []string{"Ġ", "âĤ", "!"}, " \uFFFD!"},
		{"byte level, token outside the alphabet", byteLevelJSON, []string{"日本", "Ġa"}, "日本 a"},
		{"byte level, one U+FFFD per maximal bad sequence", byteLevelJSON, []string{"ð", "Ł", "ĺ", "Ģ", "ð", "a", "ÿ"}, "😀\uFFFDa\uFFFD"},
		{"byte fallback", `{"type":"ByteFallback"}`, []string{"<0x61>", "b", "<0xE2>", "<0x82>", "<0xAC>", "<0xFF>", "c", "<0xE2>", "<0x82>"}, "ab\uFFFD\uFFFD\uFFFD\uFFFDc\uFFFD\uFFFD"},
		{"fuse", `{"type":"Fuse"}`, []string{"a", " b", "c"}, "a bc"},
		{"strip", `{"type":"Strip","content":" ","start":1,"stop":0}`, []string{" a", "  b ", "c"}, "a b c"},
		{"strip both ends", `{"type":"Strip","content":"▁","start":2,"stop":1}`, []string{"▁▁▁x▁▁"}, "▁x▁"},
		{"replace", `{"type":"Replace","pattern":{"String":"▁"},"content":" "}`, []string{"▁Hey", "▁friend"}, " Hey friend"},
		{"metaspace", `{"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true}`, []string{"▁Hey", "▁friend", "▁▁x"}, "Hey friend  x"},
		{"metaspace drops every replacement in the first token", `{"type":"Metaspace","replacement":"▁","prepend_scheme":"always"}`, []string{"▁▁Hey▁", "▁friend"}, "Hey friend"},
		{"metaspace never", `{"type":"Metaspace","replacement":"▁","prepend_scheme":"never"}`, []string{"▁Hey", "▁friend"}, " Hey friend"},
		{"sequence (Llama 2)", `{"type":"Sequence","decoders":[{"type":"Replace","pattern":{"String":"▁"},"content":" "},{"type":"ByteFallback"},{"type":"Fuse"},{"type":"Strip","content":" ","start":1,"stop":0}]}`,
			[]string{"▁Hello", "<0x0A>", "▁w", "<0xC3>", "<0xA9>"}, "Hello\n wé"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := parseDecoder(json.RawMessage(tt.config), "decoder")
			require.NoError(t, err)
			got := ""
			for _, s := range d.decodeChain(tt.tokens) {
				got += s
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestPostProcessors(t *testing.T) {
	tests := []struct {
		name, config string
		addSpecial   bool
		want         []int
	}{
		{"template", `{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},{"Sequence":{"id":"A","type_id":0}},{"SpecialToken":{"id":"</s>","type_id":0}}],
			"special_tokens":{"<s>":{"id":"<s>","ids":[1],"tokens":["<s>"]},"</s>":{"id":"</s>","ids":[2],"tokens":["</s>"]}}}`, true, []int{1, 7, 8, 2}},
		{"template without special tokens", `{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},{"Sequence":{"id":"A","type_id":0}}],
			"special_tokens":{"<s>":{"id":"<s>","ids":[1],"tokens":["<s>"]}}}`, false, []int{7, 8}},
		{"byte level", `{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":false}`, true, []int{7, 8}},
		{"roberta", `{"type":"RobertaProcessing","sep":["</s>",2],"cls":["<s>",0],"trim_offsets":true,"add_prefix_space":true}`, true, []int{0, 7, 8, 2}},
		{"bert", `{"type":"BertProcessing","sep":["[SEP]",102],"cls":["[CLS]",101]}`, true, []int{101, 7, 8, 102}},
		{"sequence", `{"type":"Sequence","processors":[{"type":"ByteLevel"},{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},{"Sequence":{"id":"A","type_id":0}}],
			"special_tokens":{"<s>":{"id":"<s>","ids":[1],"tokens":["<s>"]}}}]}`, true, []int{1, 7, 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := parsePostProcessor(json.RawMessage(tt.config), "post_processor")
			require.NoError(t, err)
			assert.Equal(t, tt.want, p.process([]int{7, 8}, tt.addSpecial))
		})
	}
}

func TestLossyUTF8(t *testing.T) {
	tests := []struct {
		in   []byte
		want string
	}{
		{[]byte("plain"), "plain"},
		{[]byte{0xE2, 0x82}, "\uFFFD"},                   // one truncated sequence
		{[]byte{0xE2, 0x82, 'a'}, "\uFFFDa"},             // truncated, then ASCII
		{[]byte{0xFF, 0xFE}, "\uFFFD\uFFFD"},             // never-valid bytes, one each
		{[]byte{0xED, 0xA0, 0x80}, "\uFFFD\uFFFD\uFFFD"}, // a surrogate: ED then two strays
		{[]byte{0xF0, 0x9F, 0x98}, "\uFFFD"},
		{[]byte{0xC0, 0xAF}, "\uFFFD\uFFFD"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, lossyUTF8(tt.in), "% x", tt.in)
	}
}

func TestCleanUpTokenization(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Hello , world !", "Hello, world!"},
		{"Is it ? Yes .", "Is it? Yes."},
		{"I do n't know , he 's sure they 're here and we 've seen I 'm", "I don't know, he's sure they're here and we've seen I'm"},
		{"a ' b", "a'b"},
		// Order matters: " ." goes first, so " ' ." keeps its quote spaced.
		{"x ' .", "x '."},
		{"no change here", "no change here"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, cleanUpTokenization(tt.in), tt.in)
	}
}

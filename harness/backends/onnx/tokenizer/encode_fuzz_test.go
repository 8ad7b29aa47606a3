package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/feather-eval/feather/internal/testenv"
)

// FuzzEncodeDecode runs arbitrary bytes, invalid UTF-8 included, through
// the GPT-2 and SmolLM tokenizers vendored in testdata/tokenizers, seeded with the
// parity corpus. Both are byte-level BPE without a normalizer, so the only
// text lost is bytes the vocabulary lacks: decode(encode(s)) is s for
// SmolLM less those bytes, and for GPT-2 it is s after
// clean_up_tokenization_spaces, which its tokenizer_config.json turns on
// (" ." becomes "."), as in transformers. Encoding reads invalid UTF-8 as
// U+FFFD, gives ids the vocabulary has, and is the same every time (the
// second call goes through the word cache).
func FuzzEncodeDecode(f *testing.F) {
	type lossless struct {
		name string
		tok  *Tokenizer
		// want is what decode(encode(s)) gives back for valid UTF-8 s.
		want func(string) string
		// missing marks the bytes whose byte-level character is not in the
		// vocabulary. With no unk_token the model drops them, as the Rust
		// library does: SmolLM lacks six ASCII controls and lead bytes that
		// begin code points from U+40000 up.
		missing [256]bool
	}
	var toks []lossless
	for _, name := range []string{"gpt2", "smollm-135m"} {
		tok, err := Load(testenv.Tokenizer(name))
		if err != nil {
			f.Fatalf("loading %s: %v", name, err)
		}
		want := func(s string) string { return s }
		if tok.cleanUp {
			want = cleanUpTokenization
		}
		l := lossless{name: name, tok: tok, want: want}
		for b := range l.missing {
			_, ok := tok.TokenToID(byteToStr[b])
			l.missing[b] = !ok
		}
		toks = append(toks, l)
	}
	// The clean-up flag is what separates the two; pin it so a change in
	// the config reading does not silently weaken the property.
	if !toks[0].tok.cleanUp || toks[1].tok.cleanUp {
		f.Fatalf("clean_up_tokenization_spaces: gpt2 %v, smollm-135m %v; want true, false", toks[0].tok.cleanUp, toks[1].tok.cleanUp)
	}

	var corpus []string
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "testdata", "tokenizer", "corpus.json"))
	if err != nil {
		f.Fatal(err)
	}
	if err := json.Unmarshal(data, &corpus); err != nil {
		f.Fatal(err)
	}
	for _, s := range corpus {
		f.Add(s)
	}
	for _, s := range []string{
		"", "\xff", "a\xc3", "\xed\xa0\x80", "\xf4\x90\x80\x80", "ok\x00nul", "<|endoftext|>", "<|endoftext|",
		"x<|im_start|>user\n<|im_end|>", " don't .", "12345678901234567890", "\r\n\t \u00a0\u2028", "🙂‍↔️",
	} {
		f.Add(s)
	}

	f.Fuzz(func(t *testing.T, s string) {
		valid := strings.ToValidUTF8(s, "\uFFFD")
		for _, tk := range toks {
			plain := tk.tok.Encode(s, false)
			for _, id := range plain {
				if id < 0 || id >= tk.tok.VocabSize() {
					t.Fatalf("%s: Encode(%q) gave id %d outside the vocabulary of %d", tk.name, s, id, tk.tok.VocabSize())
				}
				if _, ok := tk.tok.IDToToken(id); !ok {
					t.Fatalf("%s: Encode(%q) gave id %d, which has no token", tk.name, s, id)
				}
			}
			if again := tk.tok.Encode(s, false); !slices.Equal(plain, again) {
				t.Fatalf("%s: Encode(%q) is not stable: %v then %v", tk.name, s, plain, again)
			}
			if !utf8.ValidString(s) {
				if fixed := tk.tok.Encode(valid, false); !slices.Equal(plain, fixed) {
					t.Fatalf("%s: Encode(%q) = %v, but the same text with U+FFFD encodes as %v", tk.name, s, plain, fixed)
				}
			}
			// Dropping a byte inside a multi-byte character leaves invalid
			// UTF-8, which the decoder replaces: only whole dropped
			// characters (ASCII) keep an exact expected text.
			kept, exact := make([]byte, 0, len(valid)), true
			for i := 0; i < len(valid); i++ {
				switch b := valid[i]; {
				case !tk.missing[b]:
					kept = append(kept, b)
				case b >= utf8.RuneSelf:
					exact = false
				}
			}
			got := tk.tok.Decode(plain, false)
			if want := tk.want(string(kept)); exact && got != want {
				t.Fatalf("%s: Decode(Encode(%q)) = %q, want %q", tk.name, s, got, want)
			}
			// Neither adds special tokens around the text.
			if special := tk.tok.Encode(s, true); !slices.Equal(plain, special) {
				t.Fatalf("%s: Encode(%q, true) = %v, Encode(%q, false) = %v", tk.name, s, special, s, plain)
			}
		}
	})
}

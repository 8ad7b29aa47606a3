package tokenizer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// readSlowFiles builds the GPT-2 style tokenizer transformers makes from
// vocab.json + merges.txt (its GPT2Converter): byte-level BPE with the
// GPT-2 pattern, add_prefix_space from tokenizer_config.json, a ByteLevel
// decoder, and BOS first only when add_bos_token says so. Such a folder
// says nothing of normalizers or extra pre-tokenizers (SmolLM's Digits
// split, for one): transformers builds without them, and so does this.
func (b *builder) readSlowFiles(dir string) error {
	vocabPath := filepath.Join(dir, "vocab.json")
	mergesPath := filepath.Join(dir, "merges.txt")
	_, errV := os.Stat(vocabPath)
	_, errM := os.Stat(mergesPath)
	if errV != nil || errM != nil {
		return errors.New("no tokenizer.json, and no vocab.json + merges.txt pair: want a Hugging Face tokenizer folder")
	}
	var vocab map[string]int
	if err := readJSON(vocabPath, &vocab); err != nil {
		return err
	}
	if vocab == nil {
		return errors.New("vocab.json: want an object of token → id")
	}
	merges, lines, err := readMergesTxt(mergesPath)
	if err != nil {
		return err
	}
	b.model, err = newBPE(vocab, merges, func(i int) string { return fmt.Sprintf("merges.txt:%d", lines[i]) }, "", "", "")
	if err != nil {
		return err
	}
	b.pre = stages{byteLevel{addPrefixSpace: b.fc.addPrefixSpace, pattern: fastScanner(gpt2Pattern), last: true}}
	b.dec = byteLevelDecoder{}
	b.post = passThrough{}

	// added_tokens.json lists tokens added after training; tokens
	// tokenizer_config.json already describes keep that description.
	var extra map[string]int
	if ok, err := readOptionalJSON(filepath.Join(dir, "added_tokens.json"), &extra); err != nil {
		return err
	} else if ok {
		known := map[int]bool{}
		for _, a := range b.fc.addedDecoder {
			known[a.ID] = true
		}
		named := b.fc.specialContents()
		for content, id := range extra {
			if known[id] {
				continue
			}
			special := named[content]
			b.fc.addedDecoder = append(b.fc.addedDecoder, addedToken{ID: id, Content: content, Normalized: !special, Special: special})
		}
		sort.SliceStable(b.fc.addedDecoder, func(i, j int) bool { return b.fc.addedDecoder[i].ID < b.fc.addedDecoder[j].ID })
	}
	return nil
}

// readMergesTxt reads merges.txt: an optional "#version" first line, then
// one "left right" pair per line. It returns each merge's line number.
func readMergesTxt(path string) ([][2]string, []int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var merges [][2]string
	var lines []int
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if (n == 1 && strings.HasPrefix(line, "#version")) || strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, nil, fmt.Errorf("merges.txt:%d: %q: want two tokens separated by a space", n, line)
		}
		merges = append(merges, [2]string{f[0], f[1]})
		lines = append(lines, n)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("merges.txt: %v", err)
	}
	return merges, lines, nil
}

package report

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDataWriterMatchesWholeEncoding streams page data in small writes,
// as writeData does, on both sides of CompressAbove, and checks the
// element is byte for byte what encoding the whole data at once gives:
// plain JSON up to the limit, gzip+base64 past it.
func TestDataWriterMatchesWholeEncoding(t *testing.T) {
	for _, n := range []int{0, 1000, CompressAbove, CompressAbove + 1, CompressAbove + 5000} {
		data := pageData(n)
		var got bytes.Buffer
		bw := bufio.NewWriter(&got)
		d := &dataWriter{out: bw}
		for rest := data; len(rest) > 0; {
			k := min(len(rest), 700)
			_, err := d.Write(rest[:k])
			require.NoError(t, err)
			rest = rest[k:]
		}
		require.NoError(t, d.Close())
		require.NoError(t, bw.Flush())
		assert.True(t, bytes.Equal(wholeEncoding(t, data), got.Bytes()), "%d bytes of data", n)
	}
}

// wholeEncoding is the data element written from the whole data in one
// go: the plain element up to CompressAbove, else one gzip write.
func wholeEncoding(t *testing.T, data []byte) []byte {
	if len(data) <= CompressAbove {
		return append([]byte(`<script type="application/json" id="feather-data">`), data...)
	}
	var b strings.Builder
	b.WriteString(`<script type="application/octet-stream" id="feather-data" data-encoding="gzip+base64">`)
	b64 := base64.NewEncoder(base64.StdEncoding, &b)
	zw, err := gzip.NewWriterLevel(b64, gzip.BestSpeed)
	require.NoError(t, err)
	_, err = zw.Write(data)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.NoError(t, b64.Close())
	return []byte(b.String())
}

// pageData is n bytes of JSON-like text drawn from a fixed seed, so gzip
// has repeats to find but not only repeats.
func pageData(n int) []byte {
	r := rand.New(rand.NewPCG(3, 4))
	words := []string{`"model-07"`, `"eos"`, `0.4213`, `null`, `[`, `]`, `,`, `{"judge":"model-01","score":7}`, `"the plan covers costs"`}
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
	}
	return b.Bytes()[:n]
}

package respcache_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/lm/respcache"
)

// BenchmarkGet reads one warm entry (a 4 KiB reply with tool calls and
// sampling): the cost of a hit, key computation included.
func BenchmarkGet(b *testing.B) {
	c, err := respcache.Open(b.TempDir())
	require.NoError(b, err)
	id := openRouterID("heron", "acme/heron-3")
	req := userReq(strings.Repeat("Plan a two-day trip. ", 50))
	res := fullResult()
	res.Text = strings.Repeat("Day one: the tram. ", 215)
	k, err := respcache.NewKey(id, req, 1)
	require.NoError(b, err)
	require.NoError(b, c.Put(k, res))
	b.ReportAllocs()
	for b.Loop() {
		k, err := respcache.NewKey(id, req, 1)
		if err != nil {
			b.Fatal(err)
		}
		if _, ok, err := c.Get(k); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkNewKey is the key alone, paid on every call, hit or miss.
func BenchmarkNewKey(b *testing.B) {
	id := openRouterID("heron", "acme/heron-3")
	req := userReq(strings.Repeat("Plan a two-day trip. ", 50))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := respcache.NewKey(id, req, 1); err != nil {
			b.Fatal(err)
		}
	}
}

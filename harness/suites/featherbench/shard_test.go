package featherbench

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/feather-eval/feather/harness/run/shard"
)

var shards = []shard.Shard{{Index: 1, Count: 3}, {Index: 2, Count: 3}, {Index: 3, Count: 3}}

func TestFeatherbenchIgnoresTheModel(t *testing.T) {
	for _, s := range shards {
		p := InShard(s)
		assert.True(t, p("m"))
		assert.True(t, p("m", "code-fizzbuzz"))
		for trial := range 5 {
			tr := fmt.Sprint(trial + 1)
			assert.Equal(t, s.HasKey("code-fizzbuzz/"+tr), p("m", "code-fizzbuzz", tr))
			assert.Equal(t, p("m", "code-fizzbuzz", tr), p("other", "code-fizzbuzz", tr), "the model does not move a trial")
		}
	}
}

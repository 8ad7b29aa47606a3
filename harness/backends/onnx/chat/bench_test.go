package chat_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/chat"
)

// BenchmarkRender measures one rendering of each golden template's first
// cases: the per-request cost a local backend pays.
func BenchmarkRender(b *testing.B) {
	g := readGolden(b)
	for _, c := range g.Cases {
		if c.Name != "smollm2/featherweight-plain/gen" && c.Name != "qwen3/tool-conversation/tools/gen" {
			continue
		}
		tpl := loadGoldenTemplate(b, g, c.Template)
		msgs, tools := rawMaps(c.Messages), rawMaps(c.Tools)
		b.Run(c.Name, func(b *testing.B) {
			for b.Loop() {
				_, err := tpl.RenderMaps(msgs, chat.Options{AddGenerationPrompt: true, Tools: tools})
				require.NoError(b, err)
			}
		})
	}
}

package testmodel

// SmolLM2Fixture is a model with SmolLM2-135M's shape (its config.json:
// 30 layers, width 576, 9 heads of 64 over 3 KV heads, intermediate 1536,
// a 49152 vocabulary, tied embeddings, RoPE θ 100000, 8192 positions) and
// seeded weights, for benchmarks at a real small model's cost per token.
func SmolLM2Fixture() Config {
	return Config{
		Arch: Llama, Vocab: 49152, Hidden: 576, Layers: 30, Heads: 9, KVHeads: 3, Intermediate: 1536,
		MaxPositions: 8192, RopeTheta: 100000, TiedEmbeddings: true, Seed: 49152, PositionIDs: true,
		Name: "feather-smollm2-135m-shape",
	}
}

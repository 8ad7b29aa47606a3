//go:build openrouter

package openai

// Live OpenRouter calls are built only with -tags openrouter, so a plain
// `go test` never spends money or needs a key. The key is read from
// OPENROUTER_API_KEY at each call.
var openRouterOpen = openWithOptions

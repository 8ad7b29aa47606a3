//go:build !openrouter

package openai

import "github.com/feather-eval/feather/harness/backends/catalog"

// Without -tags openrouter, openrouter entries parse but do not open.
var openRouterOpen catalog.Opener

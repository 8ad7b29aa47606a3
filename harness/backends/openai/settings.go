package openai

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/feather-eval/feather/harness/backends/apiopt"
	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/lm"
)

// The catalog names of the backends this package serves.
const (
	Name           = "openai"
	OpenRouterName = "openrouter"
)

func init() {
	defaults := []string{"max_tokens", "sampling"}
	catalog.Register(Name, catalog.Backend{
		Settings: func() catalog.Settings { return new(Settings) },
		Defaults: defaults,
		Open:     openWithOptions,
	})
	catalog.Register(OpenRouterName, catalog.Backend{
		Settings:    func() catalog.Settings { return new(OpenRouterSettings) },
		Defaults:    defaults,
		Open:        openRouterOpen,
		Unavailable: "live OpenRouter calls need -tags openrouter and OPENROUTER_API_KEY",
	})
}

// openWithOptions opens an entry with the api.* run options.
func openWithOptions(_ context.Context, e catalog.Entry) (lm.Model, error) {
	return Open(e, Options{Concurrency: *apiopt.Concurrency, MaxAttempts: *apiopt.Attempts, AttemptTimeout: *apiopt.Timeout})
}

// Settings are an "openai" entry's fields: an OpenAI-compatible server.
type Settings struct {
	// Model is the name the server knows the model by.
	Model string `json:"model,omitempty"`
	// BaseURL is the server; APIKeyEnv names the variable holding its key.
	BaseURL   string `json:"base_url,omitempty"`
	APIKeyEnv string `json:"api_key_env,omitempty"`
	// Chat is "no" for the completions endpoint (raw text; scoring).
	Chat string `json:"chat,omitempty"`
	// Headers are sent with every request; values may name ${VARIABLES}.
	Headers map[string]string `json:"headers,omitempty"`
	// StructuredOutputs: the endpoint enforces a JSON Schema on the reply
	// (response_format json_schema). Opt-in, as not every server has it.
	StructuredOutputs bool `json:"structured_outputs,omitempty"`
}

// Validate checks the settings and the entry's request defaults.
func (s *Settings) Validate(e catalog.Entry) error {
	if err := catalog.HTTPURL("base_url", s.BaseURL, "e.g. http://localhost:8000/v1 for vLLM or http://localhost:11434/v1 for ollama"); err != nil {
		return err
	}
	if s.Model == "" {
		return errors.New(`an openai model needs "model", the name the server knows it by`)
	}
	if err := catalog.EnvName(s.APIKeyEnv); err != nil {
		return err
	}
	if err := catalog.OneOf("chat", s.Chat, "", "yes", "no"); err != nil {
		return err
	}
	return catalog.CheckDefaults(e)
}

// Identity: the model, the endpoint as requests reach it, structured
// outputs, the chat mode and a digest of the header templates (a header
// may select a model version). Not api_key_env: which account pays does
// not change the answer.
func (s *Settings) Identity() []catalog.Field {
	return []catalog.Field{
		{Name: "model", Value: s.Model},
		{Name: "base_url", Value: strings.TrimRight(s.BaseURL, "/")},
		{Name: "structured_outputs", Value: s.StructuredOutputs},
		{Name: "chat", Value: s.Chat},
		{Name: "headers_sha256", Value: catalog.HeadersSHA256(s.Headers)},
	}
}

// Target is the model at its server.
func (s *Settings) Target() string { return s.Model + " @ " + s.BaseURL }

// OpenRouterSettings are an "openrouter" entry's fields.
type OpenRouterSettings struct {
	// Model is the OpenRouter slug, vendor/name.
	Model string `json:"model,omitempty"`
	// ProviderOrder pins the upstreams that may serve the model.
	ProviderOrder []string `json:"provider_order,omitempty"`
	// Effort is the reasoning effort asked for.
	Effort string `json:"effort,omitempty"`
	// StructuredOutputs: opt-in, because require_parameters refuses a
	// route whose provider lacks it.
	StructuredOutputs bool `json:"structured_outputs,omitempty"`
}

// Validate checks the settings and the entry's request defaults.
func (s *OpenRouterSettings) Validate(e catalog.Entry) error {
	if s.Model == "" {
		return errors.New(`an openrouter model needs "model", its OpenRouter slug such as "anthropic/claude-fable-5"`)
	}
	if !strings.Contains(s.Model, "/") {
		return fmt.Errorf(`"model" %q is not an OpenRouter slug (vendor/name, e.g. "openai/gpt-5.5")`, s.Model)
	}
	if len(s.ProviderOrder) == 0 {
		return errors.New(`"provider_order" is missing: pin the upstream that serves the model (e.g. ["anthropic"]) so a run never scores a silent fallback`)
	}
	for _, p := range s.ProviderOrder {
		if strings.TrimSpace(p) == "" {
			return errors.New(`"provider_order" has an empty provider name`)
		}
	}
	if err := catalog.OneOf("effort", s.Effort, "", "none", "minimal", "low", "medium", "high", "xhigh"); err != nil {
		return err
	}
	return catalog.CheckDefaults(e)
}

// Identity: the slug, the endpoint requests go to (OPENROUTER_BASE_URL
// when set, so a test server's answers never stand for OpenRouter's), the
// routing, the reasoning effort and structured outputs.
func (s *OpenRouterSettings) Identity() []catalog.Field {
	return []catalog.Field{
		{Name: "model", Value: s.Model},
		{Name: "base_url", Value: strings.TrimRight(openRouterBaseURL(os.Getenv), "/")},
		{Name: "provider_order", Value: s.ProviderOrder},
		{Name: "effort", Value: s.Effort},
		{Name: "structured_outputs", Value: s.StructuredOutputs},
	}
}

// Target is the slug.
func (s *OpenRouterSettings) Target() string { return s.Model }

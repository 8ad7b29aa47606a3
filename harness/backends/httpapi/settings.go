package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/feather-eval/feather/harness/backends/apiopt"
	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/lm"
)

// Name is the backend's catalog name.
const Name = "http"

func init() {
	catalog.Register(Name, catalog.Backend{
		Settings: func() catalog.Settings { return new(Settings) },
		Open:     openWithOptions,
	})
}

// openWithOptions opens an entry with the api.* run options.
func openWithOptions(_ context.Context, e catalog.Entry) (lm.Model, error) {
	m, err := New(e)
	if err != nil {
		return nil, err
	}
	m.Concurrency, m.Timeout, m.MaxAttempts = *apiopt.Concurrency, *apiopt.Timeout, *apiopt.Attempts
	m.client = apiopt.HTTPClient()
	return m, nil
}

// Settings are an "http" entry's fields: a custom endpoint.
type Settings struct {
	URL             string            `json:"url,omitempty"`
	RequestTemplate json.RawMessage   `json:"request_template,omitempty"`
	ResponsePath    string            `json:"response_path,omitempty"`
	Headers         map[string]string `json:"headers,omitempty"`
	APIKeyEnv       string            `json:"api_key_env,omitempty"`
}

// Validate checks the settings.
func (s *Settings) Validate(catalog.Entry) error {
	if err := catalog.HTTPURL("url", s.URL, "the endpoint that takes the request template"); err != nil {
		return err
	}
	if len(s.RequestTemplate) == 0 {
		return errors.New(`an http model needs "request_template", the JSON body with "{{prompt}}" where the prompt goes`)
	}
	if !strings.Contains(string(s.RequestTemplate), "{{prompt}}") {
		return errors.New(`"request_template" has no "{{prompt}}" placeholder; put it in the string field that carries the prompt`)
	}
	if s.ResponsePath == "" {
		return errors.New(`an http model needs "response_path", where the reply text is in the response JSON (e.g. "choices.0.text")`)
	}
	return catalog.EnvName(s.APIKeyEnv)
}

// Identity: the endpoint, the request template, the response path and a
// digest of the header templates. Not api_key_env: which account pays
// does not change the answer.
func (s *Settings) Identity() []catalog.Field {
	return []catalog.Field{
		{Name: "url", Value: s.URL},
		{Name: "request_template", Value: s.RequestTemplate},
		{Name: "response_path", Value: s.ResponsePath},
		{Name: "headers_sha256", Value: catalog.HeadersSHA256(s.Headers)},
	}
}

// Target is the endpoint.
func (s *Settings) Target() string { return s.URL }

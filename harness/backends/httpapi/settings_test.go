package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/apiopt"
	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/httpapi"
)

func parseEntry(fields string) (catalog.Entry, error) {
	c, err := catalog.Parse("m.json", []byte(`{"m": {"backend": "http", `+fields+`}}`))
	if err != nil {
		return catalog.Entry{}, err
	}
	return c.Entries[0], nil
}

func TestSettingsValidate(t *testing.T) {
	const tmpl = `"request_template": {"q": "{{prompt}}"}`
	for _, tc := range []struct{ name, fields, err string }{
		{"no url", tmpl + `, "response_path": "a"`, `"url" is missing: the endpoint that takes the request template`},
		{"url not http", `"url": "ftp://h/x", ` + tmpl + `, "response_path": "a"`,
			`"url" "ftp://h/x" is not an http(s) URL: the endpoint that takes the request template`},
		{"no template", `"url": "http://h/x", "response_path": "a"`,
			`an http model needs "request_template", the JSON body with "{{prompt}}" where the prompt goes`},
		{"no placeholder", `"url": "http://h/x", "request_template": {"q": "hi"}, "response_path": "a"`,
			`"request_template" has no "{{prompt}}" placeholder; put it in the string field that carries the prompt`},
		{"no response path", `"url": "http://h/x", ` + tmpl,
			`an http model needs "response_path", where the reply text is in the response JSON (e.g. "choices.0.text")`},
		{"key pasted", `"url": "http://h/x", ` + tmpl + `, "response_path": "a", "api_key_env": "sk-abc"`,
			`"api_key_env" must be the name of the environment variable that holds the key (e.g. "VLLM_API_KEY"), not the key itself`},
		{"no request defaults", `"url": "http://h/x", ` + tmpl + `, "response_path": "a", "max_tokens": 5, "sampling": {"seed": 1}`,
			`"max_tokens", "sampling" are not used by backend "http"; remove it or change the backend`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseEntry(tc.fields)
			require.Error(t, err)
			assert.Equal(t, `m.json: model "m": `+tc.err, err.Error())
		})
	}
}

// The identity: endpoint, template, response path and a digest of the
// header templates; never api_key_env's name nor a header's value.
func TestSettingsIdentity(t *testing.T) {
	e, err := parseEntry(`"url": "http://h/x", "request_template": {"q": "{{prompt}}"}, "response_path": "a.b", "headers": {"X-Team": "team-secret"}, "api_key_env": "HAIKU_KEY"`)
	require.NoError(t, err)
	s := e.Settings.(*httpapi.Settings)
	assert.Equal(t, &httpapi.Settings{URL: "http://h/x", RequestTemplate: json.RawMessage(`{"q": "{{prompt}}"}`), ResponsePath: "a.b",
		Headers: map[string]string{"X-Team": "team-secret"}, APIKeyEnv: "HAIKU_KEY"}, s)
	id := s.Identity()
	assert.Equal(t, []catalog.Field{
		{Name: "url", Value: "http://h/x"}, {Name: "request_template", Value: json.RawMessage(`{"q": "{{prompt}}"}`)},
		{Name: "response_path", Value: "a.b"}, {Name: "headers_sha256", Value: catalog.HeadersSHA256(s.Headers)},
	}, id)
	for _, f := range id {
		assert.NotContains(t, fmt.Sprint(f.Value), "team-secret")
		assert.NotContains(t, fmt.Sprint(f.Value), "HAIKU_KEY")
	}
	assert.Equal(t, "http://h/x", s.Target())
}

// The package registers the backend, which opens with the api.* options.
func TestRegistered(t *testing.T) {
	saved := *apiopt.Concurrency
	*apiopt.Concurrency = 7
	defer func() { *apiopt.Concurrency = saved }()
	e, err := parseEntry(`"url": "http://h/x", "request_template": {"q": "{{prompt}}"}, "response_path": "a"`)
	require.NoError(t, err)
	m, err := catalog.Open(context.Background(), e)
	require.NoError(t, err)
	hm := m.(*httpapi.Model)
	assert.Equal(t, 7, hm.Concurrency)
	assert.Equal(t, *apiopt.Attempts, hm.MaxAttempts)
	assert.Equal(t, *apiopt.Timeout, hm.Timeout)

	_, err = catalog.Open(context.Background(), catalog.Entry{Key: "x", Backend: httpapi.Name})
	assert.EqualError(t, err, `model "x": the entry has no http settings`)
}

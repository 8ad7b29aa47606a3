package catalog

import (
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/feather-eval/feather/harness/backends/onnx/layout"
)

// validator says which fields a backend accepts and checks an entry.
type validator struct {
	fields   []string // JSON names of backend-specific fields it accepts
	validate func(e *Entry) error
}

// common fields every backend accepts.
var common = []string{"backend", "enabled", "name", "description"}

var validators = map[string]validator{
	ONNX: {
		fields: []string{"path", "builtin", "variant", "threads", "chat", "provider", "device_id", "max_tokens", "sessions"},
		validate: func(e *Entry) error {
			switch {
			case e.Path == "" && e.Builtin == "":
				return errors.New(`an onnx model needs "path" (a Hugging Face ONNX export folder) or "builtin" (e.g. "smoke")`)
			case e.Path != "" && e.Builtin != "":
				return errors.New(`set "path" or "builtin", not both`)
			case e.Threads < 0:
				return fmt.Errorf(`"threads" must be 0 (all cores) or more, not %d`, e.Threads)
			case e.DeviceID < 0:
				return fmt.Errorf(`"device_id" must be 0 or more, not %d`, e.DeviceID)
			case e.Sessions < 0:
				return fmt.Errorf(`"sessions" must be 0 (one) or more, not %d`, e.Sessions)
			case e.MaxTokens < 0:
				return fmt.Errorf(`"max_tokens" must be positive, not %d`, e.MaxTokens)
			}
			if err := oneOf("chat", e.Chat, "", "yes", "no", "auto"); err != nil {
				return err
			}
			if err := oneOf("provider", e.Provider, "", "cpu", "cuda"); err != nil {
				return err
			}
			if !layout.ValidVariant(e.Variant) {
				return fmt.Errorf(`"variant" %q is not a file-name suffix such as quantized, fp16, int8, q4 or q4f16`, e.Variant)
			}
			return nil
		},
	},
	OpenAI: {
		fields: []string{"model", "base_url", "api_key_env", "max_tokens", "sampling", "chat", "headers", "structured_outputs"},
		validate: func(e *Entry) error {
			if err := httpURL("base_url", e.BaseURL, "e.g. http://localhost:8000/v1 for vLLM or http://localhost:11434/v1 for ollama"); err != nil {
				return err
			}
			if e.Model == "" {
				return errors.New(`an openai model needs "model", the name the server knows it by`)
			}
			if err := envName(e.APIKeyEnv); err != nil {
				return err
			}
			if err := oneOf("chat", e.Chat, "", "yes", "no"); err != nil {
				return err
			}
			return checkSampling(e)
		},
	},
	OpenRouter: {
		fields: []string{"model", "provider_order", "effort", "max_tokens", "sampling", "structured_outputs"},
		validate: func(e *Entry) error {
			if e.Model == "" {
				return errors.New(`an openrouter model needs "model", its OpenRouter slug such as "anthropic/claude-fable-5"`)
			}
			if !strings.Contains(e.Model, "/") {
				return fmt.Errorf(`"model" %q is not an OpenRouter slug (vendor/name, e.g. "openai/gpt-5.5")`, e.Model)
			}
			if len(e.ProviderOrder) == 0 {
				return errors.New(`"provider_order" is missing: pin the upstream that serves the model (e.g. ["anthropic"]) so a run never scores a silent fallback`)
			}
			for _, p := range e.ProviderOrder {
				if strings.TrimSpace(p) == "" {
					return errors.New(`"provider_order" has an empty provider name`)
				}
			}
			if err := oneOf("effort", e.Effort, "", "none", "minimal", "low", "medium", "high", "xhigh"); err != nil {
				return err
			}
			return checkSampling(e)
		},
	},
	HTTP: {
		fields: []string{"url", "request_template", "response_path", "headers", "api_key_env"},
		validate: func(e *Entry) error {
			if err := httpURL("url", e.URL, "the endpoint that takes the request template"); err != nil {
				return err
			}
			if len(e.RequestTemplate) == 0 {
				return errors.New(`an http model needs "request_template", the JSON body with "{{prompt}}" where the prompt goes`)
			}
			if !strings.Contains(string(e.RequestTemplate), "{{prompt}}") {
				return errors.New(`"request_template" has no "{{prompt}}" placeholder; put it in the string field that carries the prompt`)
			}
			if e.ResponsePath == "" {
				return errors.New(`an http model needs "response_path", where the reply text is in the response JSON (e.g. "choices.0.text")`)
			}
			return envName(e.APIKeyEnv)
		},
	},
}

var envRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Backends lists the backend names catalogs accept.
func Backends() []string {
	out := make([]string, 0, len(validators))
	for k := range validators {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func oneOf(field, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	var shown []string
	for _, a := range allowed {
		if a != "" {
			shown = append(shown, a)
		}
	}
	return fmt.Errorf("%q must be one of %s, not %q", field, strings.Join(shown, ", "), v)
}

func httpURL(field, v, hint string) error {
	if v == "" {
		return fmt.Errorf("%q is missing: %s", field, hint)
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q %q is not an http(s) URL: %s", field, v, hint)
	}
	return nil
}

// envName checks api_key_env names a variable; pasting the key itself there
// would put a secret in a file.
func envName(v string) error {
	if v == "" {
		return nil
	}
	if !envRE.MatchString(v) {
		return fmt.Errorf(`"api_key_env" must be the name of the environment variable that holds the key (e.g. "VLLM_API_KEY"), not the key itself`)
	}
	return nil
}

func checkSampling(e *Entry) error {
	s := e.Sampling
	if e.MaxTokens < 0 {
		return fmt.Errorf(`"max_tokens" must be positive, not %d`, e.MaxTokens)
	}
	if s == nil {
		return nil
	}
	if s.Temperature != nil && (*s.Temperature < 0 || *s.Temperature > 2) {
		return fmt.Errorf(`"sampling.temperature" must be between 0 and 2, not %g`, *s.Temperature)
	}
	if s.TopP != nil && (*s.TopP <= 0 || *s.TopP > 1) {
		return fmt.Errorf(`"sampling.top_p" must be in (0, 1], not %g`, *s.TopP)
	}
	if s.TopK != nil && *s.TopK < 0 {
		return fmt.Errorf(`"sampling.top_k" must be 0 or more, not %d`, *s.TopK)
	}
	return nil
}

// foreignFields rejects settings that belong to another backend, which
// would otherwise be silently ignored.
func foreignFields(e Entry, allowed []string) error {
	ok := map[string]bool{}
	for _, f := range append(append([]string(nil), common...), allowed...) {
		ok[f] = true
	}
	v := reflect.ValueOf(e)
	t := v.Type()
	var bad []string
	for i := 0; i < t.NumField(); i++ {
		name := jsonName(t.Field(i))
		if name == "" || ok[name] || v.Field(i).IsZero() {
			continue
		}
		bad = append(bad, fmt.Sprintf("%q", name))
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s not used by backend %q; remove it or change the backend", strings.Join(bad, ", ")+map[bool]string{true: " is", false: " are"}[len(bad) == 1], e.Backend)
	}
	return nil
}

func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	name, _, _ := strings.Cut(tag, ",")
	if name == "-" {
		return ""
	}
	return name
}

func jsonFieldNames() []string {
	t := reflect.TypeOf(Entry{})
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if n := jsonName(t.Field(i)); n != "" {
			out = append(out, n)
		}
	}
	return out
}

package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Checks the backends share, so that their settings are worded alike.

// OneOf checks v is one of allowed ("" among them means unset is fine).
func OneOf(field, v string, allowed ...string) error {
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

// HTTPURL checks v is an http(s) URL; hint says what belongs there.
func HTTPURL(field, v, hint string) error {
	if v == "" {
		return fmt.Errorf("%q is missing: %s", field, hint)
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q %q is not an http(s) URL: %s", field, v, hint)
	}
	return nil
}

var envRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// EnvName checks api_key_env names a variable; pasting the key itself
// there would put a secret in a file.
func EnvName(v string) error {
	if v == "" {
		return nil
	}
	if !envRE.MatchString(v) {
		return fmt.Errorf(`"api_key_env" must be the name of the environment variable that holds the key (e.g. "VLLM_API_KEY"), not the key itself`)
	}
	return nil
}

// CheckMaxTokens checks the entry's max_tokens default.
func CheckMaxTokens(e Entry) error {
	if e.MaxTokens < 0 {
		return fmt.Errorf(`"max_tokens" must be positive, not %d`, e.MaxTokens)
	}
	return nil
}

// CheckDefaults checks the entry's max_tokens and sampling defaults.
func CheckDefaults(e Entry) error {
	if err := CheckMaxTokens(e); err != nil {
		return err
	}
	s := e.Sampling
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

// HeadersSHA256 is a digest of header templates for an Identity: a custom
// header may select a model version, but a literal value must not be
// written down. Empty without headers.
func HeadersSHA256(h map[string]string) string {
	if len(h) == 0 {
		return ""
	}
	b, _ := json.Marshal(h) // a map of strings always encodes; keys sorted
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

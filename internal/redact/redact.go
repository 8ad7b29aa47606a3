// Package redact keeps the credentials an API backend reads from the
// environment at call time (its key, header values written as ${NAME})
// out of everything the backend returns: texts, tool calls and errors.
package redact

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"unicode/utf8"
)

// Secrets are the values to scrub.
type Secrets []string

// Mark replaces each secret.
const Mark = "[REDACTED]"

// String is s with every secret replaced by Mark. Longer secrets go
// first, so one that contains another is not left half scrubbed.
func (r Secrets) String(s string) string {
	sorted := append(Secrets(nil), r...)
	sort.SliceStable(sorted, func(i, j int) bool { return len(sorted[i]) > len(sorted[j]) })
	for _, sec := range sorted {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, Mark)
		}
	}
	return s
}

// SnippetLen is how many bytes of a body Snippet keeps.
const SnippetLen = 300

// Snippet is the start of a body for an error message: at most SnippetLen
// bytes, then "…". Secrets are scrubbed before the cut, which could
// otherwise leave part of a key that no longer matches it; the cut falls
// between characters.
func (r Secrets) Snippet(b []byte) string {
	s := strings.TrimSpace(r.String(string(b)))
	if len(s) <= SnippetLen {
		return s
	}
	cut := SnippetLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Err is err with every secret scrubbed from its message. errors.Is still
// sees the wrapped errors (lm.ErrUnsupported must survive redaction);
// errors.As does not, since their messages still hold the secrets.
func (r Secrets) Err(err error) error {
	if err == nil {
		return nil
	}
	return &scrubbed{msg: r.String(err.Error()), cause: err}
}

type scrubbed struct {
	msg   string
	cause error
}

func (e *scrubbed) Error() string { return e.msg }

func (e *scrubbed) Is(target error) bool { return errors.Is(e.cause, target) }

// Headers sets every header of values on h, with ${NAME} replaced by
// getenv(NAME); a variable that is unset or empty is an error naming the
// header and the variable. A value that read a variable is a secret, and
// so is each variable's own value: a server that answers "invalid token
// abc" for "Authorization: Bearer ${TOKEN}" echoes the variable alone.
func Headers(h http.Header, values map[string]string, getenv func(string) string) (Secrets, error) {
	names := make([]string, 0, len(values))
	for name := range values {
		names = append(names, name)
	}
	sort.Strings(names) // the same header is reported missing every time
	var secrets Secrets
	for _, name := range names {
		var missing []string
		var vars Secrets
		v := os.Expand(values[name], func(k string) string {
			val := getenv(k)
			if val == "" {
				missing = append(missing, k)
			}
			vars = append(vars, val)
			return val
		})
		if len(missing) > 0 {
			return secrets, fmt.Errorf("header %q: variable %s is not set; export it", name, strings.Join(missing, ", "))
		}
		if len(vars) > 0 {
			secrets = append(secrets, v)
			for _, val := range vars {
				if val != v {
					secrets = append(secrets, val)
				}
			}
		}
		h.Set(name, v)
	}
	return secrets, nil
}

package hub

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// DefaultEndpoint is the Hub itself; HF_ENDPOINT names a mirror instead.
const DefaultEndpoint = "https://huggingface.co"

// Env is what huggingface_hub reads from the environment, resolved the
// way it resolves it, so both tools find the same cache and token.
type Env struct {
	Endpoint string // HF_ENDPOINT, without a trailing slash
	CacheDir string // HF_HUB_CACHE, else $HF_HOME/hub
	Home     string // HF_HOME, else $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface
	// Token is sent as a bearer token to the endpoint (never to the hosts
	// it redirects to); TokenSource says where it came from, for messages.
	Token, TokenSource string
	// TokenPath is where the official CLI keeps its token (HF_TOKEN_PATH,
	// else $HF_HOME/token), named in messages about gated repositories.
	TokenPath string
	Offline   bool // HF_HUB_OFFLINE
}

// FromEnv reads the environment through getenv (os.Getenv outside tests).
// HOME is read through getenv too, so tests need not touch the real one.
func FromEnv(getenv func(string) string) (Env, error) {
	var e Env
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	expand := func(p string) string {
		if p == "~" || strings.HasPrefix(p, "~/") {
			return filepath.Join(home, p[1:])
		}
		return p
	}
	e.Home = expand(getenv("HF_HOME"))
	if e.Home == "" {
		base := expand(getenv("XDG_CACHE_HOME"))
		if base == "" {
			if home == "" {
				return Env{}, fmt.Errorf("no home folder to put the Hugging Face cache in: set HF_HUB_CACHE (or HF_HOME) to a folder")
			}
			base = filepath.Join(home, ".cache")
		}
		e.Home = filepath.Join(base, "huggingface")
	}
	// HUGGINGFACE_HUB_CACHE is the older name huggingface_hub still reads.
	e.CacheDir = expand(firstSet(getenv, "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"))
	if e.CacheDir == "" {
		e.CacheDir = filepath.Join(e.Home, "hub")
	}

	e.Endpoint = strings.TrimRight(getenv("HF_ENDPOINT"), "/")
	if e.Endpoint == "" {
		e.Endpoint = DefaultEndpoint
	}
	if u, err := url.Parse(e.Endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Env{}, fmt.Errorf("HF_ENDPOINT %q is not an http(s) URL; set it to a mirror's address such as https://hf-mirror.com, or unset it for %s", e.Endpoint, DefaultEndpoint)
	}

	e.TokenPath = expand(getenv("HF_TOKEN_PATH"))
	if e.TokenPath == "" {
		e.TokenPath = filepath.Join(e.Home, "token")
	}
	for _, name := range []string{"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"} {
		if t := strings.TrimSpace(getenv(name)); t != "" {
			e.Token, e.TokenSource = t, name
			break
		}
	}
	if e.Token == "" {
		data, err := os.ReadFile(e.TokenPath)
		switch {
		case err == nil:
			if t := strings.TrimSpace(string(data)); t != "" {
				e.Token, e.TokenSource = t, e.TokenPath
			}
		case !os.IsNotExist(err):
			return Env{}, fmt.Errorf("reading the Hugging Face token: %w; fix its permissions, or set HF_TOKEN (or HF_TOKEN_PATH) instead", err)
		}
	}

	// Like huggingface_hub, only 1/ON/YES/TRUE (any case) turn it on.
	switch strings.ToUpper(strings.TrimSpace(getenv("HF_HUB_OFFLINE"))) {
	case "1", "ON", "YES", "TRUE":
		e.Offline = true
	}
	return e, nil
}

func firstSet(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return v
		}
	}
	return ""
}

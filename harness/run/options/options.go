// Package options gives every run option one name that works two ways: a
// flag on the root test package (-name) and an environment variable
// (FEATHER_NAME), so `go test ./...`, where flags would reach every package,
// can be configured through the environment. A flag beats its variable.
package options

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Option describes one registered option, for help text and the README.
type Option struct {
	Flag    string // without the leading dash
	Env     string
	Default string
	Usage   string
}

// Set registers options on a FlagSet and reads their variables.
type Set struct {
	fs     *flag.FlagSet
	getenv func(string) string

	mu   sync.Mutex
	opts []Option
	errs []error
}

// New makes a Set over fs, reading variables with getenv.
func New(fs *flag.FlagSet, getenv func(string) string) *Set {
	return &Set{fs: fs, getenv: getenv}
}

// Default is the Set of the test binary: flag.CommandLine and os.Getenv.
var Default = New(flag.CommandLine, os.Getenv)

// EnvName turns a flag name into its variable: "fw.style" -> "FEATHER_FW_STYLE".
func EnvName(flagName string) string {
	r := strings.NewReplacer(".", "_", "-", "_")
	return "FEATHER_" + strings.ToUpper(r.Replace(flagName))
}

func (s *Set) register(name, def, usage string) (envVal string, ok bool) {
	env := EnvName(name)
	s.mu.Lock()
	s.opts = append(s.opts, Option{Flag: name, Env: env, Default: def, Usage: usage})
	s.mu.Unlock()
	v := s.getenv(env)
	return v, v != ""
}

func (s *Set) fail(err error) {
	s.mu.Lock()
	s.errs = append(s.errs, err)
	s.mu.Unlock()
}

// String registers a string option.
func (s *Set) String(name, def, usage string) *string {
	if v, ok := s.register(name, def, usage); ok {
		def = v
	}
	return s.fs.String(name, def, usage+" ("+EnvName(name)+")")
}

// Bool registers a boolean option; the variable takes strconv.ParseBool forms.
func (s *Set) Bool(name string, def bool, usage string) *bool {
	if v, ok := s.register(name, strconv.FormatBool(def), usage); ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			s.fail(fmt.Errorf("%s=%q: want true or false", EnvName(name), v))
		} else {
			def = b
		}
	}
	return s.fs.Bool(name, def, usage+" ("+EnvName(name)+")")
}

// Int registers an integer option.
func (s *Set) Int(name string, def int, usage string) *int {
	if v, ok := s.register(name, strconv.Itoa(def), usage); ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			s.fail(fmt.Errorf("%s=%q: want a whole number", EnvName(name), v))
		} else {
			def = n
		}
	}
	return s.fs.Int(name, def, usage+" ("+EnvName(name)+")")
}

// Duration registers a duration option ("90s", "5m").
func (s *Set) Duration(name string, def time.Duration, usage string) *time.Duration {
	if v, ok := s.register(name, def.String(), usage); ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			s.fail(fmt.Errorf("%s=%q: want a duration such as 90s or 5m", EnvName(name), v))
		} else {
			def = d
		}
	}
	return s.fs.Duration(name, def, usage+" ("+EnvName(name)+")")
}

// Err reports every malformed variable seen so far.
func (s *Set) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(s.errs...)
}

// All lists the registered options sorted by flag name.
func (s *Set) All() []Option {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]Option(nil), s.opts...)
	sort.Slice(out, func(i, j int) bool { return out[i].Flag < out[j].Flag })
	return out
}

// String, Bool, Int and Duration register on Default.
func String(name, def, usage string) *string { return Default.String(name, def, usage) }
func Bool(name string, def bool, usage string) *bool {
	return Default.Bool(name, def, usage)
}
func Int(name string, def int, usage string) *int { return Default.Int(name, def, usage) }
func Duration(name string, def time.Duration, usage string) *time.Duration {
	return Default.Duration(name, def, usage)
}

// List splits a comma-separated option value, dropping blanks.
func List(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

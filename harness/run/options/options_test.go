package options

import (
	"flag"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEnvName(t *testing.T) {
	for in, want := range map[string]string{
		"models":      "FEATHER_MODELS",
		"fw.style":    "FEATHER_FW_STYLE",
		"show-levels": "FEATHER_SHOW_LEVELS",
	} {
		assert.Equal(t, want, EnvName(in), in)
	}
}

func TestVariableThenFlag(t *testing.T) {
	env := map[string]string{"FEATHER_MODELS": "a,b", "FEATHER_TRIALS": "3", "FEATHER_STRICT": "true", "FEATHER_TIMEOUT": "2m"}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	s := New(fs, func(k string) string { return env[k] })
	models := s.String("models", "", "models")
	trials := s.Int("trials", 1, "trials")
	strict := s.Bool("strict", false, "strict")
	timeout := s.Duration("timeout", time.Minute, "timeout")
	require.NoError(t, s.Err())
	assert.Equal(t, "a,b", *models)
	assert.Equal(t, 3, *trials)
	assert.True(t, *strict)
	assert.Equal(t, 2*time.Minute, *timeout)

	require.NoError(t, fs.Parse([]string{"-models=c", "-trials=5"}))
	assert.Equal(t, "c", *models, "a flag beats its variable")
	assert.Equal(t, 5, *trials)
	assert.Equal(t, []Option{
		{Flag: "models", Env: "FEATHER_MODELS", Default: "", Usage: "models"},
		{Flag: "strict", Env: "FEATHER_STRICT", Default: "false", Usage: "strict"},
		{Flag: "timeout", Env: "FEATHER_TIMEOUT", Default: "1m0s", Usage: "timeout"},
		{Flag: "trials", Env: "FEATHER_TRIALS", Default: "1", Usage: "trials"},
	}, s.All())
}

func TestMalformedVariables(t *testing.T) {
	env := map[string]string{"FEATHER_TRIALS": "three", "FEATHER_STRICT": "yes please", "FEATHER_TIMEOUT": "soon"}
	s := New(flag.NewFlagSet("t", flag.ContinueOnError), func(k string) string { return env[k] })
	trials := s.Int("trials", 1, "")
	s.Bool("strict", false, "")
	s.Duration("timeout", time.Minute, "")
	assert.Equal(t, 1, *trials, "a bad variable leaves the default")
	assert.EqualError(t, s.Err(), `FEATHER_TRIALS="three": want a whole number
FEATHER_STRICT="yes please": want true or false
FEATHER_TIMEOUT="soon": want a duration such as 90s or 5m`)
}

func TestList(t *testing.T) {
	assert.Equal(t, []string{"a", "b"}, List(" a, ,b,"))
	assert.Nil(t, List(""))
}

// Command feather holds the tools around the go test runner: debugging a
// tokenizer, chat template or model, checking a Featherbench answer,
// validating files, and turning runs into reports and leaderboards. Each
// subcommand lives in its own file and registers itself here.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"unicode"
)

// command is one subcommand. run returns the process exit status.
type command struct {
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

func register(name, summary string, run func(args []string, stdin io.Reader, stdout, stderr io.Writer) int) {
	if _, dup := commands[name]; dup {
		panic("feather: subcommand " + name + " registered twice")
	}
	commands[name] = command{summary: summary, run: run}
}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func dispatch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "feather: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	return c.run(args[1:], stdin, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: feather <command> [arguments]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'feather <command> -h' for a command's flags.")
	fmt.Fprint(w, suitesHelp)
}

// suitesHelp says where the benchmarks are: they are go tests, not
// feather commands.
const suitesHelp = `
The suites run under go test, from the repository root:
  make bench                          all three suites on the built-in smoke model, then a leaderboard and report
  go test -run TestFeatherweight .    Featherweight
  go test -run TestMicrobench .       μBench
  go test -run TestFeatherbench .     Featherbench
  go test -run TestMicrobench . -models=smoke,smollm2-135m
                                      only these catalog keys (-models=all: every model)
Each run writes results/<stamp>/, one folder per suite; results/latest links to the newest.
Then 'feather report results/latest' and 'feather leaderboard results/latest'.
`

// setUsage gives fs the -h every command prints: the usage line (feather,
// the command and args, its arguments), the command's one-line summary as
// the command list shows it, details when there are any, then the flags.
func setUsage(fs *flag.FlagSet, name, args, details string) {
	fs.Usage = func() {
		w := fs.Output()
		summary := []rune(commands[name].summary)
		summary[0] = unicode.ToUpper(summary[0])
		fmt.Fprintf(w, "usage: feather %s %s\n\n%s.\n", name, args, string(summary))
		if details != "" {
			fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(details))
		}
		fmt.Fprintln(w, "\nflags:")
		fs.PrintDefaults()
	}
}

// parseFailed is the exit status after fs.Parse (or parseInterspersed)
// returned err: 0 for -h, whose usage the flag set has printed, else 2
// (the flag set has printed the problem).
func parseFailed(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

// parseInterspersed parses flags given before, between or after the
// positional arguments, and returns the positional ones.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// failer returns a function that prints "feather <name>: message" to
// stderr and returns code, so a command can end with return fail(2, ...).
func failer(stderr io.Writer, name string) func(code int, format string, a ...any) int {
	return func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "feather "+name+": "+format+"\n", a...)
		return code
	}
}

package chat

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/ncruces/go-strftime"
	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/parser"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// jinjaConfig is transformers' environment: trim_blocks and lstrip_blocks
// on, keep_trailing_newline off, no autoescape.
func jinjaConfig() *config.Config {
	c := config.New()
	c.TrimBlocks = true
	c.LeftStripBlocks = true
	return c
}

// environment is gonja's built-ins with the Python behaviour transformers
// relies on put back where gonja differs, and the globals it adds.
var environment = func() *exec.Environment {
	filters := exec.NewFilterSet(map[string]exec.FilterFunction{}).Update(builtins.Filters)
	for name, f := range map[string]exec.FilterFunction{
		"tojson": filterToJSON,
		"trim":   filterTrim,
		"items":  filterItems,
		"list":   filterList,
	} {
		must(filters.Replace(name, f))
	}
	tests := exec.NewTestSet(map[string]exec.TestFunction{}).Update(builtins.Tests)
	for name, f := range map[string]exec.TestFunction{
		"defined":   testDefined,
		"undefined": testUndefined,
		"none":      testNone,
		"true":      testTrue,
		"false":     testFalse,
	} {
		must(tests.Replace(name, f))
	}
	structures := exec.NewControlStructureSet(map[string]parser.ControlStructureParser{}).Update(builtins.ControlStructures)
	must(structures.Register("generation", generationParser))
	return &exec.Environment{
		Context:           exec.EmptyContext().Update(builtins.GlobalFunctions).Update(builtins.GlobalVariables),
		Filters:           filters,
		Tests:             tests,
		ControlStructures: structures,
		Methods: exec.Methods{
			Bool:  builtins.Methods.Bool,
			Int:   builtins.Methods.Int,
			Float: builtins.Methods.Float,
			Str:   withMethods(builtins.Methods.Str, strMethodNames, strMethods),
			Dict:  withMethods(builtins.Methods.Dict, dictMethodNames, dictMethods),
			List:  builtins.Methods.List,
		},
	}
}()

func must(err error) {
	if err != nil {
		panic("chat: building the template environment: " + err.Error())
	}
}

// gonja's method sets cannot be extended in place, so a new set copies the
// built-ins by name and adds ours over them.
var (
	strMethodNames = []string{
		"capitalize", "capwords", "casefold", "center", "count", "encode", "expandtabs",
		"find", "format", "format_map", "isalnum", "isalpha", "isascii", "isdecimal",
		"isdigit", "islower", "isnumeric", "isprintable", "isspace", "istitle", "isupper",
		"join", "ljust", "lower", "partition", "removeprefix", "removesuffix", "rfind",
		"rjust", "rpartition", "splitlines", "swapcase", "title", "upper", "zfill",
	}
	dictMethodNames = []string{"clear", "copy", "pop", "setdefault", "update"}
)

func withMethods[T any](base *exec.MethodSet[T], names []string, ours map[string]exec.Method[T]) *exec.MethodSet[T] {
	m := map[string]exec.Method[T]{}
	for _, n := range names {
		if f, ok := base.Get(n); ok {
			m[n] = f
		}
	}
	for n, f := range ours {
		m[n] = f
	}
	return exec.NewMethodSet(m)
}

// sourceLoader serves the template itself and nothing else: like
// transformers' sandbox, a chat template cannot include files.
type sourceLoader struct{ id, source string }

func (l *sourceLoader) Read(id string) (io.Reader, error) {
	if id != l.id {
		return nil, fmt.Errorf("chat templates cannot load other templates (%q)", id)
	}
	return strings.NewReader(l.source), nil
}
func (l *sourceLoader) Resolve(id string) (string, error)      { return id, nil }
func (l *sourceLoader) Inherit(string) (loaders.Loader, error) { return l, nil }

func compile(name, source string) (*compiled, error) {
	cfg := jinjaConfig()
	loader := &sourceLoader{id: "chat_template", source: rewriteConditionals(source, cfg)}
	tpl, err := exec.NewTemplate("chat_template", cfg, loader, environment)
	if err != nil {
		// gonja's message repeats the whole source; keep only the cause.
		if inner := errors.Unwrap(err); inner != nil {
			err = inner
		}
		return nil, fmt.Errorf("%s: template syntax error: %v", name, err)
	}
	return &compiled{name: name, source: source, tpl: tpl}, nil
}

// ---- tests ---------------------------------------------------------------

// A missing variable or attribute is gonja's invalid value; an explicit
// None is the typed nil of noneType, which Jinja counts as defined.
func testDefined(_ *exec.Context, in *exec.Value, _ *exec.VarArgs) (bool, error) {
	return in.Val.IsValid() && !in.IsError(), nil
}

func testUndefined(c *exec.Context, in *exec.Value, p *exec.VarArgs) (bool, error) {
	d, err := testDefined(c, in, p)
	return !d, err
}

func testNone(_ *exec.Context, in *exec.Value, _ *exec.VarArgs) (bool, error) {
	return in.IsNil() && !in.IsError(), nil
}

// Jinja's true/false tests are identity checks: only booleans pass.
func testTrue(_ *exec.Context, in *exec.Value, _ *exec.VarArgs) (bool, error) {
	return in.IsBool() && in.Bool(), nil
}

func testFalse(_ *exec.Context, in *exec.Value, _ *exec.VarArgs) (bool, error) {
	return in.IsBool() && !in.Bool(), nil
}

// ---- filters -------------------------------------------------------------

// filterToJSON is transformers' tojson: json.dumps(x, ensure_ascii=False,
// indent=None, separators=None, sort_keys=False), arguments positional in
// that order or by keyword.
func filterToJSON(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	args, err := bindArgs("tojson", params, "ensure_ascii", "indent", "separators", "sort_keys")
	if err != nil {
		return exec.AsValue(err)
	}
	var opt dumpOptions
	if a := args["ensure_ascii"]; a != nil {
		opt.ensureASCII = a.IsTrue()
	}
	if a := args["indent"]; a != nil && !a.IsNil() {
		switch {
		case a.IsInteger():
			opt.indent = strings.Repeat(" ", max(0, a.Integer()))
		case a.IsString():
			opt.indent = a.String()
		default:
			return exec.AsValue(fmt.Errorf("tojson: indent must be an integer or a string, not %s", a.String()))
		}
		opt.indented = true
	}
	if a := args["separators"]; a != nil && !a.IsNil() {
		if !a.IsList() || a.Len() != 2 {
			return exec.AsValue(errors.New("tojson: separators must be a pair of strings (item_separator, key_separator)"))
		}
		opt.itemSep, opt.keySep = a.Index(0).String(), a.Index(1).String()
		opt.customSeps = true
	}
	if a := args["sort_keys"]; a != nil {
		opt.sortKeys = a.IsTrue()
	}
	s, err := dumpJSON(in, opt)
	if err != nil {
		return exec.AsValue(err)
	}
	return exec.AsValue(s)
}

// bindArgs maps positional and keyword arguments onto names, Python style.
func bindArgs(fn string, params *exec.VarArgs, names ...string) (map[string]*exec.Value, error) {
	out := map[string]*exec.Value{}
	if len(params.Args) > len(names) {
		return nil, fmt.Errorf("%s takes at most %d arguments (%d given)", fn, len(names), len(params.Args))
	}
	for i, a := range params.Args {
		out[names[i]] = a
	}
	for k, v := range params.KwArgs {
		known := false
		for _, n := range names {
			known = known || n == k
		}
		if !known {
			return nil, fmt.Errorf("%s got an unexpected keyword argument %q", fn, k)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("%s got multiple values for argument %q", fn, k)
		}
		out[k] = v
	}
	return out, nil
}

// filterTrim is Jinja's trim: str.strip(chars) with Python's whitespace.
func filterTrim(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	args, err := bindArgs("trim", params, "chars")
	if err != nil {
		return exec.AsValue(err)
	}
	return exec.AsValue(pyStrip(in.String(), optString(args["chars"]), true, true))
}

// filterItems lists a mapping's (key, value) pairs in insertion order.
func filterItems(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	if len(params.Args) > 0 || len(params.KwArgs) > 0 {
		return exec.AsValue(errors.New("items takes no arguments"))
	}
	if in.IsNil() {
		return exec.AsValue(pyList{})
	}
	if !in.IsDict() {
		return exec.AsValue(fmt.Errorf("items needs a mapping, not %s", in.String()))
	}
	return exec.AsValue(dictItems(in))
}

// filterList is Jinja's list: a string's characters, a mapping's keys, a
// sequence's items, as a list that indexes like Python's (x|list)[-1].
func filterList(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	if len(params.Args) > 0 || len(params.KwArgs) > 0 {
		return exec.AsValue(errors.New("list takes no arguments"))
	}
	out := pyList{}
	switch {
	case in.IsNil():
	case in.IsString():
		for _, r := range in.String() {
			out = append(out, string(r))
		}
	case in.IsDict() || in.IsList() || in.Val.Kind() == reflect.Chan: // range() is a channel
		in.Iterate(func(_, _ int, item, _ *exec.Value) bool {
			out = append(out, item)
			return true
		}, func() {})
	default:
		return exec.AsValue(fmt.Errorf("list needs a sequence or mapping, not %s", in.String()))
	}
	return exec.AsValue(out)
}

// ---- globals -------------------------------------------------------------

func strftimeNow(format string) string {
	return strftime.Format(format, now())
}

// ---- {% generation %} ----------------------------------------------------

// generationBlock is transformers' {% generation %}...{% endgeneration %},
// which marks assistant text for return_assistant_tokens_mask; rendering
// only outputs its body.
type generationBlock struct {
	location *tokens.Token
	body     *nodes.Wrapper
}

func (g *generationBlock) Position() *tokens.Token { return g.location }
func (g *generationBlock) String() string {
	return fmt.Sprintf("GenerationBlock(Line=%d Col=%d)", g.location.Line, g.location.Col)
}

func (g *generationBlock) Execute(r *exec.Renderer, _ *nodes.ControlStructureBlock) error {
	return r.ExecuteWrapper(g.body)
}

func generationParser(p *parser.Parser, args *parser.Parser) (nodes.ControlStructure, error) {
	location := p.Current()
	if !args.End() {
		return nil, args.Error("generation takes no arguments", args.Current())
	}
	body, endArgs, err := p.WrapUntil("endgeneration")
	if err != nil {
		return nil, err
	}
	if !endArgs.End() {
		return nil, endArgs.Error("endgeneration takes no arguments", endArgs.Current())
	}
	return &generationBlock{location: location, body: body}, nil
}

package chat_test

import (
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/chat"
	"github.com/feather-eval/feather/harness/lm"
)

// render compiles src and renders it with vars as Extra.
func render(t *testing.T, src string, vars map[string]any) string {
	t.Helper()
	tpl, err := chat.New(src, "<s>", "</s>")
	require.NoError(t, err)
	out, err := tpl.Render(nil, chat.Options{Extra: vars})
	require.NoError(t, err)
	return out
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// Expected strings are what Python's json.dumps writes with transformers'
// tojson defaults (ensure_ascii=False).
func TestToJSON(t *testing.T) {
	tests := []struct {
		name, src string
		x         any
		want      string
	}{
		{"key order and spacing", "{{ x|tojson }}", raw(`{"b":1,"a":[1,2.5,null,true,"x"],"c":{"z":{},"y":[]}}`),
			`{"b": 1, "a": [1, 2.5, null, true, "x"], "c": {"z": {}, "y": []}}`},
		{"template dict literal keeps order", "{{ {'z': 1, 'a': 2}|tojson }}", nil, `{"z": 1, "a": 2}`},
		{"unicode kept, escapes as Python", "{{ x|tojson }}", "é日🙂\"\\\n\t\r\b\f\x01\x7f/<>&'",
			`"é日🙂\"\\\n\t\r\b\f\u0001` + "\x7f" + `/<>&'"`},
		{"ensure_ascii", "{{ x|tojson(ensure_ascii=true) }}", "é🙂\x7f", `"\u00e9\ud83d\ude42\u007f"`},
		{"indent", "{{ x|tojson(indent=2) }}", raw(`{"a":[1,2],"b":{},"c":[]}`),
			"{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {},\n  \"c\": []\n}"},
		{"indent 0 still breaks lines", "{{ x|tojson(indent=0) }}", raw(`[1,{"a":2}]`), "[\n1,\n{\n\"a\": 2\n}\n]"},
		{"indent string", "{{ x|tojson(indent='\t') }}", raw(`[1]`), "[\n\t1\n]"},
		{"separators", "{{ x|tojson(separators=(',', ':')) }}", raw(`{"a":[1,2]}`), `{"a":[1,2]}`},
		{"sort_keys", "{{ x|tojson(sort_keys=true) }}", raw(`{"b":1,"a":2}`), `{"a": 2, "b": 1}`},
		{"positional ensure_ascii first", "{{ x|tojson(true) }}", "é", `"\u00e9"`},
		{"json floats as Python reprs them", "{{ x|tojson }}", raw(`[3.0, 1e16, 1.5e16, 1e-5, 0.0001, 123456789.0, -0.0, 2.5e-7, 1E+2]`),
			`[3.0, 1e+16, 1.5e+16, 1e-05, 0.0001, 123456789.0, -0.0, 2.5e-07, 100.0]`},
		{"json integers", "{{ x|tojson }}", raw(`[0, -7, 12345678901234]`), `[0, -7, 12345678901234]`},
		{"Go integral floats are ints", "{{ x|tojson }}", []any{3.0, 0.5, float32(2)}, `[3, 0.5, 2]`},
		{"non-finite floats", "{{ x|tojson }}", []any{math.NaN(), math.Inf(1), math.Inf(-1)}, `[NaN, Infinity, -Infinity]`},
		{"Go map keys in conventional order", "{{ x|tojson }}",
			map[string]any{"function": map[string]any{"parameters": map[string]any{}, "zeta": 1, "name": "f", "description": "d"}, "type": "function"},
			`{"type": "function", "function": {"name": "f", "description": "d", "parameters": {}, "zeta": 1}}`},
		{"string", "{{ 'a\"b'|tojson }}", nil, `"a\"b"`},
		{"none", "{{ x|tojson }}", nil, `null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, render(t, tt.src, map[string]any{"x": tt.x}))
		})
	}
}

// Expected outputs are Jinja's with trim_blocks and lstrip_blocks on.
func TestWhitespaceControl(t *testing.T) {
	tests := []struct{ src, want string }{
		{"{% if true %}\nyes\n{% endif %}\n", "yes\n"},
		{"  {% if true %}x{% endif %}", "x"},
		{"  {{ 'x' }}", "  x"},
		{"a  {% if true %}b{% endif %}", "a  b"},
		{"  {# note #}\nx", "x"},
		{"x\n", "x"},
		{"x\n\n", "x\n"},
		{"{{ 'x' }}\ny", "x\ny"},
		{"a \n{%- if true -%}\n b{% endif %}", "ab"},
		{"{% for i in [1, 2] %}\n  - {{ i }}\n{% endfor %}\n", "  - 1\n  - 2\n"},
		{"line\r\n{% if true %}\r\nz\r\n{% endif %}", "line\nz\n"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.src), func(t *testing.T) {
			assert.Equal(t, tt.want, render(t, tt.src, nil))
		})
	}
}

// Expected outputs are Python's (str methods) and Jinja's (tests, slices).
func TestPythonSemantics(t *testing.T) {
	tests := []struct {
		name, src, want string
		vars            map[string]any
	}{
		{"strip chars", "{{ 'xxhixx'.strip('x') }}|{{ '\\n\\nhi\\n'.lstrip('\\n') }}|{{ 'hi\\n\\n'.rstrip('\\n') }}", "hi|hi\n|hi", nil},
		{"strip python whitespace", "[{{ x.strip() }}]", "[a]", map[string]any{"x": "\u3000\x1c\u00a0 a\t\u2029\u0085"}},
		{"trim filter", "[{{ x|trim }}][{{ 'xxhixx'|trim('x') }}]", "[a b][hi]", map[string]any{"x": " \u2003a b\n"}},
		{"split", "{{ ' a  b '.split()|join('|') }}/{{ 'a,b,,c'.split(',')|join('|') }}/{{ 'a b c'.split(' ', 1)|join('|') }}/{{ ' a b  c '.split(none, 1)|join('|') }}",
			"a|b/a|b||c/a|b c/a|b  c ", nil},
		{"rsplit", "{{ 'a,b,c'.rsplit(',', 1)|join('|') }}/{{ ' a b  c '.rsplit(none, 1)|join('|') }}", "a,b|c/ a b|c", nil},
		{"split indexing", "{{ x.split('</think>')[-1].lstrip('\\n') }}|{{ x.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') }}",
			"answer|why", map[string]any{"x": "<think>\nwhy\n</think>\n\nanswer"}},
		{"startswith endswith", "{{ 'abc'.startswith('ab') }}{{ 'abc'.startswith(('x', 'a')) }}{{ 'abc'.endswith('bc') }}{{ 'abc'.startswith('b', 1) }}{{ 'abc'.endswith('x') }}",
			"TrueTrueTrueTrueFalse", nil},
		{"replace", "{{ 'a-b-c'.replace('-', '+') }}|{{ 'a-b-c'.replace('-', '+', 1) }}", "a+b+c|a+b-c", nil},
		{"negative index of a one-item list", "{{ messages[-1].role }}|{{ messages[0]['role'] }}|{{ (messages|selectattr('role', 'equalto', 'user')|list)[-1].content }}|{{ ('ab'|list)[-1] }}",
			"user|user|hi|b", nil},
		{"list filter", "{{ range(3)|list|join(',') }}|{{ 'ab'|list|join(',') }}|{{ x|list|join(',') }}", "0,1,2|a,b|z,a", map[string]any{"x": raw(`{"z":1,"a":2}`)}},
		{"slices", "{{ [1, 2, 3][::-1]|join(',') }}|{{ [1, 2, 3][1:]|join(',') }}|{{ 'abc'[1:] }}", "3,2,1|2,3|bc", nil},
		{"length counts characters", "{{ 'é🙂'|length }}", "2", nil},
		{"defined and none", "{{ x is defined }}{{ x is none }}{{ y is defined }}{{ y is none }}{{ tools is defined }}{{ tools is none }}",
			"TrueTrueFalseTrueTrueTrue", map[string]any{"x": nil}},
		{"true and false tests are identity", "{{ 0 is false }}{{ false is false }}{{ 1 is true }}{{ true is true }}{{ y is false }}",
			"FalseTrueFalseTrueFalse", nil},
		{"empty object is falsy", "{{ 'yes' if x else 'no' }}|{{ 'yes' if y else 'no' }}", "no|yes", map[string]any{"x": raw(`{}`), "y": raw(`{"a":1}`)}},
		{"dict items and keys keep order", "{% for k, v in x.items() %}{{ k }}={{ v }};{% endfor %}{{ x.keys()|join(',') }}|{{ x.values()|join(',') }}|{% for k, v in x|items %}{{ k }}{% endfor %}|{{ x.get('m') }}{{ x.get('q', 'd') }}",
			"z=1;a=2;m=3;z,a,m|1,2,3|zam|3d", map[string]any{"x": raw(`{"z":1,"a":2,"m":3}`)}},
		{"namespace", "{% set ns = namespace(n=0) %}{% for i in [1, 2, 3] %}{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }}", "6", nil},
		{"loop and in", "{% for m in ['a', 'b'] %}{{ loop.index0 }}{{ m }}{% if loop.last %}!{% endif %}{% endfor %}{{ 'b' in 'abc' }}{{ 'k' in x }}",
			"0a1b!TrueTrue", map[string]any{"x": raw(`{"k":1}`)}},
		{"conditional expressions anywhere", "{{ 'a' + ('b' if t else 'c') + 'd' }}|{{ [1 if f else 2, 3 if t] }}|{{ ('x' if f else 'y' if f else 'z') }}|{{ (1 if f) is defined }}",
			"abd|[2, 3]|z|False", map[string]any{"t": true, "f": false}},
		{"conditional only evaluates its branch", "{{ (x.a.b if x else 'safe') }}", "safe", map[string]any{"x": nil}},
		{"concat and tilde", "{{ 'a' ~ 1 ~ none }}{{ 'b' + 'c' }}", "a1bc", nil},
		{"bools print as Python", "{{ true }} {{ 1 == 1 }}", "True True", nil},
		{"generation block renders its body", "{% generation %}kept{% endgeneration %}", "kept", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tpl, err := chat.New(tt.src, "", "")
			require.NoError(t, err)
			out, err := tpl.Render([]lm.Message{{Role: "user", Content: "hi"}}, chat.Options{Extra: tt.vars})
			require.NoError(t, err)
			assert.Equal(t, tt.want, out)
		})
	}
}

func TestSpecialTokensAndVariables(t *testing.T) {
	const src = "[{{ bos_token }}|{{ eos_token }}|{{ bos_token is defined }}|{{ add_generation_prompt }}|{{ enable_thinking }}]"
	tpl, err := chat.New(src, "<s>", "</s>")
	require.NoError(t, err)
	out, err := tpl.Render(nil, chat.Options{AddGenerationPrompt: true, Extra: map[string]any{"enable_thinking": false}})
	require.NoError(t, err)
	assert.Equal(t, "[<s>|</s>|True|True|False]", out)

	// An empty token is absent, as transformers leaves out None tokens.
	tpl, err = chat.New(src, "", "<|im_end|>")
	require.NoError(t, err)
	out, err = tpl.Render(nil, chat.Options{})
	require.NoError(t, err)
	assert.Equal(t, "[|<|im_end|>|False|False|]", out)

	// Extra may override a special token but not what the renderer sets.
	out, err = tpl.Render(nil, chat.Options{Extra: map[string]any{"eos_token": "E"}})
	require.NoError(t, err)
	assert.Equal(t, "[|E|False|False|]", out)
	for _, k := range []string{"messages", "tools", "documents", "add_generation_prompt"} {
		_, err = tpl.Render(nil, chat.Options{Extra: map[string]any{k: 1}})
		require.Error(t, err, k)
		assert.Contains(t, err.Error(), fmt.Sprintf("Options.Extra[%q] clashes", k))
	}
}

func TestToolsAndDocuments(t *testing.T) {
	const src = "{% if tools is not none %}{% for t in tools %}{{ t.function.name }}:{{ t|tojson }};{% endfor %}{% endif %}" +
		"{% if documents %}{% for d in documents %}[{{ d.title }}]{% endfor %}{% endif %}"
	tpl, err := chat.New(src, "", "")
	require.NoError(t, err)

	out, err := tpl.Render(nil, chat.Options{})
	require.NoError(t, err)
	assert.Equal(t, "", out)

	out, err = tpl.Render(nil, chat.Options{
		Tools:     []map[string]any{{"type": "function", "function": raw(`{"name":"f","parameters":{"b":1,"a":2}}`)}},
		Documents: []map[string]any{{"title": "T1", "text": "x"}, {"title": "T2", "text": "y"}},
	})
	require.NoError(t, err)
	assert.Equal(t, `f:{"type": "function", "function": {"name": "f", "parameters": {"b": 1, "a": 2}}};[T1][T2]`, out)
}

func TestRenderMapsRejectsUnsupportedValues(t *testing.T) {
	tpl, err := chat.New("{{ messages }}", "", "")
	require.NoError(t, err)
	_, err = tpl.RenderMaps([]map[string]any{{"role": "user", "content": "x"}, {"role": "user", "content": make(chan int)}}, chat.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "messages[1].content: unsupported value of type chan int")

	_, err = tpl.RenderMaps([]map[string]any{{"role": "user", "content": raw(`{"a":`)}}, chat.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "messages[0].content.a: invalid JSON")
}

func TestRaiseException(t *testing.T) {
	const src = "{% for m in messages %}{% if m.role == 'user' and loop.index0 % 2 == 1 %}" +
		"{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{{ m.content }}{% endfor %}"
	tpl, err := chat.New(src, "", "")
	require.NoError(t, err)

	out, err := tpl.Render([]lm.Message{{Role: "user", Content: "a"}, {Role: "assistant", Content: "b"}}, chat.Options{})
	require.NoError(t, err)
	assert.Equal(t, "ab", out)

	_, err = tpl.Render([]lm.Message{{Role: "user", Content: "a"}, {Role: "user", Content: "b"}}, chat.Options{})
	var raised *chat.ExceptionError
	require.ErrorAs(t, err, &raised)
	assert.Equal(t, "Conversation roles must alternate user/assistant/user/assistant/...", raised.Message)
	assert.Equal(t, "chat template: the template raised an exception: Conversation roles must alternate user/assistant/user/assistant/...", err.Error())
}

func TestSyntaxErrorsNameTheLine(t *testing.T) {
	tests := []struct{ src, want string }{
		{"line one\n{{ foo( }}", "chat template: template syntax error: expected either a number, string, keyword or identifier. (Line: 2 Col: 9"},
		{"{% for %}", "chat template: template syntax error: Unable to parse controlStructure \"for\""},
		{"{% if x %}\nno end", "chat template: template syntax error:"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			_, err := chat.New(tt.src, "", "")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestStrftimeNow(t *testing.T) {
	restore := chat.SetClock(func() time.Time { return time.Date(2026, 6, 13, 9, 5, 0, 0, time.UTC) })
	defer restore()
	assert.Equal(t, "13 Jun 2026 09:05", render(t, `{{ strftime_now("%d %b %Y %H:%M") }}`, nil))
}

func TestIncludesAreRefused(t *testing.T) {
	tpl, err := chat.New(`{% include "/etc/hostname" %}`, "", "")
	if err == nil {
		_, err = tpl.Render(nil, chat.Options{})
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot load other templates")
}

// Render is used from many goroutines by batching backends.
func TestRenderIsSafeForConcurrentUse(t *testing.T) {
	tpl, err := chat.New("{% set ns = namespace(n=0) %}{% for m in messages %}{% set ns.n = ns.n + 1 %}{{ m.content }}{% endfor %}{{ ns.n }}{{ x|tojson }}", "", "")
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				want := fmt.Sprintf("%d%d2{\"k\": %d}", i, j, i)
				out, err := tpl.Render([]lm.Message{{Content: fmt.Sprint(i)}, {Content: fmt.Sprint(j)}},
					chat.Options{Extra: map[string]any{"x": map[string]any{"k": i}}})
				if err == nil && out != want {
					err = fmt.Errorf("got %q, want %q", out, want)
				}
				if err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		assert.NoError(t, err)
	}
}

package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/feather-eval/feather/harness/backends/onnx/chat"
	"github.com/feather-eval/feather/internal/jsonpos"
)

func init() {
	register("chat", "render a model's chat template for a JSON message list on stdin", runChat)
}

// runChat prints exactly the text a local model would see for the messages
// on stdin, so a prompt can be checked against transformers byte for byte.
func runChat(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "", "model or tokenizer `folder` holding tokenizer_config.json (or chat_template.jinja)")
	genPrompt := fs.Bool("generation-prompt", false, "end with the tokens that open the assistant's turn (add_generation_prompt)")
	toolsFile := fs.String("tools", "", "JSON `file` with a list of tool definitions to pass as tools")
	name := fs.String("template", "", "`name` of one of the model's named chat templates")
	setUsage(fs, "chat", "--model DIR [--generation-prompt] [--tools FILE] [--template NAME] < messages.json", `
Reads a JSON list of messages ({"role": ..., "content": ...}, tool_calls and other fields
as the template expects) and prints the rendered prompt with no added newline.`)
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	fail := failer(stderr, "chat")
	if fs.NArg() > 0 {
		return fail(2, "unexpected argument %q; messages are read from stdin", fs.Arg(0))
	}
	if *model == "" {
		return fail(2, "--model DIR is required (a folder with tokenizer_config.json)")
	}

	data, err := io.ReadAll(stdin)
	if err != nil {
		return fail(2, "reading stdin: %v", err)
	}
	msgs, err := decodeObjects(data, "stdin")
	if err != nil {
		return fail(2, "%v\nstdin must be a JSON list of messages, e.g. [{\"role\": \"user\", \"content\": \"Hi\"}]", err)
	}
	for i, m := range msgs {
		var role string
		raw, _ := m["role"].(json.RawMessage)
		if json.Unmarshal(raw, &role) != nil || role == "" {
			return fail(2, "stdin: message %d has no \"role\" string", i)
		}
	}
	opt := chat.Options{AddGenerationPrompt: *genPrompt, Name: *name}
	if *toolsFile != "" {
		data, err := os.ReadFile(*toolsFile)
		if err != nil {
			return fail(2, "%v", err)
		}
		if opt.Tools, err = decodeObjects(data, *toolsFile); err != nil {
			return fail(2, "%v\n--tools must name a JSON list of tool definitions", err)
		}
	}

	tpl, err := chat.Load(*model)
	if err != nil {
		return fail(2, "%v", err)
	}
	out, err := tpl.RenderMaps(msgs, opt)
	if err != nil {
		return fail(2, "%v", err)
	}
	if _, err := io.WriteString(stdout, out); err != nil {
		return fail(1, "%v", err)
	}
	return 0
}

// decodeObjects reads a JSON list of objects, keeping each field's JSON as
// written so nested key order reaches tojson unchanged.
func decodeObjects(data []byte, where string) ([]map[string]any, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			return nil, fmt.Errorf("%s: want a list, got %s", where, jsonpos.Kind(data))
		}
		return nil, jsonpos.SyntaxError(where, data, err)
	}
	out := make([]map[string]any, len(items))
	for i, raw := range items {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil || obj == nil {
			return nil, fmt.Errorf("%s: item %d is %s, not an object", where, i, jsonpos.Kind(raw))
		}
		out[i] = make(map[string]any, len(obj))
		for k, v := range obj {
			out[i][k] = v
		}
	}
	return out, nil
}

package checkers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func init() { Register("json_schema", compileJSONSchema) }

// json_schema: the response's JSON document (JSONDocument) parses and is
// valid against schema (any draft; 2020-12 when $schema is absent).
func compileJSONSchema(s *Spec) (Func, error) {
	var raw map[string]any
	s.Require("schema", &raw, `a JSON Schema object, e.g. {"type": "object", "required": ["name"]}`)
	if s.Err() != nil {
		return nil, s.Err()
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(s.fields["schema"]))
	if err != nil {
		return nil, s.Errorf("schema", "%v", err)
	}
	const url = "checker-schema.json"
	c := jsonschema.NewCompiler()
	// A task's schema stands alone: a $ref to a file or URL would make
	// loading a task read the disk or the network. The drafts' metaschemas
	// are built in and still resolve.
	c.UseLoader(jsonschema.SchemeURLLoader{})
	if err := c.AddResource(url, doc); err != nil {
		return nil, s.Errorf("schema", "%v", err)
	}
	schema, err := c.Compile(url)
	if err != nil {
		return nil, s.Errorf("schema", "invalid schema: %s", strings.ReplaceAll(err.Error(), "\n", " "))
	}
	return func(_ context.Context, r Response) (bool, string, error) {
		text, where, ok := JSONDocument(r.Text)
		if !ok {
			return false, "no JSON found (no ```json block, fenced JSON or {...} object)", nil
		}
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
		if err != nil {
			return false, fmt.Sprintf("%s is not valid JSON: %v", where, err), nil
		}
		if err := schema.Validate(v); err != nil {
			var ve *jsonschema.ValidationError
			if !errors.As(err, &ve) {
				return false, "", err
			}
			return false, fmt.Sprintf("%s does not match the schema: %s", where, validationDetail(ve)), nil
		}
		return true, where + " matches the schema", nil
	}, nil
}

// validationDetail lists the leaf errors on one line, without the schema's
// internal URL that heads the library's message.
func validationDetail(ve *jsonschema.ValidationError) string {
	lines := strings.Split(ve.Error(), "\n")
	var out []string
	for _, l := range lines[1:] {
		out = append(out, strings.TrimLeft(strings.TrimSpace(l), "- "))
	}
	if len(out) == 0 {
		return lines[0]
	}
	sort.Strings(out) // the library's order varies between runs
	return strings.Join(out, "; ")
}

package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestValidateOutsideTheRepository: with no flags, in a folder holding
// none of the repository's files, validate names its flags.
func TestValidateOutsideTheRepository(t *testing.T) {
	t.Chdir(t.TempDir())
	code, out, errs := runCLI(t, "validate")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Equal(t, "feather validate: no file named, and this folder has none of the repository's own (models/*.json, tasks/, testdata/featherweight/featherweight.jsonl, testdata/microbench/); run it in the feather repository, or name your files: -catalog FILE (repeatable), -tasks DIR, -featherweight FILE, -microbench DIR\n", errs)
}

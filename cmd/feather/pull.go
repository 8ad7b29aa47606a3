package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/feather-eval/feather/harness/backends/onnx/hub"
)

func init() {
	register("pull", "download a Hugging Face Hub model for the onnx or llamacpp backend into the hub cache", runPull)
}

const pullDetails = `
Downloads from the Hugging Face Hub what the onnx backend opens, and
nothing more: config.json, generation_config.json, the tokenizer files,
the chat template, and one ONNX file with its external data, or, from a
repository without one, its safetensors checkpoint. With --file,
it downloads the one GGUF file the glob matches, for the llamacpp
backend (the file carries its tokenizer and chat template). Files go
into the Hugging Face cache, shared with Python's huggingface_hub both
ways. REVISION is a branch, tag or commit (default main).

The last line on stdout is the snapshot folder (with --file, the GGUF
file in it). An onnx catalog entry names the repository, {"backend":
"onnx", "hf": "ORG/NAME[@REVISION]", "variant": "..."}, a llamacpp entry
the repository and the glob, {"backend": "llamacpp", "hf": "...",
"file": "*Q8_0.gguf"}; either uses this snapshot (pulling it on first use
when the cache lacks it), or names the folder or file itself with "path".
Progress goes to stderr: a bar on a terminal, a line every 30 s elsewhere.
A pull that is interrupted resumes where it stopped.`

const pullEnvUsage = `
environment:
  HF_HUB_CACHE    the cache folder (default $HF_HOME/hub); --cache-dir overrides it
  HF_HOME         Hugging Face's folder (default $XDG_CACHE_HOME/huggingface,
                  else ~/.cache/huggingface), holding hub/ and token
  HF_ENDPOINT     the Hub or a mirror (default https://huggingface.co)
  HF_TOKEN        an access token, for gated and private repositories
  HF_TOKEN_PATH   the token file read when HF_TOKEN is unset (default
                  $HF_HOME/token, where 'hf auth login' writes it)
  HF_HUB_OFFLINE  1 to use only the cache: no request is sent, and what the
                  cache lacks is named

exit status: 0 done, 1 the pull failed, 2 bad arguments or environment.
`

// runPull fetches a model for the onnx backend and prints its snapshot.
func runPull(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pull", flag.ContinueOnError)
	fs.SetOutput(stderr)
	variant := fs.String("variant", "", "the ONNX `variant`, as an onnx catalog entry's \"variant\": empty or fp32 for model.onnx, else model_<variant>.onnx (fp16, q4, q4f16, quantized, int8, …)")
	file := fs.String("file", "", "a `glob` naming one .gguf file of the repository (e.g. '*Q8_0.gguf'), as a llamacpp catalog entry's \"file\": fetch that file alone")
	dryRun := fs.Bool("dry-run", false, "list the files, their sizes and whether the cache has them; download nothing")
	verify := fs.Bool("verify", false, "rehash the cached files against their ETags and download again those that differ (otherwise cached files are checked by size)")
	cacheDir := fs.String("cache-dir", "", "the cache `folder`, instead of HF_HUB_CACHE")
	setUsage(fs, "pull", "[flags] ORG/NAME[@REVISION]", pullDetails)
	flags := fs.Usage
	fs.Usage = func() {
		flags()
		fmt.Fprint(stderr, pullEnvUsage)
	}
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return parseFailed(err)
	}
	fail := failer(stderr, "pull")
	if len(positional) != 1 {
		return fail(2, "want one repository, ORG/NAME[@REVISION], got %d arguments; see feather pull -h", len(positional))
	}
	ref, err := hub.ParseRef(positional[0])
	if err != nil {
		return fail(2, "%v", err)
	}
	if err := hub.CheckVariant(*variant); err != nil {
		return fail(2, "--variant: %v", err)
	}
	if *file != "" {
		if *variant != "" {
			return fail(2, "--variant picks an ONNX file and --file a GGUF file; give one of them")
		}
		if err := hub.CheckGGUFGlob(*file); err != nil {
			return fail(2, "--file: %v", err)
		}
	}
	client, err := hub.NewClient(os.Getenv, stderr)
	if err != nil {
		return fail(2, "%v", err)
	}
	if *cacheDir != "" {
		client.Env.CacheDir = *cacheDir
	}
	// Ctrl-C stops the transfer; the part received stays for the next pull.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := client.Pull(ctx, ref, hub.Options{Variant: *variant, File: *file, DryRun: *dryRun, Verify: *verify})
	if err != nil {
		return fail(1, "%v", err)
	}

	var size, todo int64
	n := 0
	for _, f := range res.Files {
		size += f.Size
		if !f.Cached {
			todo += f.Size
			n++
		}
	}
	if *dryRun {
		fmt.Fprintf(stdout, "%s (commit %s): %d files, %s; %d to download, %s\n",
			res.Ref, res.Commit, len(res.Files), hub.FormatBytes(size), n, hub.FormatBytes(todo))
		for _, f := range res.Files {
			state := "download"
			if f.Cached {
				state = "cached"
			}
			fmt.Fprintf(stdout, "  %-8s  %10s  %s\n", state, hub.FormatBytes(f.Size), f.Path)
		}
	} else {
		fmt.Fprintf(stderr, "%s (commit %s): %d files, %s, in %s\n", res.Ref, res.Commit, len(res.Files), hub.FormatBytes(size), res.Snapshot)
	}
	fmt.Fprintln(stdout, res.Path())
	return 0
}

// Regenerates testdata/featherweight/golden/geo01-<style>-<template>.txt:
// Featherweight's two prompts for item geo01 as the user message through
// the SmolLM2-Instruct and TinyLlama-Chat chat templates, rendered by
// transformers.js's apply_chat_template(..., {tokenize: false,
// add_generation_prompt: true}) — what the spec's runner does.
//
// The raw prompts (geo01-plain.txt, geo01-completion.txt) are the spec's
// templates filled in and are written by the Go test
// (go test ./harness/suites/featherweight -run TestPromptGolden -update).
//
//   make goldens        (or: cd scripts/goldens && node featherweight.mjs)
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { PreTrainedTokenizer } from '@huggingface/transformers';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const vendored = join(repo, 'testdata', 'tokenizers');
const golden = join(repo, 'testdata', 'featherweight', 'golden');
const readJSON = (p) => JSON.parse(readFileSync(p, 'utf8'));

const data = readJSON(join(vendored, 'chat-templates.json'));
const gpt2 = readJSON(join(vendored, 'gpt2', 'tokenizer.json'));

for (const name of ['smollm2', 'tinyllama']) {
  const config = { chat_template: data.templates[name], ...data.special_tokens[name] };
  const tokenizer = new PreTrainedTokenizer(gpt2, config);
  for (const style of ['plain', 'completion']) {
    const text = readFileSync(join(golden, `geo01-${style}.txt`), 'utf8');
    const out = tokenizer.apply_chat_template([{ role: 'user', content: text }], {
      tokenize: false,
      add_generation_prompt: true,
    });
    writeFileSync(join(golden, `geo01-${style}-${name}.txt`), out);
    console.log(`wrote geo01-${style}-${name}.txt (${out.length} chars)`);
  }
}

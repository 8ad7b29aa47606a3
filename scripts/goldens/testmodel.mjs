// Regenerates testdata/testmodel/transformersjs.json: what transformers.js
// (Hugging Face's own implementation) computes on the model folders that
// harness/backends/onnx/testmodel builds for the cases in cases.json. The Go test
// TestAgreesWithTransformersJS holds our reference forward pass to it, so
// the folders are shown to load and behave as real exports do: config and
// generation_config fields, layouts, position_ids, the merged decoder's
// use_cache_branch, external data, float16, 8-bit (dynamic), 4-bit
// (MatMulNBits, in float32 and float16) and NF4 (MatMulBnb4) variants, fused GroupQueryAttention with and without
// position_ids, Qwen 3, Gemma 3 and Phi-3 configs, EOS lists, left-padded
// batches.
//
//   make goldens        (or: cd scripts/goldens && node testmodel.mjs)
//
// It needs Go (to build the folders) and nothing from the network.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const here = join(repo, 'testdata', 'testmodel');
const require = createRequire(join(repo, 'scripts', 'goldens', 'package.json'));
const lib = await import(pathToFileURL(require.resolve('@huggingface/transformers')).href);
const { AutoModelForCausalLM, Tensor, env } = lib.env ? lib : lib.default; // the CommonJS build under node's require
const version = JSON.parse(readFileSync(join(dirname(require.resolve('@huggingface/transformers')), '..', 'package.json'))).version;

env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = '';

const cases = JSON.parse(readFileSync(join(here, 'cases.json')));
const work = mkdtempSync(join(tmpdir(), 'feather-testmodel-'));
execFileSync('go', ['run', './testdata/testmodel/buildfolders', work], { cwd: repo, stdio: 'inherit' });

// Prompts are token ids, so the check does not depend on tokenization.
const PROMPT = [1, 300, 301, 302, 303, 304, 305];
const SHORT = [1, 310, 311];
const BIGRAM_PROMPT = [1];
const NEW_TOKENS = 8;

const ids = (rows) => new Tensor('int64', BigInt64Array.from(rows.flat().map(BigInt)), [rows.length, rows[0].length]);
const round = (x) => Number(x.toPrecision(9));

function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

const out = { transformers_js: version, cases: {} };
try {
  for (const name of Object.keys(cases).sort()) {
    const c = cases[name];
    const dtype = { fp16: 'fp16', quantized: 'q8', int8: 'int8', q4: 'q4', q4f16: 'q4f16', bnb4: 'bnb4' }[c.variant] ?? 'fp32';
    const file = (c.config.Layout ?? '').endsWith('decoder_model_merged.onnx') ? 'decoder_model_merged' : 'model';
    const model = await AutoModelForCausalLM.from_pretrained(join(work, name), { local_files_only: true, device: 'cpu', dtype, model_file_name: file });
    const prompt = c.bigram_next ? BIGRAM_PROMPT : PROMPT;
    const mask = prompt.map(() => 1);

    const { logits } = await model({ input_ids: ids([prompt]), attention_mask: ids([mask]) });
    // Node has no Float16Array: float16 data come as raw bits.
    const values = logits.type === 'float16' ? Array.from(logits.data, halfToFloat) : logits.data;
    const vocab = logits.dims[2];
    const last = Array.from(values.slice((prompt.length - 1) * vocab, prompt.length * vocab), round);

    const gen = await model.generate({ input_ids: ids([prompt]), attention_mask: ids([mask]), max_new_tokens: NEW_TOKENS, do_sample: false });
    const entry = { file, dtype, prompt, last_logits: last, greedy: Array.from(gen.data.slice(prompt.length), Number) };

    if (c.batch) {
      // Left padding with the pad token (id 0), as transformers pads for generation.
      const pad = PROMPT.length - SHORT.length;
      const rows = [PROMPT, [...Array(pad).fill(0), ...SHORT]];
      const masks = [PROMPT.map(() => 1), [...Array(pad).fill(0), ...SHORT.map(() => 1)]];
      const g = await model.generate({ input_ids: ids(rows), attention_mask: ids(masks), max_new_tokens: NEW_TOKENS, do_sample: false });
      const width = g.dims[1];
      entry.batch = {
        prompts: [PROMPT, SHORT],
        greedy: [0, 1].map((r) => Array.from(g.data.slice(r * width + PROMPT.length, (r + 1) * width), Number)),
      };
    }
    out.cases[name] = entry;
    await model.dispose();
    console.log(name, dtype, file, 'greedy', JSON.stringify(entry.greedy));
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
writeFileSync(join(here, 'transformersjs.json'), JSON.stringify(out, null, 1) + '\n');

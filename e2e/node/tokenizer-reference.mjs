// Reference token ids for noema's Go WordPiece tokenizer (embedding/bert/tokenizer).
//
// Generates N test strings from a fixed seed (ASCII, accents, Greek final
// sigma, Turkish dotted I, CJK in and out of the BMP, emoji, control and
// format characters, odd spaces, very long words, texts past 512 tokens,
// special tokens written in the text) and tokenizes each with
// @huggingface/transformers loading a local tokenizer.json, remote models
// off. Writes one JSON object per line: {"text": …, "ids": […]}, ids
// untruncated with [CLS] and [SEP].
//
//   node tokenizer-reference.mjs MODEL_DIR N OUT.jsonl
//
// MODEL_DIR holds tokenizer.json (and tokenizer_config.json, written with
// BERT defaults when missing).
import fs from 'node:fs';
import path from 'node:path';
import { AutoTokenizer, env } from '@huggingface/transformers';

const [dir, nArg, out] = process.argv.slice(2);
if (!dir || !out) {
  console.error('usage: node tokenizer-reference.mjs MODEL_DIR N OUT.jsonl');
  process.exit(2);
}
const N = Number(nArg || 5000);

const abs = path.resolve(dir);
const cfgPath = path.join(abs, 'tokenizer_config.json');
if (!fs.existsSync(cfgPath)) {
  fs.writeFileSync(cfgPath, JSON.stringify({
    do_lower_case: true, tokenize_chinese_chars: true, strip_accents: null,
    unk_token: '[UNK]', sep_token: '[SEP]', pad_token: '[PAD]', cls_token: '[CLS]', mask_token: '[MASK]',
    model_max_length: 1000000, tokenizer_class: 'BertTokenizer',
  }));
}
env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = path.dirname(abs) + path.sep;
const tok = await AutoTokenizer.from_pretrained(path.basename(abs));

// mulberry32
let seed = 0x6e6f656d;
function rnd() {
  seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (n) => Math.floor(rnd() * n);
const pick = (a) => a[int(a.length)];
const cp = (lo, hi) => String.fromCodePoint(lo + int(hi - lo + 1));

const words = ['the', 'garbage', 'collector', 'collection', 'G1', 'memory', 'server', 'noema', 'embedding',
  'Kubernetes', 'PostgreSQL', 'WAL', 'fsync()', 'état', 'naïve', 'café', 'Müller', 'straße', 'ŞİŞLİ', 'İstanbul',
  'ΟΔΥΣΣΕΥΣ', 'Σίσυφος', 'ΣΑΣ', 'σ', 'Ωμέγα', 'москва', 'Россия', 'ﬁle', 'Æsir', 'øre', 'Å', 'ǅ', 'ﬀ', 'Ⅻ',
  'e-mail', "don't", 'U.S.A.', '3.14159', '1,000,000', '42nd', 'C++', 'foo_bar', 'x86-64', 'https://example.com/a?b=c',
  'user@example.org', '#hashtag', '@mention', '$PATH', '~/.config', '«quoted»', '“smart”', '‘single’', '—', '…',
  '東京', '北京大学', '한국어', 'こんにちは', 'カタカナ', '𠀀𠀁', '𪜀', '中文字符', '😀', '👍🏽', '👨‍👩‍👧', '🇫🇷', '❤️', '✓',
  'नमस्ते', 'مرحبا', 'שלום', 'ไทย', 'tiếng Việt', 'Ελληνικά', 'ǆemal', 'ﬃ', 'x²', '½', '①', 'ℌ', '℃',
  '[CLS]', '[SEP]', '[MASK]', '[PAD]', '[UNK]', '[cls]', '[MASK', 'MASK]', '##ing', 'unaffable', 'antidisestablishmentarianism'];
const spaces = [' ', ' ', ' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u2003', '\u3000', '\u2028', '\u202f', '\u1680', '\u205f'];
const oddities = ['\u0000', '\u0001', '\u0007', '\u001b', '\u007f', '\u0085', '\u00ad', '\u200b', '\u200c', '\u200d',
  '\u200e', '\u2060', '\ufeff', '\ufffd', '\u000b', '\u000c', '\u061c', '\ue000', '\uf8ff', '\u{f0000}', '\u180e',
  '\u0301', '\u0308', '\u20dd', '\u0488', '\u{e0041}', '\u{1d173}'];
const ranges = [
  [0x20, 0x7e], [0xa0, 0x17f], [0x180, 0x24f], [0x300, 0x36f], [0x370, 0x3ff], [0x400, 0x4ff], [0x590, 0x5ff],
  [0x600, 0x6ff], [0x900, 0x97f], [0xe00, 0xe7f], [0x1e00, 0x1eff], [0x2000, 0x206f], [0x20a0, 0x20bf],
  [0x2100, 0x214f], [0x2190, 0x21ff], [0x2200, 0x22ff], [0x2460, 0x24ff], [0x3000, 0x303f], [0x3040, 0x30ff],
  [0x3400, 0x4dbf], [0x4e00, 0x9fff], [0xac00, 0xd7a3], [0xf900, 0xfaff], [0xfb00, 0xfb06], [0xff00, 0xffef],
  [0x1f300, 0x1f64f], [0x1f900, 0x1f9ff], [0x20000, 0x2a6df], [0x1d400, 0x1d7ff],
];
let vocab = Object.keys(JSON.parse(fs.readFileSync(path.join(abs, 'tokenizer.json'), 'utf8')).model.vocab);

function word() {
  switch (int(8)) {
    case 0: case 1: case 2: return pick(words);
    case 3: { // a vocabulary entry, maybe glued to pieces
      let w = pick(vocab).replace(/^##/, '');
      if (rnd() < 0.3) w += pick(vocab).replace(/^##/, '');
      return rnd() < 0.2 ? w.toUpperCase() : w;
    }
    case 4: { let s = ''; const r = pick(ranges); for (let i = 1 + int(6); i > 0; i--) s += cp(r[0], r[1]); return s; }
    case 5: return pick(oddities) + pick(words) + (rnd() < 0.5 ? pick(oddities) : '');
    case 6: { let s = ''; for (let i = 1 + int(12); i > 0; i--) s += String.fromCharCode(97 + int(26)); return s; }
    default: return String(int(100000)) + (rnd() < 0.3 ? pick(['%', 'km', '.5', 'th', 'ms']) : '');
  }
}

function sentence(nWords) {
  let s = '';
  for (let i = 0; i < nWords; i++) {
    if (i > 0) s += rnd() < 0.85 ? ' ' : pick(spaces);
    s += word();
    if (rnd() < 0.1) s += pick(['.', ',', '!', '?', ';', ':', '-', '…', '、', '。', '"', "'"]);
  }
  return s;
}

const texts = [
  '', ' ', '\n\t ', '[CLS]', '[MASK]', 'a[MASK]b', 'Hello, world!', 'Garbage collector', 'G1', 'Garbage Collection',
  'ΣΑΣ Σ σ ΑΣ.', 'ὈΔΥΣΣΕΎΣ', 'İİİ', 'a\u0000b', '\ufeffbom', 'x'.repeat(100), 'x'.repeat(101), 'é'.repeat(100),
  'é'.repeat(101), 'e\u0301'.repeat(60), '😀'.repeat(101), '中'.repeat(600),
];
while (texts.length < N) {
  const k = texts.length % 10;
  if (k === 0) texts.push(pick(words));
  else if (k === 9 && texts.length % 50 === 9) texts.push(sentence(200 + int(400))); // past 512 tokens
  else if (k === 8) { // very long word
    let w = ''; const n = 90 + int(30);
    while ([...w].length < n) w += rnd() < 0.8 ? String.fromCharCode(97 + int(26)) : pick(['é', 'ß', '中', '😀', '-']);
    texts.push(sentence(int(3)) + ' ' + w + ' ' + sentence(int(3)));
  } else if (k === 7) { let s = ''; for (let i = int(30); i >= 0; i--) s += cp(...pick(ranges)); texts.push(s); }
  else texts.push(sentence(1 + int(k < 4 ? 6 : 60)));
}

const lines = [];
for (const text of texts) {
  lines.push(JSON.stringify({ text, ids: tok.encode(text) }));
}
fs.writeFileSync(out, lines.join('\n') + '\n');
console.error(`wrote ${lines.length} strings to ${out}`);

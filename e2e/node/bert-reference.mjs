// Reference embeddings and speed for noema's Go BERT encoder (embedding/bert),
// from onnxruntime-node running the same random-weight model exported to ONNX
// by embedding/bert/testdata/gen_model.py (inputs input_ids and attention_mask,
// output last_hidden_state).
//
//   node bert-reference.mjs embed MODEL_DIR IDS.jsonl OUT.jsonl [mean|cls]
//       one {"embedding": [...]} line per {"ids": [...]} line: pooled and
//       L2-normalised, one intra-op thread.
//   node bert-reference.mjs bench MODEL_DIR [SECONDS]
//       sentences per second on the inputs of `bertref bench` (8-token labels
//       in batches of 64, 256-token chunks in batches of 8), with 1 and 2
//       intra-op threads.
import fs from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-node';

const [cmd, dir, ...rest] = process.argv.slice(2);
if (!cmd || !dir) {
  console.error('usage: node bert-reference.mjs embed|bench MODEL_DIR ...');
  process.exit(2);
}
const modelPath = path.join(dir, 'model.onnx');

async function session(threads) {
  return ort.InferenceSession.create(modelPath, {
    intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential',
    graphOptimizationLevel: 'all', executionProviders: ['cpu'],
  });
}

function tensors(seqs) {
  const n = seqs[0].length;
  const ids = new BigInt64Array(seqs.length * n);
  const mask = new BigInt64Array(seqs.length * n);
  seqs.forEach((q, b) => q.forEach((id, i) => { ids[b * n + i] = BigInt(id); mask[b * n + i] = 1n; }));
  return {
    input_ids: new ort.Tensor('int64', ids, [seqs.length, n]),
    attention_mask: new ort.Tensor('int64', mask, [seqs.length, n]),
  };
}

function pool(hidden, n, dim, mode) {
  const v = new Float64Array(dim);
  if (mode === 'cls') {
    for (let j = 0; j < dim; j++) v[j] = hidden[j];
  } else {
    for (let i = 0; i < n; i++) for (let j = 0; j < dim; j++) v[j] += hidden[i * dim + j];
    for (let j = 0; j < dim; j++) v[j] /= n;
  }
  let ss = 0;
  for (const x of v) ss += x * x;
  const inv = 1 / Math.sqrt(ss);
  return Array.from(v, (x) => x * inv);
}

if (cmd === 'embed') {
  const [idsPath, out, poolArg] = rest;
  let mode = poolArg;
  if (!mode) {
    const pc = JSON.parse(fs.readFileSync(path.join(dir, '1_Pooling', 'config.json'), 'utf8'));
    mode = pc.pooling_mode_cls_token ? 'cls' : 'mean';
  }
  const s = await session(1);
  const lines = fs.readFileSync(idsPath, 'utf8').split('\n').filter(Boolean);
  const outLines = [];
  for (const line of lines) {
    const { ids } = JSON.parse(line);
    const r = await s.run(tensors([ids]));
    const h = r.last_hidden_state;
    outLines.push(JSON.stringify({ embedding: pool(h.data, ids.length, h.dims[2], mode) }));
  }
  fs.writeFileSync(out, outLines.join('\n') + '\n');
  console.error(`onnxruntime-node ${ort.env.versions?.common ?? ''}: ${outLines.length} embeddings (${mode}) to ${out}`);
} else if (cmd === 'bench') {
  const seconds = Number(rest[0] || 3);
  const shapes = [
    ['labels (8 tokens, batches of 64)', 8, 64],
    ['chunks (256 tokens, batches of 8)', 256, 8],
  ];
  for (const threads of [1, 2]) {
    const s = await session(threads);
    for (const [name, n, batch] of shapes) {
      const seqs = [];
      for (let b = 0; b < batch; b++) {
        const q = new Array(n);
        q[0] = 101; q[n - 1] = 102;
        for (let i = 1; i < n - 1; i++) q[i] = 1000 + (b * 131 + i * 37) % 20000;
        seqs.push(q);
      }
      const feeds = tensors(seqs);
      await s.run(feeds);
      const start = performance.now();
      const cpu0 = process.cpuUsage();
      let done = 0;
      while (performance.now() - start < seconds * 1000) {
        await s.run(feeds);
        done += batch;
      }
      const el = (performance.now() - start) / 1000;
      const c = process.cpuUsage(cpu0);
      const cpu = (c.user + c.system) / 1e6;
      console.log(`onnxruntime threads=${threads} ${name}: ${(done / el).toFixed(1)} sentences/s (${(done / cpu).toFixed(1)} per CPU-second, ${(cpu / el).toFixed(2)} cores busy)`);
    }
  }
} else {
  console.error(`unknown command ${cmd}`);
  process.exit(2);
}

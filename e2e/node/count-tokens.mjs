// count-tokens.mjs measures noema's token estimate (tools.EstimateTokens)
// against real tokenizers: for each file it prints the file, its bytes,
// its cl100k_base and o200k_base counts, the estimate and the estimate over
// the larger count. Estimates come from a file "estimates.tsv" (file name,
// estimate) beside the first file, as TestBudgets writes it beside the
// answers it dumps (NOEMA_DUMP_ANSWERS) and TestEstimateFiles writes it for
// any files (NOEMA_ESTIMATE_FILES). js-tiktoken is not a dependency of the
// e2e suite; install it beside (docs/budgets.md):
//
//	npm install --no-save --prefix /tmp/tok js-tiktoken@1.0.21
//	NODE_PATH=/tmp/tok/node_modules node e2e/node/count-tokens.mjs FILE…
import { readFileSync, existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { getEncoding } = require("js-tiktoken");
const cl100k = getEncoding("cl100k_base");
const o200k = getEncoding("o200k_base");

const files = process.argv.slice(2);
const estimates = new Map();
if (files.length > 0) {
  const tsv = join(dirname(files[0]), "estimates.tsv");
  if (existsSync(tsv)) {
    for (const line of readFileSync(tsv, "utf8").split("\n")) {
      const [name, n] = line.split("\t");
      if (name) estimates.set(name, Number(n));
    }
  }
}
const byKind = new Map();
for (const f of files) {
  if (basename(f) === "estimates.tsv") continue;
  const text = readFileSync(f, "utf8");
  const a = cl100k.encode(text).length, b = o200k.encode(text).length;
  const est = estimates.get(basename(f));
  const exact = est === undefined ? NaN : est / Math.max(a, b);
  const ratio = est === undefined ? "" : exact.toFixed(2);
  console.log([f, Buffer.byteLength(text), a, b, est ?? "", ratio].join("\t"));
  if (ratio !== "") {
    const kind = basename(f).replace(/^\d+-/, "");
    const r = byKind.get(kind) ?? { n: 0, min: Infinity, max: 0 };
    r.n++; r.min = Math.min(r.min, exact); r.max = Math.max(r.max, exact);
    byKind.set(kind, r);
  }
}
for (const [kind, r] of byKind) console.log(`# ${kind}: ${r.n} files, estimate / max(cl100k, o200k) ${r.min.toFixed(2)}–${r.max.toFixed(2)}`);
// The estimate must be an upper bound: a budget kept by it must hold in
// real tokens. Any file it undercounts fails the run (CI uses this).
const under = [...byKind].filter(([, r]) => r.min < 1);
if (under.length > 0) {
  console.error(`estimate below the real count for: ${under.map(([k]) => k).join(", ")}`);
  process.exitCode = 1;
}

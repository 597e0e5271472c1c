// End-to-end test of noema with the official TypeScript MCP SDK: it starts
// `noema mcp` over stdio and talks to a running `noema serve` over streamable
// HTTP, lists tools, writes, reads, edits with a stale checksum (expecting
// checksum_mismatch), searches and builds context, and checks the
// structured results.
//
// Usage: node client.mjs NOEMA_BINARY VAULT_DIR HTTP_URL [TOKEN]
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [binary, vault, url, token] = process.argv.slice(2);
if (!binary || !vault || !url) {
  console.error("usage: node client.mjs NOEMA_BINARY VAULT_DIR HTTP_URL [TOKEN]");
  process.exit(2);
}

const expectedTools = ["build_context", "delete_note", "edit_note", "list_notes", "move_note", "read_note",
  "recent_activity", "search_notes", "status", "sync", "write_note"];

async function exercise(name, transport) {
  const client = new Client({ name: `ts-sdk-${name}`, version: "1.0.0" });
  await client.connect(transport);
  try {
    const instructions = client.getInstructions();
    assert.ok(instructions && instructions.includes("WikiLink"), `${name}: server instructions`);

    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    for (const t of expectedTools) assert.ok(names.includes(t), `${name}: tool ${t} listed (got ${names})`);
    for (const t of tools) {
      assert.ok(t.inputSchema?.type === "object", `${name}: ${t.name} input schema`);
      assert.ok(t.outputSchema, `${name}: ${t.name} output schema`);
      assert.ok(t.annotations && typeof t.annotations.readOnlyHint === "boolean", `${name}: ${t.name} annotations`);
    }

    const title = `From ${name} ${Date.now()}`;
    const w = await client.callTool({ name: "write_note",
      arguments: { title, content: `Written over ${name}: [[TypeScript SDK]] and [[Interop]].\n`, folder: `ts-${name}`, tags: ["e2e"] } });
    assert.ok(!w.isError, `${name}: write_note ok: ${JSON.stringify(w.content)}`);
    const written = w.structuredContent;
    assert.match(written.uri, /^memory:\/\/ts-/, `${name}: uri`);
    assert.match(written.checksum, /^sha256:[0-9a-f]{64}$/, `${name}: checksum`);
    assert.equal(written.created, true);
    assert.ok(w.content[0].type === "text" && w.content[0].text.includes(written.uri), `${name}: text rendering`);
    assert.deepEqual(written.concepts.map((c) => c.label).sort(), ["Interop", "TypeScript SDK"], `${name}: linked concepts`);

    const r = await client.callTool({ name: "read_note", arguments: { uri: written.uri } });
    assert.ok(!r.isError, `${name}: read_note ok`);
    const note = r.structuredContent;
    assert.equal(note.checksum, written.checksum);
    assert.equal(note.title, title);
    assert.deepEqual(note.links.map((l) => l.target), ["TypeScript SDK", "Interop"]);
    assert.deepEqual(note.tags, ["e2e"]);

    const stale = await client.callTool({ name: "edit_note",
      arguments: { uri: written.uri, op: "append", content: "more", expected_checksum: "sha256:" + "0".repeat(64) } });
    assert.equal(stale.isError, true, `${name}: stale edit must fail`);
    assert.match(stale.content[0].text, /^checksum_mismatch: /, `${name}: stale edit code`);

    const ok = await client.callTool({ name: "edit_note",
      arguments: { uri: written.uri, op: "append", content: "Appended [[Interop]].", expected_checksum: note.checksum } });
    assert.ok(!ok.isError, `${name}: edit with the right checksum: ${JSON.stringify(ok.content)}`);
    assert.notEqual(ok.structuredContent.checksum, note.checksum);

    const bad = await client.callTool({ name: "read_note", arguments: { uri: "memory://../../etc/passwd" } });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text, /^invalid_argument: /);

    const res = await client.readResource({ uri: written.uri });
    assert.ok(res.contents[0].text.includes("Appended [[Interop]]."), `${name}: note resource`);
    const st = await client.readResource({ uri: "noema://status" });
    assert.ok(JSON.parse(st.contents[0].text).notes >= 1, `${name}: status resource`);

    // Recall: the note is found by a stemmed word of its body, and the
    // concept's context lists it.
    const found = await client.callTool({ name: "search_notes", arguments: { query: `written ${name}`, mode: "fulltext", decay: false } });
    assert.ok(!found.isError, `${name}: search_notes ok: ${JSON.stringify(found.content)}`);
    const hit = found.structuredContent.hits.find((h) => h.uri === written.uri);
    assert.ok(hit && hit.score > 0 && hit.score <= 1 && hit.snippet.length > 0 && hit.ranks.fulltext >= 1, `${name}: search hit ${JSON.stringify(found.structuredContent)}`);
    const tricky = await client.callTool({ name: "search_notes", arguments: { query: 'NEAR( "unbalanced AND -x* ^:' } });
    assert.ok(!tricky.isError, `${name}: any text is a query: ${JSON.stringify(tricky.content)}`);
    const ctx = await client.callTool({ name: "build_context", arguments: { concept: "typescript sdk" } });
    assert.ok(!ctx.isError, `${name}: build_context ok: ${JSON.stringify(ctx.content)}`);
    assert.equal(ctx.structuredContent.concept.label, "TypeScript SDK");
    assert.ok(ctx.structuredContent.notes.some((n) => n.uri === written.uri), `${name}: context notes`);
    assert.ok(ctx.structuredContent.related.some((r) => r.label === "Interop"), `${name}: context related`);
    const unknown = await client.callTool({ name: "build_context", arguments: { concept: "Nothing Like It Anywhere" } });
    assert.equal(unknown.isError, true);
    assert.match(unknown.content[0].text, /^not_found: /);

    const status = await client.callTool({ name: "status", arguments: {} });
    assert.ok(status.structuredContent.concepts >= 2, `${name}: status concepts`);

    // Prompts: listed with their arguments; got with arguments filled in;
    // a missing required argument is refused.
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), ["recall", "remember"], `${name}: prompts`);
    const recallDef = prompts.find((p) => p.name === "recall");
    assert.ok(recallDef.arguments.some((a) => a.name === "topic" && a.required && a.description), `${name}: recall's topic argument`);
    const recall = await client.getPrompt({ name: "recall", arguments: { topic: "TypeScript SDK", question: "What did we write over it?" } });
    assert.equal(recall.messages[0].role, "user");
    const recallText = recall.messages[0].content.text;
    for (const s of ['find_concepts with query "TypeScript SDK"', "build_context", "search_notes", '"What did we write over it?"']) {
      assert.ok(recallText.includes(s), `${name}: recall's message lacks ${s}: ${recallText}`);
    }
    const remember = await client.getPrompt({ name: "remember", arguments: { focus: "the interop tests" } });
    assert.ok(remember.messages[0].content.text.includes('"the interop tests"') && remember.messages[0].content.text.includes("near_duplicates"), `${name}: remember's message`);
    await assert.rejects(client.getPrompt({ name: "recall", arguments: {} }), /needs the argument "topic"/, `${name}: recall without a topic`);
    console.log(`ok ${name}: ${tools.length} tools, ${prompts.length} prompts, wrote/read/edited ${written.uri}, checksum_mismatch seen`);
  } finally {
    await client.close();
  }
}

await exercise("stdio", new StdioClientTransport({ command: binary, args: ["--vault", vault, "mcp"], stderr: "inherit" }));
const headers = token ? { Authorization: `Bearer ${token}` } : {};
await exercise("http", new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
console.log("typescript sdk e2e: all checks passed");

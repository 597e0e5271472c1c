// Several vaults and scoped tokens with the official TypeScript MCP SDK (a
// client of an earlier protocol revision, so with a session): it starts
// `noema serve --vault work=… --vault home=… --token-file …` and checks that
// a token scoped to work sees only work (list_vaults, a tool and a resource
// of home are not found, as a vault that does not exist is), and that a
// read-only token of home lists only read-only tools and cannot write.
//
// Usage: node vaults.mjs NOEMA_BINARY WORK_DIR
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [binary, dir] = process.argv.slice(2);
if (!binary || !dir) {
  console.error("usage: node vaults.mjs NOEMA_BINARY WORK_DIR");
  process.exit(2);
}
const work = join(dir, "work"), home = join(dir, "home");
for (const [d, name, text] of [[work, "Plan.md", "WORKMARKER [[Roadmap]]\n"], [home, "Garden.md", "HOMEMARKER [[Tomatoes]]\n"]]) {
  mkdirSync(d, { recursive: true });
  writeFileSync(join(d, name), text);
}
const tokens = join(dir, "tokens.yaml");
writeFileSync(tokens, `tokens:
  - {name: work-agent, token: ts-work-token, vaults: [work], access: read_write}
  - {name: home-reader, token: ts-home-token, vaults: [home], access: read_only}
`, { mode: 0o600 });
const port = 20000 + Math.floor(Math.random() * 20000);
const server = spawn(binary, ["--vault", `work=${work}`, "--vault", `home=${home}`, "serve",
  "--addr", `127.0.0.1:${port}`, "--token-file", tokens], { stdio: ["ignore", "ignore", "inherit"] });
const url = `http://127.0.0.1:${port}/mcp`;

async function connect(token) {
  const client = new Client({ name: "ts-sdk-vaults", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url),
    { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

const text = (r) => r.content.map((c) => c.text ?? "").join("");

try {
  for (let i = 0; ; i++) {
    try { if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break; } catch {}
    if (i > 100) throw new Error("noema serve did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
  const w = await connect("ts-work-token");
  const vaults = await w.callTool({ name: "list_vaults", arguments: {} });
  assert.deepEqual(vaults.structuredContent.vaults, [{ name: "work", default: true, read_only: false }]);
  for (const [tool, args] of [["status", {}], ["search_notes", { query: "HOMEMARKER" }], ["write_note", { title: "X", content: "x" }]]) {
    const r = await w.callTool({ name: tool, arguments: { ...args, vault: "home" } });
    const ghost = await w.callTool({ name: tool, arguments: { ...args, vault: "ghost" } });
    assert.equal(r.isError, true, `${tool} on home with the work token`);
    assert.equal(text(r), 'not_found: no vault named "home" (list_vaults names the vaults you may use)');
    assert.equal(text(r), text(ghost).replace("ghost", "home"), `${tool}: out of scope and missing read alike`);
    console.log(`ok work-agent ${tool} vault=home → ${text(r)}`);
  }
  await assert.rejects(w.readResource({ uri: "memory://Garden?vault=home" }), /not found/i);
  const own = await w.readResource({ uri: "memory://Plan?vault=work" });
  assert.ok(own.contents[0].text.includes("WORKMARKER"), "the work note by its vault URI");
  await w.close();

  const h = await connect("ts-home-token");
  const { tools } = await h.listTools();
  assert.ok(tools.length > 0 && tools.every((t) => t.annotations.readOnlyHint), "a read-only token lists only read-only tools");
  assert.ok(!tools.some((t) => t.name === "write_note"));
  const wr = await h.callTool({ name: "write_note", arguments: { title: "Intrusion", content: "x" } });
  assert.equal(wr.isError, true);
  assert.equal(text(wr), "read_only: this token may only read: write_note changes the vault");
  console.log(`ok home-reader write_note → ${text(wr)}`);
  const st = await h.callTool({ name: "status", arguments: {} });
  assert.ok(!st.isError && st.structuredContent.vault.endsWith("home"), "the home token's default vault is home");
  await h.close();
  assert.deepEqual(readdirSync(home).filter((f) => f.endsWith(".md")), ["Garden.md"], "nothing written to home");
  console.log(`ok vaults: ${tools.length} read-only tools for the read-only token; scoped refusals as above`);
} finally {
  server.kill("SIGINT");
}

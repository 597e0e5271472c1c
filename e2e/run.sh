#!/usr/bin/env bash
# Runs the end-to-end suites against a built noema binary:
#   - the MCP conformance suite (@modelcontextprotocol/conformance) over HTTP,
#   - a TypeScript SDK client over stdio and over HTTP (e2e/node/client.mjs),
#   - the official MCP memory server (@modelcontextprotocol/server-memory),
#     driven by the TypeScript SDK: noema imports the file it wrote, exports
#     it back, and the server reads the export (e2e/node/memory-server.mjs),
#   - several vaults and a token file, with the TypeScript SDK: a scoped
#     token is refused the other vault as one that does not exist, a
#     read-only token cannot write (e2e/node/vaults.mjs),
#   - mcp-remote, an OAuth-capable client, against a server with a bearer
#     token: with the token it lists the tools; without it, it is refused
#     and does not attempt dynamic client registration (e2e/mcpremote, when
#     its npm packages are installed).
# mcp-go's end-to-end test is a Go module of its own (e2e/mcpgo).
# Usage: e2e/run.sh path/to/noema
set -euo pipefail
bin=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
port=$(( 20000 + RANDOM % 20000 ))
url="http://127.0.0.1:$port/mcp"
cleanup() {
  [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null
  [ -n "${tpid:-}" ] && kill "$tpid" 2>/dev/null
  wait 2>/dev/null; rm -rf "$work"
}
trap cleanup EXIT

"$bin" --vault "$work/vault" serve --addr "127.0.0.1:$port" 2>"$work/serve.log" &
pid=$!
for _ in $(seq 1 100); do
  curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break
  sleep 0.1
done

# Scenarios that apply to a server with tools, resources and prompts. The others in
# `conformance list` exercise fixture tools, prompts or resources of the
# SDKs' "everything" test servers (test_simple_text, test://static-text, …),
# or sampling/elicitation, which noema does not use; see docs/conformance.md.
scenarios="server-initialize ping tools-list resources-list prompts-list logging-set-level server-sse-multiple-streams"
cd "$here/node"
for s in $scenarios; do
  echo "--- conformance: $s"
  npx --no-install conformance server --url "$url" --scenario "$s"
done

echo "--- typescript sdk client"
node client.mjs "$bin" "$work/vault" "$url"
echo "server log:"; tail -5 "$work/serve.log" || true

echo "--- the MCP memory server's file: import, import again, export, read back"
node memory-server.mjs "$bin" "$work/memory-server"

echo "--- several vaults, scoped tokens"
node vaults.mjs "$bin" "$work/vaults"

if [ -d "$here/mcpremote/node_modules/mcp-remote" ]; then
  echo "--- mcp-remote with a bearer token"
  tport=$(( 20000 + RANDOM % 20000 ))
  [ "$tport" = "$port" ] && tport=$(( tport + 1 ))
  turl="http://127.0.0.1:$tport/mcp"
  token="e2e-$RANDOM$RANDOM"
  "$bin" --vault "$work/vault-token" serve --addr "127.0.0.1:$tport" --token "$token" 2>"$work/serve-token.log" &
  tpid=$!
  for _ in $(seq 1 100); do
    curl -s -o /dev/null "http://127.0.0.1:$tport/healthz" && break
    sleep 0.1
  done
  cd "$here/mcpremote"
  export HOME="$work/home" # mcp-remote keeps OAuth state in ~/.mcp-auth: start clean
  mkdir -p "$HOME"
  # mcp-remote-client lists the tools and resources, then exits when its
  # input ends: keep its input open until the listing is out (at most 30 s).
  if ! ( for _ in $(seq 1 300); do grep -q '"name": "write_note"' "$work/mr-ok.log" 2>/dev/null && break; sleep 0.1; done ) |
       timeout 60 npx --no-install mcp-remote-client "$turl" --header "Authorization: Bearer $token" >"$work/mr-ok.log" 2>&1 ||
     ! grep -q '"name": "write_note"' "$work/mr-ok.log"; then
    echo "mcp-remote with the token failed:"; tail -20 "$work/mr-ok.log"; exit 1
  fi
  echo "ok with the token: tools listed"
  if timeout 60 npx --no-install mcp-remote-client "$turl" </dev/null >"$work/mr-none.log" 2>&1; then
    echo "mcp-remote without the token succeeded"; exit 1
  fi
  if grep -q 'path=/register' "$work/serve-token.log" || grep -qi 'registration' "$work/mr-none.log"; then
    echo "mcp-remote without the token attempted dynamic client registration:"; tail -20 "$work/mr-none.log"; exit 1
  fi
  grep -q 'HTTP 501 trying to load OAuth metadata' "$work/mr-none.log" || { echo "unexpected failure:"; tail -20 "$work/mr-none.log"; exit 1; }
  echo "ok without the token: refused, no dynamic client registration"
fi

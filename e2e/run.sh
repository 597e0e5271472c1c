#!/usr/bin/env bash
# Runs the end-to-end suites against a built noema binary:
#   - the MCP conformance suite (@modelcontextprotocol/conformance) over HTTP,
#   - a TypeScript SDK client over stdio and over HTTP (e2e/node/client.mjs).
# Usage: e2e/run.sh path/to/noema
set -euo pipefail
bin=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
port=$(( 20000 + RANDOM % 20000 ))
url="http://127.0.0.1:$port/mcp"
cleanup() { [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

"$bin" --vault "$work/vault" serve --addr "127.0.0.1:$port" 2>"$work/serve.log" &
pid=$!
for _ in $(seq 1 100); do
  curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break
  sleep 0.1
done

# Scenarios that apply to a server with tools and resources. The others in
# `conformance list` exercise fixture tools, prompts or resources of the
# SDKs' "everything" test servers (test_simple_text, test://static-text, …),
# or sampling/elicitation, which noema does not use; see docs/conformance.md.
scenarios="server-initialize ping tools-list resources-list logging-set-level server-sse-multiple-streams"
cd "$here/node"
for s in $scenarios; do
  echo "--- conformance: $s"
  npx --no-install conformance server --url "$url" --scenario "$s"
done

echo "--- typescript sdk client"
node client.mjs "$bin" "$work/vault" "$url"
echo "server log:"; tail -5 "$work/serve.log" || true

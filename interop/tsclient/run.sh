#!/usr/bin/env bash
# Checks rpcgen's outputs that are not Go with tools nobody here wrote:
#
#   - every example's and golden case's OpenRPC document validates against the
#     OpenRPC meta-schema (@open-rpc/schema-utils-js), and its $refs resolve;
#   - every example's and golden case's TypeScript client compiles with
#     tsc --strict --noEmit, against the ES2022 library alone (no DOM, no Node
#     types: the clients depend on nothing);
#   - examples/calculator, served over HTTP, answers rpc.discover with its
#     committed OpenRPC document, and the generated TypeScript client calls
#     every method of it (test/calculator.test.ts, compiled with tsc).
#
# Needs go and node (20+); the first run fetches the npm packages pinned in
# package-lock.json, later runs work offline.
set -euo pipefail
cd "$(dirname "$0")"
repo=$(cd ../.. && pwd)

tmp=$(mktemp -d)
server_pid=""
cleanup() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	npm ci --no-audit --no-fund
fi
tsc=node_modules/.bin/tsc

echo "== tsc --strict --noEmit: the examples' TypeScript clients"
shopt -s nullglob
clients=("$repo"/examples/*/*_client.ts)
if [ ${#clients[@]} -eq 0 ]; then
	echo "no examples/*/*_client.ts found" >&2
	exit 1
fi
for f in "${clients[@]}"; do
	echo "${f#"$repo"/}"
	"$tsc" --ignoreConfig --strict --noEmit --target es2022 --lib es2022 --types "" "$f"
done

echo "== tsc --strict --noEmit: the golden cases' TypeScript clients"
node test/extract-golden.mjs "$tmp/golden" >"$tmp/golden.list"
while read -r f; do
	echo "${f#"$tmp"/golden/}"
	"$tsc" --ignoreConfig --strict --noEmit --target es2022 --lib es2022 --types "" "$f"
done <"$tmp/golden.list"

echo "== build examples/calculator and serve it over HTTP"
(cd "$repo" && go build -o "$tmp/calculator" ./examples/calculator)
"$tmp/calculator" --http 127.0.0.1:0 2>"$tmp/server.log" &
server_pid=$!
addr=""
for _ in $(seq 1 100); do
	addr=$(sed -n 's/.*"serving JSON-RPC over HTTP" addr=\([^ ]*\).*/\1/p' "$tmp/server.log")
	[ -n "$addr" ] && break
	if ! kill -0 "$server_pid" 2>/dev/null; then
		cat "$tmp/server.log" >&2
		exit 1
	fi
	sleep 0.1
done
if [ -z "$addr" ]; then
	echo "the calculator did not start:" >&2
	cat "$tmp/server.log" >&2
	exit 1
fi
echo "serving on $addr"

echo "== compile the client test (tsc --strict)"
"$tsc" -p tsconfig.json --outDir "$tmp/build"
echo '{"type": "module"}' >"$tmp/build/package.json"

echo "== node --test"
CALCULATOR_URL="http://$addr" CALCULATOR_OPENRPC="$repo/examples/calculator/calculator.openrpc.json" \
	node --test --test-reporter=spec test/openrpc.test.mjs "$tmp/build/interop/tsclient/test/calculator.test.js"

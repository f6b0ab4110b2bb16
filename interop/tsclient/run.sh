#!/usr/bin/env bash
# Checks rpcgen's outputs that are not Go with tools nobody here wrote:
#
#   - every example's and golden case's OpenRPC document validates against the
#     OpenRPC meta-schema (@open-rpc/schema-utils-js), and its $refs resolve;
#   - a document with a recursive type (golden case openrpc_types) parses
#     and validates with @open-rpc/schema-utils-js's parseOpenRPCDocument and
#     { dereference: false }, and runs it out of heap with the default
#     options, as docs/generating.md says (test/recursion.test.mjs);
#   - every example's and golden case's TypeScript client (with the
#     TypeScript runtime it imports) compiles with tsc --strict, every other
#     strictness flag, --isolatedDeclarations and --verbatimModuleSyntax,
#     --noEmit, against the ES2022 library alone (no DOM, no Node types: the
#     clients depend on nothing but their runtime);
#   - the type corpus's clients (generator/typecorpus_test.go) accept, as their
#     param and result types, the JSON encoding/json wrote for every call;
#   - internal/probe, served over HTTP, sees the calls its TypeScript client
#     aborts or times out cancelled, and the client's headers, batches and
#     errors work (test/probe.test.ts);
#   - @open-rpc/generator writes a TypeScript client for internal/probe's
#     committed document (bare method names, --openrpc-version 1.2.6), which
#     builds unpatched (its own package.json, locked; its own build script)
#     and calls the probe server (openrpcgen/call.test.cjs); every document
#     stating OpenRPC 1.2.6 is valid against that client's meta-schema
#     (openrpcgen/legacy.test.cjs);
#   - examples/calculator, served over HTTP, answers rpc.discover with its
#     committed OpenRPC document, and the generated TypeScript client calls
#     every method of it (test/calculator.test.ts, compiled with tsc);
#   - the calculator's and the probe's clients, generated into two
#     directories, share one TypeScript runtime: an error through one is an
#     instance of the other's RPCError, as ECMAScript modules
#     (test/shared_runtime.test.ts) and compiled as CommonJS
#     (test/commonjs.test.cjs);
#   - examples/tasks, served over MCP Streamable HTTP, through its generated
#     ArchiveMCPClient: Archive.compact runs as a task, which the client
#     follows (status notifications, or polling), answering its confirmation,
#     cancelling it, picking it up by its ID (test/tasks.test.ts).
#
# Needs go and node (20+); the first run fetches the npm packages pinned in
# package-lock.json, later runs work offline.
set -euo pipefail
cd "$(dirname "$0")"
repo=$(cd ../.. && pwd)

tmp=$(mktemp -d)
server_pids=()
cleanup() {
	for pid in "${server_pids[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

# serve NAME PROGRAM ARGS... starts PROGRAM, which logs
# "serving JSON-RPC over HTTP" addr=HOST:PORT to stderr once it listens, and
# sets addr to that address.
serve() {
	local name=$1
	shift
	: >"$tmp/$name.log"
	"$@" 2>"$tmp/$name.log" &
	server_pids+=($!)
	addr=""
	for _ in $(seq 1 100); do
		addr=$(sed -n 's/.*"serving JSON-RPC over HTTP" addr=\([^ ]*\).*/\1/p' "$tmp/$name.log")
		[ -n "$addr" ] && break
		if ! kill -0 "${server_pids[-1]}" 2>/dev/null; then
			cat "$tmp/$name.log" >&2
			exit 1
		fi
		sleep 0.1
	done
	if [ -z "$addr" ]; then
		echo "$name did not start:" >&2
		cat "$tmp/$name.log" >&2
		exit 1
	fi
	echo "$name serving on $addr"
}

for d in . openrpcgen; do
	if [ ! -f $d/node_modules/.package-lock.json ] || [ $d/package-lock.json -nt $d/node_modules/.package-lock.json ]; then
		(cd $d && npm ci --no-audit --no-fund)
	fi
done
tsc=node_modules/.bin/tsc
# Every strictness flag tsc has, on top of --strict; and the flags a project
# of tsc --init's sets that constrain how a module is written: declarations
# that need no inference across files (--isolatedDeclarations, which needs
# --declaration), and imports of types marked as such (--verbatimModuleSyntax).
strict=(--strict --exactOptionalPropertyTypes --noUncheckedIndexedAccess --noPropertyAccessFromIndexSignature
	--noImplicitOverride --noImplicitReturns --noFallthroughCasesInSwitch --noUnusedLocals --noUnusedParameters
	--isolatedModules --isolatedDeclarations --declaration --verbatimModuleSyntax)

echo "== tsc --strict (and every other strictness flag, --isolatedDeclarations, --verbatimModuleSyntax) --noEmit: the examples' TypeScript clients"
shopt -s nullglob
clients=("$repo"/examples/*/*_client.ts "$repo"/examples/*/web/*_client.ts "$repo"/internal/*/*_client.ts)
if [ ${#clients[@]} -eq 0 ]; then
	echo "no examples/*/*_client.ts found" >&2
	exit 1
fi
for f in "${clients[@]}"; do
	echo "${f#"$repo"/}"
	"$tsc" --ignoreConfig "${strict[@]}" --noEmit --target es2022 --lib es2022 --types "" "$f"
done

echo "== tsc --strict (and every other strictness flag, --isolatedDeclarations, --verbatimModuleSyntax) --noEmit: the golden cases' TypeScript clients"
node test/extract-golden.mjs "$tmp/golden" >"$tmp/golden.list"
while read -r f; do
	echo "${f#"$tmp"/golden/}"
	"$tsc" --ignoreConfig "${strict[@]}" --noEmit --target es2022 --lib es2022 --types "" "$f"
done <"$tmp/golden.list"

echo "== tsc --strict (and every other strictness flag, --isolatedDeclarations, --verbatimModuleSyntax) --noEmit: the type corpus's TypeScript clients take and return what encoding/json writes"
# TestTypeCorpus writes each group's client and samples.ts, which passes the
# JSON each call of the corpus sent and got to the client's param and result
# types.
(cd "$repo" && go test -count=1 -run 'TestTypeCorpus$' ./generator -ts-samples="$tmp/corpus")
corpus=("$tmp"/corpus/*/samples.ts)
if [ ${#corpus[@]} -eq 0 ]; then
	echo "the type corpus wrote no samples.ts" >&2
	exit 1
fi
for f in "${corpus[@]}"; do
	echo "${f#"$tmp"/}"
	"$tsc" --ignoreConfig "${strict[@]}" --noEmit --target es2022 --lib es2022 --types "" "$f"
done

echo "== build examples/calculator and internal/probe, and serve them over HTTP"
(cd "$repo" && go build -o "$tmp/calculator" ./examples/calculator && go build -o "$tmp/probe" ./internal/probe/cmd/probe)
serve calculator "$tmp/calculator" --http 127.0.0.1:0
calculator_addr=$addr
serve probe "$tmp/probe" --http 127.0.0.1:0
probe_addr=$addr

echo "== build examples/feed (its own module): the quotes service on a Unix socket, the gateway over HTTP and WebSocket"
(cd "$repo/examples/feed" && go build -o "$tmp/quotes" ./cmd/quotes && go build -o "$tmp/gateway" ./cmd/gateway)
"$tmp/quotes" --socket "$tmp/quotes.sock" --tick 0 2>"$tmp/quotes.log" &
server_pids+=($!)
for _ in $(seq 1 100); do [ -S "$tmp/quotes.sock" ] && break; sleep 0.1; done
serve gateway "$tmp/gateway" --socket "$tmp/quotes.sock" --http 127.0.0.1:0
feed_addr=$addr

echo "== build examples/tasks: MCP over Streamable HTTP, Archive.compact running as a task"
(cd "$repo" && go build -o "$tmp/tasks" ./examples/tasks)
# It prints its endpoint's URL on stdout once it listens.
"$tmp/tasks" --http 127.0.0.1:0 --step 20ms >"$tmp/tasks.out" 2>"$tmp/tasks.log" &
server_pids+=($!)
tasks_url=""
for _ in $(seq 1 100); do
	tasks_url=$(sed -n 1p "$tmp/tasks.out")
	[ -n "$tasks_url" ] && break
	if ! kill -0 "${server_pids[-1]}" 2>/dev/null; then
		cat "$tmp/tasks.log" >&2
		exit 1
	fi
	sleep 0.1
done
if [ -z "$tasks_url" ]; then
	echo "examples/tasks did not start:" >&2
	cat "$tmp/tasks.log" >&2
	exit 1
fi
echo "tasks serving on $tasks_url"

echo "== @open-rpc/generator: a TypeScript client for internal/probe's document (bare method names, OpenRPC 1.2.6), built unpatched"
printf '{"openrpcDocument": "%s", "outDir": "%s", "components": [{"type": "client", "language": "typescript", "name": "probe-client"}]}\n' \
	"$repo/internal/probe/probe.openrpc.json" "$tmp/openrpcgen" >"$tmp/openrpcgen.json"
node_modules/.bin/open-rpc-generator generate -c "$tmp/openrpcgen.json" >"$tmp/openrpcgen.log" 2>&1 || {
	cat "$tmp/openrpcgen.log" >&2
	exit 1
}
generated="$tmp/openrpcgen/client/typescript"
# The generated project is built as it stands: openrpcgen/package.json is the
# package.json the generator writes, byte for byte (checked here), and
# openrpcgen/package-lock.json locks what npm installs for it, within its
# ranges; the project's own build script (tsc with its tsconfig.json and
# TypeScript 4.2, then typedoc) runs on those modules.
if ! cmp "$generated/package.json" openrpcgen/package.json; then
	echo "@open-rpc/generator wrote a package.json other than openrpcgen/package.json: copy it there and update the lock (npm install --package-lock-only)" >&2
	diff "$generated/package.json" openrpcgen/package.json >&2 || true
	exit 1
fi
ln -s "$PWD/openrpcgen/node_modules" "$generated/node_modules"
(cd "$generated" && npm run --silent build)

echo "== compile the client test (tsc --strict)"
"$tsc" -p tsconfig.json --outDir "$tmp/build"
echo '{"type": "module"}' >"$tmp/build/package.json"

echo "== compile the calculator's and the probe's clients as CommonJS (tsc --module commonjs)"
"$tsc" --ignoreConfig --strict --target es2022 --lib es2022 --types "" --module commonjs --rootDir "$repo" --outDir "$tmp/cjs" \
	"$repo/examples/calculator/calculator_client.ts" "$repo/internal/probe/probe_client.ts"
echo '{"type": "commonjs"}' >"$tmp/cjs/package.json"

echo "== node --test"
# Node 20 has WebSocket behind a flag; later releases have it on.
ws_flag=""
node -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' || ws_flag=--experimental-websocket
CALCULATOR_URL="http://$calculator_addr" CALCULATOR_OPENRPC="$repo/examples/calculator/calculator.openrpc.json" \
	PROBE_URL="http://$probe_addr" FEED_URL="http://$feed_addr" TASKS_URL="$tasks_url" \
	CJS_BUILD="$tmp/cjs" node $ws_flag --test --test-reporter=spec test/openrpc.test.mjs test/recursion.test.mjs "$tmp/build/interop/tsclient/test/calculator.test.js" \
	"$tmp/build/interop/tsclient/test/probe.test.js" "$tmp/build/interop/tsclient/test/feed.test.js" \
	"$tmp/build/interop/tsclient/test/shared_runtime.test.js" "$tmp/build/interop/tsclient/test/tasks.test.js" test/commonjs.test.cjs

echo "== node --test: the @open-rpc/generator client calls internal/probe"
PROBE_URL="http://$probe_addr" OPENRPCGEN_CLIENT="$generated/build/index.js" \
	node --test --test-reporter=spec openrpcgen/call.test.cjs openrpcgen/legacy.test.cjs

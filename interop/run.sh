#!/usr/bin/env bash
# Drives an MCP server over stdio and over HTTP with third-party clients: the
# official Go SDK and mcp-go (go test), and the official TypeScript SDK
# (node --test): @modelcontextprotocol/sdk 1.x, and the 2.x client
# (@modelcontextprotocol/client) for the notes server's MCP extension
# (ts/extension.test.mjs), and the Tasks extension's client
# (@modelcontextprotocol/ext-tasks) for examples/tasks (ts/tasks.test.mjs).
#
#   interop/run.sh             test examples/notes, built from this checkout,
#                              over stdio and over HTTP (notes --http 127.0.0.1:0)
#   interop/run.sh --standin   test cmd/standin, a server written with the Go SDK,
#                              over stdio (HTTP: examples/notes still)
#   INTEROP_SERVER=/path/to/server interop/run.sh   test any stdio MCP server
#   INTEROP_HTTP_SERVER="/path/to/server --flags" interop/run.sh
#                              test any MCP server over HTTP; it must print its
#                              endpoint's URL as its first line on stdout
#   INTEROP_TS_RUNS=10 interop/run.sh
#                              run the TypeScript SDK tests that many times in
#                              a row (each must pass)
#   INTEROP_STRICT=0 interop/run.sh
#                              judge warnings leniently: by default a warning
#                              the TypeScript SDK or Node prints, or an error
#                              the SDK reports that the wire does not show to
#                              be its own doing, fails the run
#   INTEROP_REPLICAS_SERVER="/path/to/cluster --flags" interop/run.sh
#                              the replicas tests (Go SDK: replicas_test.go,
#                              TypeScript SDK: ts/replicas.test.mjs) against
#                              another deployment behind one URL, printed first;
#                              by default ext/redis's internal/replica
#                              --cluster 3, which starts redis-server (it must
#                              be installed), three replicas on it and a
#                              round-robin proxy (the Go SDK's failover and
#                              restart tests add --sentinel or --appendonly and
#                              send it commands on stdin: they need that one)
#   INTEROP_TASKS_SERVER="/path/to/server --flags" interop/run.sh
#                              the Tasks extension's client
#                              @modelcontextprotocol/ext-tasks
#                              (ts/tasks.test.mjs) against another server
#                              like examples/tasks over HTTP, printing its URL
#                              first (its tool compact, with batches of
#                              50 ms); INTEROP_TASKCALL: rpcgen's Go client
#                              it compares results with (cmd/taskcall)
#   INTEROP_FEATURES_SERVER=/path/to/server interop/run.sh
#                              the resources, prompts, completion, elicitation
#                              and sampling tests against another server like
#                              examples/conformance (--stdio: stdio; --addr
#                              127.0.0.1:0: HTTP, printing its URL first)
#
# Needs go and node (20+); the first run fetches modules and npm packages,
# later runs work offline.
set -euo pipefail
cd "$(dirname "$0")"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ "${1:-}" = "--standin" ]; then
	go build -o "$tmp/standin" ./cmd/standin
	export INTEROP_SERVER="$tmp/standin"
fi
if [ -z "${INTEROP_SERVER:-}" ] || [ -z "${INTEROP_HTTP_SERVER:-}" ]; then
	(cd .. && go build -o "$tmp/notes" ./examples/notes)
fi
if [ -z "${INTEROP_FEATURES_SERVER:-}" ]; then
	(cd .. && go build -o "$tmp/conformance" ./examples/conformance)
fi
if [ -z "${INTEROP_TASKS_SERVER:-}" ]; then
	(cd .. && go build -o "$tmp/tasks" ./examples/tasks)
fi
if [ -z "${INTEROP_TASKCALL:-}" ]; then
	go build -o "$tmp/taskcall" ./cmd/taskcall
fi
if [ -z "${INTEROP_REPLICAS_SERVER:-}" ]; then
	(cd ../ext/redis && go build -o "$tmp/replica" ./internal/replica)
fi
export INTEROP_SERVER="${INTEROP_SERVER:-$tmp/notes}"
export INTEROP_HTTP_SERVER="${INTEROP_HTTP_SERVER:-$tmp/notes --http 127.0.0.1:0}"
export INTEROP_FEATURES_SERVER="${INTEROP_FEATURES_SERVER:-$tmp/conformance}"
export INTEROP_REPLICAS_SERVER="${INTEROP_REPLICAS_SERVER:-$tmp/replica --cluster 3 --http 127.0.0.1:0}"
export INTEROP_TASKS_SERVER="${INTEROP_TASKS_SERVER:-$tmp/tasks --http 127.0.0.1:0 --step 50ms}"
export INTEROP_TASKCALL="${INTEROP_TASKCALL:-$tmp/taskcall}"
echo "interop: server under test over stdio: $INTEROP_SERVER"
echo "interop: server under test over HTTP:  $INTEROP_HTTP_SERVER"
echo "interop: resources, prompts, completion, elicitation and sampling: $INTEROP_FEATURES_SERVER (--stdio, and over HTTP)"
echo "interop: three replicas on Redis behind a round-robin proxy: $INTEROP_REPLICAS_SERVER"
echo "interop: the Tasks extension (@modelcontextprotocol/ext-tasks): $INTEROP_TASKS_SERVER"

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	npm ci --no-audit --no-fund
fi

status=0
echo "== Go clients: github.com/modelcontextprotocol/go-sdk, github.com/mark3labs/mcp-go"
# browser/ (a headless Chromium) runs from browser/run.sh.
go vet ./... && go test -count=1 $(go list ./... | grep -v '/interop/browser$') || status=1
export INTEROP_STRICT="${INTEROP_STRICT:-1}"
runs="${INTEROP_TS_RUNS:-1}"
for run in $(seq "$runs"); do
	echo "== TypeScript clients: @modelcontextprotocol/sdk, @modelcontextprotocol/client (strict warnings: $INTEROP_STRICT; run $run of $runs)"
	node --test --test-reporter=spec ts/notes.test.mjs ts/features.test.mjs ts/replicas.test.mjs ts/extension.test.mjs ts/skills.test.mjs ts/tasks.test.mjs || { status=1; break; }
done
exit $status

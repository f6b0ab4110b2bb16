#!/usr/bin/env bash
# Runs every multi-replica test against a real redis-server (the tests start
# it on free loopback ports; it must be installed: apt-get install
# redis-server):
#
#   bash ext/redis/replicas.sh
#
# 1. ext/redis (go test -race): package replicatest's checks on three
#    handlers sharing Redis, Redis hung and killed, and three replica
#    processes behind a round-robin proxy: rpcgen's client (legacy and
#    2026-07-28), 64 clients for 30 s, a replica killed mid-stream; tasks on
#    Redis: followed through the proxy while a replica is killed and Redis
#    restarts, and 64 clients creating tasks for 30 s with kills (0 lost).
# 2. interop: the official Go SDK (legacy and 2026-07-28) and TypeScript SDK
#    clients through the proxy to internal/replica --cluster 3, and each
#    SDK's client resuming its stream when the replica holding it is killed.
# .ci/run runs the same tests in its ext/* and interop steps.
set -euo pipefail
cd "$(dirname "$0")"
command -v redis-server >/dev/null || { echo "replicas.sh: redis-server is not installed (apt-get install redis-server)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== ext/redis: replicas in the test process and as processes behind a round-robin proxy (go test -race)"
go vet ./... && go test -race -count=1 ./...

go build -o "$tmp/replica" ./internal/replica
export INTEROP_REPLICAS_SERVER="$tmp/replica --cluster 3 --http 127.0.0.1:0"
cd ../../interop
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	npm ci --no-audit --no-fund
fi
echo "== interop: the official Go SDK client through the proxy (legacy and 2026-07-28), and a replica killed under it"
go test -count=1 -run 'TestGoSDKReplica' .
echo "== interop: the official TypeScript SDK client through the proxy, and a replica killed under it"
INTEROP_STRICT=1 node --test --test-reporter=spec ts/replicas.test.mjs

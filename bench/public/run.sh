#!/usr/bin/env bash
# The public workload (TM Dev Lab's MCP benchmark v2, reproduced): rpcgen,
# mcp-go, the official Go SDK and the floor (no MCP library) one after the
# other on one redis-server and
# one API service, each server pinned to its own half of the CPUs (the load
# generator, Redis and the API service on the other half), then the rows written into
# bench/RESULTS.md and the chart into bench/public/chart.svg. Flags are passed
# to publicbench (go run ./public/cmd/publicbench -h lists them; -rounds 1 -hold 5m
# -rampup 15s -rampdown 10s -warmup 60s is the original's shape). Needs
# redis-server on PATH (Debian: apt-get install redis-server). Run it when the
# machine is quiet: the load average is in the report.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v redis-server >/dev/null || { echo "run.sh: redis-server is not installed (apt-get install redis-server)" >&2; exit 1; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
exec go run ./public/cmd/publicbench -o RESULTS.md -svg public/chart.svg -json "${TMPDIR:-/tmp}/publicbench.json" "$@"

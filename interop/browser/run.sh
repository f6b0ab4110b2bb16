#!/usr/bin/env bash
# A real headless Chromium against rpcgen's HTTP servers on other origins
# (browser_test.go): the official TypeScript SDK's MCP client against
# examples/notes --cors-origin, rpcgen's generated TypeScript client against
# examples/calculator --cors-origin and, beside it, internal/probe's client,
# which shares its TypeScript runtime (one RPCError across both), and a page
# of an origin neither lists, which must be refused; and an MCP App host
# (apps_test.go): @modelcontextprotocol/ext-apps' AppBridge renders the view
# examples/notes' search_notes names (ui://notes/board.html), whose Add
# button calls add_note back through the bridge.
#
#   interop/browser/run.sh                 needs chromium on PATH (Debian:
#                                          apt-get install chromium)
#   CHROMIUM=/path/to/chrome interop/browser/run.sh   another Chromium build
#
# Installs interop/'s npm packages (esbuild bundles the SDK for the page)
# when node_modules is missing or older than the lock file.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	npm ci --no-audit --no-fund
fi
"${CHROMIUM:-chromium}" --version
go test -count=1 -v ./browser

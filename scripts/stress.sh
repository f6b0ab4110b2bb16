#!/usr/bin/env bash
# stress.sh runs tests again and again on a loaded machine, to show that
# they do not depend on timing: GOMAXPROCS=1, with two CPU-bound processes
# beside them (the hogs), N runs in a row (20 unless told), stopping at the
# first failure.
#
#   scripts/stress.sh TEST-REGEX PACKAGE [N]
#   scripts/stress.sh 'TestLoad$|TestLegacySSECondemned' ./runtime/mcp/mcphttp 20
#
# The package's test binary is built once (with the race detector when
# STRESS_RACE=1) and run from the package's directory, as go test does. The
# hogs are stopped when the script ends, however it ends.
set -euo pipefail
if [ $# -lt 2 ]; then
	echo "usage: $0 TEST-REGEX PACKAGE [N]" >&2
	exit 2
fi
regex=$1 pkg=$2 n=${3:-20}
cd "$(dirname "$0")/.."

work=$(mktemp -d)
hogs=()
cleanup() {
	for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

race=()
if [ "${STRESS_RACE:-}" = 1 ]; then race=(-race); fi
go test "${race[@]}" -c -o "$work/pkg.test" "$pkg"
if [ ! -x "$work/pkg.test" ]; then
	echo "stress: $pkg has no tests" >&2
	exit 1
fi
dir=$(go list -f '{{.Dir}}' "$pkg")

for _ in 1 2; do
	bash -c 'while :; do :; done' &
	hogs+=($!)
done

start=$SECONDS
for i in $(seq "$n"); do
	if ! (cd "$dir" && GOMAXPROCS=1 "$work/pkg.test" -test.v -test.count=1 -test.run "$regex" >"$work/out" 2>&1); then
		grep -v '^=== \(RUN\|PAUSE\|CONT\|NAME\)' "$work/out" | tail -200
		echo "stress: run $i of $n failed ($regex in $pkg, GOMAXPROCS=1, 2 CPU hogs)"
		exit 1
	fi
	# A skipped test is not a passing one, and a regex that matches
	# nothing proves nothing.
	if grep -q '^--- SKIP' "$work/out" || ! grep -q '^--- PASS' "$work/out"; then
		grep '^--- ' "$work/out" || true
		echo "stress: run $i of $n ran no test or skipped one ($regex in $pkg)"
		exit 1
	fi
done
ran=$(grep -c '^--- PASS' "$work/out")
echo "stress: $n runs in a row of $ran tests passed in $((SECONDS - start))s ($regex in $pkg, GOMAXPROCS=1, 2 CPU hogs)"

#!/usr/bin/env bash
# testcpu.sh measures what each package's tests cost in CPU time (user+sys
# of the test binary and every process it waits for: the go commands and
# servers it starts), which on a shared machine says more than wall time:
# go test's default 10-minute timeout holds on 2 cores at a load of 4 for
# a package that needs less than about 300 CPU-seconds.
#
#   scripts/testcpu.sh [PACKAGES...]          # ./... unless told; with -race
#   TESTCPU_RACE=0 scripts/testcpu.sh ./generator
#   TESTCPU_SPLIT=1 scripts/testcpu.sh ./generator   # each top-level test in a process of its own
#
# Each package's test binary is built first (its build's CPU is shown
# apart: go test's timeout does not count it), then run from the
# package's directory as go test runs it, with -test.count=1. The table is
# sorted by the tests' CPU, the most first; a failing package is marked
# FAIL and its output kept in the directory named at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then set -- ./...; fi

work=$(mktemp -d)
race=(-race)
if [ "${TESTCPU_RACE:-1}" = 0 ]; then race=(); fi
table=$work/table
: >"$table"

# cpu runs a command, its output to the file OUT, and prints "user+sys
# wall maxrss-MiB exit" for it and its children.
cpu() {
	local out=$1 t=$work/time rc=0
	shift
	/usr/bin/time -o "$t" -f '%U %S %e %M' "$@" >"$out" 2>&1 || rc=$?
	# time(1) writes "Command exited with non-zero status N" first when it did.
	tail -n 1 "$t" | awk -v rc="$rc" '{ printf "%.1f %.1f %d %d\n", $1 + $2, $3, $4 / 1024, rc }'
}

i=0
for pkg in $(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' "$@"); do
	i=$((i + 1))
	bin=$work/$i.test
	read -r bcpu _ _ brc < <(cpu "$work/$i.build" go test "${race[@]}" -c -o "$bin" "$pkg")
	if [ "$brc" != 0 ]; then
		printf '%s\tbuild FAIL\n' "$pkg" >>"$table"
		continue
	fi
	dir=$(go list -f '{{.Dir}}' "$pkg")
	tests=(.)
	if [ "${TESTCPU_SPLIT:-}" = 1 ]; then
		mapfile -t tests < <(cd "$dir" && "$bin" -test.list '.' | grep -E '^(Test|Example|Fuzz)')
	fi
	for tst in "${tests[@]}"; do
		run=()
		name=$pkg
		if [ "$tst" != . ]; then
			run=(-test.run "^$tst\$")
			name="$pkg $tst"
		fi
		read -r tcpu wall rss rc < <(cd "$dir" && cpu "$work/$i.$tst.out" "$bin" -test.count=1 -test.timeout=60m "${run[@]}")
		status=ok
		if [ "$rc" != 0 ]; then status=FAIL; fi
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$tcpu" "$wall" "$rss" "$bcpu" "$status" "$name" >>"$table"
		printf '%8s cpu-s %8s s wall  %s\n' "$tcpu" "$wall" "$name" >&2
	done
done

printf '%8s %8s %7s %8s  %-4s  %s\n' "test-cpu" "wall" "rss-MiB" "build" "" "package"
sort -t$'\t' -k1,1 -rn "$table" | awk -F'\t' '{ printf "%8s %8s %7s %8s  %-4s  %s\n", $1, $2, $3, $4, $5, $6 }'
awk -F'\t' '{ t += $1; b += $4 } END { printf "total: %.0f CPU-s in tests, %.0f CPU-s building them\n", t, b }' "$table"
echo "outputs: $work"

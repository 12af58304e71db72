#!/bin/bash
# make test: build, make the images, boot and run the in-VM tests.
#
# By default two boots: the base kernel runs every test but the hostile-image
# ones (tests/vm/3*), then the debug kernel (configs/debug.config: KASAN,
# lockdep, list/object debugging, Rust overflow checks and debug assertions)
# runs the hostile-image tests. With CONFIG=NAME, one boot of that kernel runs
# everything. Between the two, the host-side tests (tests/host/: make run,
# the fstests CI subset with the rust_ext2 read-back check) boot the base
# kernel in virtme-ng. Prints the sum as the closing `N passed, N failed` line.
set -uo pipefail
. "$(dirname "$0")/env.sh"
"$REPO/scripts/mkimages.sh" || exit 1
pass=0 fail=0
stage() { # CONFIG TESTS
	local out
	CONFIG_NAME=$1 "$REPO/scripts/build-kernel.sh" || { fail=$((fail + 1)); echo "FAIL build ($1)"; return; }
	out=$(CONFIG_NAME=$1 TESTS=$2 "$REPO/scripts/run-tests.sh" | tee >(cat >&2) | tail -1)
	local p f
	read -r p _ f _ <<< "$out"
	case "$p$f" in *[!0-9]*|'') fail=$((fail + 1)); return ;; esac
	pass=$((pass + p)) fail=$((fail + f))
}
host() { # each tests/host script prints PASS/FAIL lines
	local t out
	for t in "$REPO"/tests/host/*.sh; do
		out=$(CONFIG_NAME=$1 "$t" 2>&1 | tee >(cat >&2))
		pass=$((pass + $(printf '%s\n' "$out" | grep -c '^PASS ')))
		fail=$((fail + $(printf '%s\n' "$out" | grep -c '^FAIL ')))
		printf '%s\n' "$out" | grep -qE '^(PASS|FAIL) ' || { echo "FAIL $(basename "$t"): no result"; fail=$((fail + 1)); }
	done
}
if [ -n "${CONFIG_EXPLICIT:-}" ]; then
	stage "$CONFIG_NAME" "[0-8]*"
	host "$CONFIG_NAME"
else
	stage base "[0-2]* [4-8]*"
	host base
	stage debug "0* 20* 3*"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

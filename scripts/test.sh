#!/bin/bash
# make test: build, make the images, boot and run the in-VM tests.
#
# By default two boots: the base kernel runs every test but the hostile-image
# ones (tests/vm/3*), then the debug kernel (configs/debug.config: KASAN,
# lockdep, list/object debugging, Rust overflow checks and debug assertions)
# runs the hostile-image tests. With CONFIG=NAME, one boot of that kernel runs
# everything. Prints the sum as the closing `N passed, N failed` line.
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
if [ -n "${CONFIG_EXPLICIT:-}" ]; then
	stage "$CONFIG_NAME" "[0-8]*"
else
	stage base "[0-2]* [4-8]*"
	stage debug "0* 20* 3*"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

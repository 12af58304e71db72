#!/bin/bash
# make test: build, make the images, boot and run the in-VM tests.
#
# By default two kernels: the base kernel runs the tests whose "# kernel:"
# line names base, then the debug kernel (configs/debug.config: KASAN,
# lockdep, list/object debugging, Rust overflow checks and debug assertions)
# those that name debug (the hostile images among them). The debug kernel is
# built in the background while the host-side tests (tests/host/: make run,
# the fstests CI subset with the rust_ext2 read-back check) run on the base
# kernel: those are one QEMU thread each, the build has long single-threaded
# stretches (rustc, linking). The base kernel's own boot runs alone (one of
# its tests counts disk reads, which depend on timing). With CONFIG=NAME, one kernel runs
# every base and debug test. Prints the sum as the closing `N passed, N
# failed` line.
set -uo pipefail
. "$(dirname "$0")/env.sh"
t0=$(date +%s)
elapsed() { echo "test: $1 at $((($(date +%s) - t0) / 60)) min $((($(date +%s) - t0) % 60)) s" >&2; }
"$REPO/scripts/mkimages.sh" || exit 1
elapsed "images made"
pass=0 fail=0
build() { # CONFIG
	CONFIG_NAME=$1 "$REPO/scripts/build-kernel.sh" && return
	fail=$((fail + 1)); echo "FAIL build ($1)"; return 1
}
boot() { # CONFIG KERNELS
	local out p f
	out=$(CONFIG_NAME=$1 KERNELS=$2 "$REPO/scripts/run-tests.sh" | tee >(cat >&2) | tail -1)
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
	build "$CONFIG_NAME" && boot "$CONFIG_NAME" "base debug"
	host "$CONFIG_NAME"
else
	mkdir -p "$REPO/out"
	dlog=$REPO/out/build-debug.log
	if build base; then
		elapsed "base kernel built"
		# Alone: 24-ext2-io counts disk reads, whose merging depends on timing.
		boot base base
		elapsed "base boot done"
		CONFIG_NAME=debug "$REPO/scripts/build-kernel.sh" > "$dlog" 2>&1 &
		dpid=$!
		host base
		elapsed "host tests done"
	else
		CONFIG_NAME=debug "$REPO/scripts/build-kernel.sh" > "$dlog" 2>&1 &
		dpid=$!
	fi
	if wait "$dpid"; then
		elapsed "debug kernel built"
		boot debug debug
		elapsed "debug boot done"
	else
		echo "FAIL build (debug): see $dlog"; tail -20 "$dlog"
		fail=$((fail + 1))
	fi
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

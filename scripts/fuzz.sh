#!/bin/bash
# make fuzz [N=1000] [SEED=S] [SWEEP=1] [CONFIG=debug]: generate N mutated
# images (with SWEEP=1 followed by the whole boundary-value sweep of
# tests/fuzz/boundary.py, about 3,800 images)
# (tests/images/30-fuzz.sh with FUZZ_COUNT/FUZZ_SEED), boot the debug kernel
# once and run tests/vm/30-hostile.sh on them (read-only, then read-write
# and written), with a progress line per image. Images that misbehave (oops, BUG, WARN, KASAN, Rust panic, hang, or
# the VM dying on them) are written to out/crashes/ with a reproducer.
#
# scripts/fuzz.sh --replay IMAGE: boot with IMAGE as the only fuzz image.
set -uo pipefail
. "$(dirname "$0")/env.sh"
export CONFIG_NAME=${CONFIG_EXPLICIT:+$CONFIG_NAME}
export CONFIG_NAME=${CONFIG_NAME:-debug}
out=$REPO/out/fuzz
crashes=$REPO/out/crashes
export IMGDIR=$out/images
rm -rf "$out"; mkdir -p "$IMGDIR/expected" "$crashes"
# Every image is also mounted read-write and written (make test: every 12th).
echo 1 > "$IMGDIR/expected/hostile-rw-stride"
if [ "${1:-}" = --replay ]; then
	cp "$2" "$IMGDIR/fuzz.img"
	echo "0 replay $(basename "$2") $(stat -c %s "$2") replayed image" > "$IMGDIR/expected/fuzz.list"
	python3 "$REPO/tests/fuzz/checks.py" "$REPO"/samples/rust/rust_ext2/*.rs > "$IMGDIR/expected/ext2-checks"
	N=1
else
	N=${N:-1000}
	SEED=${SEED:-$(date +%s)}
	echo "fuzz: $N images from seed $SEED"
	WORK=$(mktemp -d)
	bnd=0; [ "${SWEEP:-}" = 1 ] && bnd=all
	(export WORK FUZZ_COUNT=$N FUZZ_SEED=$SEED FUZZ_BOUNDARY=$bnd; . "$REPO/tests/images/30-fuzz.sh") || exit 1
	rm -rf "$WORK"
	N=$(wc -l < "$IMGDIR/expected/fuzz.list")
fi
"$REPO/scripts/build-kernel.sh" > "$out/build.log" 2>&1 || { tail -20 "$out/build.log"; exit 1; }
console=$REPO/out/console.log
: > "$console"
# Progress: one line per image as the VM reports it.
tail -n +1 -F "$console" 2>/dev/null | grep --line-buffered '^@@FUZZ ' |
	awk -v n="$N" '{ printf "[%d/%d] seed %s %s %s %s\n", $2 + 1, n, $3, $4, $5, $6; fflush() }' &
progress=$!
TESTS="30-hostile" BOOT_TIMEOUT=$((600 + 70 * N)) "$REPO/scripts/run-tests.sh" > "$out/result.txt"
rc=$?
kill "$progress" 2>/dev/null
cat "$out/result.txt"
# Misbehaving images: CRASH outcomes, the images another worker had in
# flight then (30-hostile.sh runs one worker per CPU), and those started but
# never finished if the VM died.
bad=$(grep -E '^@@FUZZ(-RW)? .* (rust|c)=CRASH' "$console" | awk '{print $2}')
bad="$bad $(awk '$1 == "@@FUZZ-SUSPECT" { print $2 }' "$console")"
for idx in $(awk '$1 == "@@FUZZ-START" { print $2 }' "$console"); do
	grep -q "^@@FUZZ $idx " "$console" || bad="$bad $idx"
done
for idx in $(awk '$1 == "@@FUZZ-RW-START" { print $2 }' "$console"); do
	grep -q "^@@FUZZ-RW $idx " "$console" || bad="$bad $idx"
done
bad=$(printf '%s\n' $bad | sort -nu)
for idx in $bad; do
	line=$(awk -v i="$idx" '$1 == i' "$IMGDIR/expected/fuzz.list")
	seed=$(echo "$line" | awk '{print $2}')
	size=$(echo "$line" | awk '{print $4}')
	dd if="$IMGDIR/fuzz.img" of="$crashes/seed-$seed.img" bs=512 skip=$((idx * 8192)) count=$((size / 512)) 2>/dev/null
	echo "$line" > "$crashes/seed-$seed.txt"
	echo "reproduce: scripts/fuzz.sh --replay out/crashes/seed-$seed.img" >> "$crashes/seed-$seed.txt"
	echo "crash: $line -> out/crashes/seed-$seed.img"
done
exit $rc

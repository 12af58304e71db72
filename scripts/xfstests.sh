#!/bin/bash
# make xfstests [TESTS="generic/001 ..."] [GROUP=quick] [FSTYP=ext2] [JOBS=N]
#               [FRESH=1] [AGAIN=1] [READBACK=0] [CONFIG=base] [RUST=1]
#
# RUST=1: the file system under test is rust_ext2 itself, in the same kernel:
# the guest boots with C ext2 registered as "c_ext2" (ext2.fstype=c_ext2)
# and loads rust_ext2 with as_ext2=1 writes=1, so that everything that
# mounts "ext2" gets it; the guest proves it ($OUT/proof: C ext2 under its
# other name, the rust_ext2 module in use with TEST_DEV mounted as ext2).
# The read-back check is reversed: what rust_ext2 wrote is mounted read-only
# by C ext2 (as c_ext2) and by rust_ext2 and must walk identically; the
# verdicts are compared with C ext2's baseline.
#
# Runs fstests (a pinned upstream snapshot, or $FSTESTS_DIR) on the project's
# kernel in virtme-ng: the host's root over 9p, two virtio-blk disks per VM
# (/dev/vda = TEST_DEV, /dev/vdb = SCRATCH_DEV). Inside the guest, fsck.ext2
# is tests/xfstests/fsck.ext2, so wherever fstests checks a file system it
# also mounts it read-only with C ext2 and with rust_ext2 and diffs what a
# user sees (the read-back check; READBACK=0 turns it off).
#
# Verdicts accumulate in $OUT/verdicts (one line per test); a test that has
# one is skipped unless FRESH=1 (all anew) or AGAIN=1 (the listed tests
# again, replacing their verdicts and read-back lines), so an interrupted
# run resumes where it stopped. JOBS=N splits the list across N VMs. The
# summary compares every verdict with tests/xfstests/baseline-$FSTYP (C
# ext2's verdicts on this kernel); the exit status is non-zero on any change
# or read-back difference.
set -uo pipefail
. "$(dirname "$0")/env.sh"
FSTYP=${FSTYP:-ext2}
JOBS=${JOBS:-1}
export READBACK=${READBACK:-1}
RUST=${RUST:-0}
OUT=${OUT:-$REPO/out/xfstests}
XT=$REPO/tests/xfstests
BASELINE=${BASELINE:-$XT/baseline-$FSTYP}
[ -n "${TESTS:-}${GROUP:-}" ] || TESTS=$(grep -v '^#' "$XT/ci.list")
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd) # the guest shares it at the same absolute path
[ "${FRESH:-0}" = 1 ] && rm -rf "${OUT:?}"/*

# fstests, built into the cache (or the user's own tree).
if [ -n "${FSTESTS_DIR:-}" ]; then
	FT=$(cd "$FSTESTS_DIR" && pwd)
else
	FT=$CACHE/fstests/fstests
	"$REPO/scripts/fstests-build.sh" || exit 1
fi
[ -x "$FT/ltp/fsstress" ] || { echo "xfstests: $FT is not built (make -C $FT)"; exit 1; }

# The kernel (base config unless CONFIG= says otherwise), and the guest's
# tools: fswalk, static, outside the repo.
# BUILD=0: use the kernel as built (e.g. while another build uses the tree).
if [ "${BUILD:-1}" != 0 ]; then
	"$REPO/scripts/build-kernel.sh" >/dev/null || { echo "xfstests: kernel build failed"; exit 1; }
fi
kimg=$KBUILD_OUT/arch/x86/boot/bzImage
# CONFIG=rustext2: rust_ext2 is "ext2" and C ext2 is not there to compare with.
as_ext2=0
grep -q '^CONFIG_SAMPLE_RUST_EXT2_AS_EXT2=y' "$KBUILD_OUT/.config" && as_ext2=1 READBACK=0
tools=$CACHE/xfstests-tools
mkdir -p "$tools"
# Built aside and renamed: another run's VMs may be executing it.
gcc -O2 -static -Wall -Werror -o "$tools/fswalk.$$" "$REPO/tests/tools/fswalk.c" || exit 1
mv -f "$tools/fswalk.$$" "$tools/fswalk"
vng=$CACHE/venv/bin/vng
export PATH="$CACHE/venv/bin:$PATH"
[ -x "$vng" ] || { echo "xfstests: virtme-ng missing (make setup)"; exit 1; }

# The test list: TESTS, or GROUP expanded by fstests itself, minus the tests
# that already have a verdict.
if [ -n "${GROUP:-}" ]; then
	list=$(cd "$FT" && awk -v g="$GROUP" '$0 !~ /^#/ { for (i = 2; i <= NF; i++) if ($i == g) { print "generic/" $1; next } }' tests/generic/group.list)
else
	list=$TESTS
fi
# Verdicts from each shard's check output (written as the tests finish, so an
# interrupted run keeps what it had), with the read-back log. Also run before
# the list is made: a run killed before it got here left its shards behind.
harvest() {
	local w
	for w in "$OUT"/shard*; do
		[ -d "$w/results" ] || continue
		# A test run again (AGAIN=1) replaces what an earlier run said of
		# it: verdict and read-back lines.
		local f
		for f in verdicts readback.log; do
			[ -f "$OUT/$f" ] || continue
			awk 'NR == FNR { t[$1] = 1; next } !($1 in t)' "$w/tests" "$OUT/$f" > "$OUT/$f.new"
			mv "$OUT/$f.new" "$OUT/$f"
		done
		"$XT/verdicts.py" "$w/results/result.xml" >> "$OUT/verdicts"
		cat "$w/readback.log" >> "$OUT/readback.log" 2>/dev/null
		mkdir -p "$OUT/results"
		cp -a "$w/results/." "$OUT/results/" 2>/dev/null
		cat "$w/proof" >> "$OUT/proof" 2>/dev/null
		for f in console check dmesg; do
			cp "$w/$f.log" "$OUT/$f-$(basename "$w").log" 2>/dev/null
		done
		rm -rf "$w"
	done
	sort -u -k1,1 -o "$OUT/verdicts" "$OUT/verdicts"
}

touch "$OUT/verdicts"
harvest
todo=()
for t in $list; do
	[ "${AGAIN:-0}" = 1 ] || ! grep -q "^$t " "$OUT/verdicts" || continue
	todo+=("$t")
done
echo "xfstests: ${#todo[@]} tests to run ($(echo $list | wc -w) listed, FSTYP=$FSTYP, JOBS=$JOBS, kernel $(cat "$KBUILD_OUT/include/config/kernel.release"))"

# One VM per shard, each with its own disks and results directory.
cpus=$(( $(nproc) / JOBS )); [ "$cpus" -ge 1 ] || cpus=1
shard() { # N
	local n=$1 w=$OUT/shard$1 i=0 t
	rm -rf "$w"; mkdir -p "$w/results"
	: > "$w/tests"
	for t in "${todo[@]}"; do
		[ $((i % JOBS)) = "$n" ] && echo "$t" >> "$w/tests"
		i=$((i + 1))
	done
	[ -s "$w/tests" ] || return 0
	truncate -s "${DISK_SIZE:-4G}" "$w/test.img" "$w/scratch.img"
	mkfs.ext2 -q -F "$w/test.img" >/dev/null
	local mod= append=()
	[ "$as_ext2" = 1 ] || mod=$(find "$KBUILD_OUT/modinst" -name rust_ext2.ko | head -1)
	[ "$RUST" = 1 ] && append=(--append ext2.fstype=c_ext2)
	cat > "$w/env" <<-EOF
	FT=$FT
	XT=$XT
	FSTYP=$FSTYP
	READBACK=${READBACK:-1}
	RUST=$RUST
	RUST_EXT2_KO=$mod
	TOOLS=$tools
	EOF
	# vng hides /var/cache behind a tmpfs: the kernel's build (modules), the
	# tools and fstests come back as their own shares, side by side (a share
	# mounted inside another one would be covered by it).
	"$vng" --run "$kimg" --disable-kvm --force-9p --user root --memory 2G --cpus "$cpus" "${append[@]}" \
		--rodir "$KBUILD_OUT" --rodir "$tools" --rwdir "$w" --rwdir "$FT" \
		"--qemu-opts=-drive file=$w/test.img,if=virtio,format=raw,cache=unsafe -drive file=$w/scratch.img,if=virtio,format=raw,cache=unsafe" \
		--exec "bash $XT/guest.sh $w" > "$w/console.log" 2>&1
	echo "vng exit $?" >> "$w/console.log"
	rm -f "$w/test.img" "$w/scratch.img"
}
start=$(date +%s)
if [ ${#todo[@]} -gt 0 ]; then
	for n in $(seq 0 $((JOBS - 1))); do
		shard "$n" &
	done
	if [ -t 1 ]; then
		while [ -n "$(jobs -r)" ]; do
			sleep 30
			echo "xfstests: $(cat "$OUT"/shard*/results/result.xml 2>/dev/null | grep -c '<testcase') of ${#todo[@]} done"
		done
	fi
	wait
fi
wall=$(( $(date +%s) - start ))

harvest
label=xfstests
[ "$RUST" = 1 ] && label=xfstests-rust
SUMMARY_LABEL=$label FSTESTS_TREE=$FT "$XT/summary.py" "$OUT" "$BASELINE" "$list" "$wall"

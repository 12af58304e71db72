#!/bin/bash
# Buffered and O_DIRECT writes of rust_ext2 (writes=1) against C ext2, in one
# boot of the built kernel (virtme-ng, the host's e2fsprogs): the same write
# script (tests/host/64-ops.py) on two copies of one image, one per driver,
# mounted with noreservation for 1, 2 and 4 KiB blocks, revisions 0 and 1,
# and the `sync` mount option, and with reservation windows (the default)
# for 1 and 4 KiB blocks (one writer at a time: C's placement is
# deterministic either way):
# sequential, random and appending writes, two files appended to in turn,
# writes across the direct/indirect/
# double/triple-indirect boundaries far past EOF, truncates down with writes
# after them, aligned and misaligned O_DIRECT writes, O_SYNC/O_DSYNC/fsync/
# fdatasync, a shared writable mapping over holes (allocated at writeback), a
# file over 2 GiB (LARGE_FILE) and a write past the largest size (EFBIG), then
# a full file system (a user stops at the reserved blocks, root at the last
# one; a mapped write into a hole fails at msync; truncated and written
# again). After each step the size,
# i_blocks and content must be C's; after the unmount every file's block map
# (the same allocator gives the same layout), the group descriptors and free
# ranges (dumpe2fs) must be identical and e2fsck -fn clean. Prints PASS/FAIL.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh
. tests/lib-pair.sh
[ -x "$CACHE/venv/bin/vng" ] || { echo "FAIL ext2-rw-write: virtme-ng missing (make setup)"; exit 0; }
w=$REPO/out/rw-write
rm -rf "$w"; mkdir -p "$w"
cp tests/host/64-ops.py "$w/ops.py"; cp tests/host/pairlib.py "$w/"
drives=() names=() opts=()
files="seq seq2 ila ilb rand app sparse dio sync mapw big fill hole"
add() { # NAME MOUNT-OPTS BS MKE2FS-OPTS...
	local name=$1 mo=$2 bs=$3 img t f
	shift 3
	t=$w/$name.tree
	mkdir -p "$t"
	for f in $files; do : > "$t/$f"; done
	head -c 5000 /dev/urandom > "$t/app"
	chmod 666 "$t/fill"
	img=$w/$name.c.img
	mke2fs -q -F -t ext2 -I 128 -b "$bs" -d "$t" "$@" "$img" 32M > /dev/null 2>&1 || { echo "FAIL ext2-rw-write: mke2fs $*"; exit 0; }
	cp "$img" "$w/$name.r.img"
	pair_drives "$img" "$w/$name.r.img"
	names+=("$name") opts+=("$mo")
}
# NAME:mount options:block size:mke2fs options, ':' for ' '
for c in 1k-r0:noreservation:1024:-r:0 2k-r1:noreservation:2048 4k-r1:noreservation:4096 1k-r1-sync:sync,noreservation:1024 \
	1k-rsv:reservation:1024 4k-rsv:reservation:4096; do
	IFS=: read -r -a a <<< "$c"
	add "${a[@]}"
done
for i in "${!names[@]}"; do echo "${names[$i]} ${opts[$i]}"; done > "$w/names"
ko=$(find "$KBUILD_OUT/modinst" -name rust_ext2.ko | head -1)
[ -n "$ko" ] || { echo "FAIL ext2-rw-write: no rust_ext2.ko in $KBUILD_OUT/modinst"; exit 0; }
cat > "$w/guest.sh" <<EOF
# In the guest: disk i of the list is /dev/vd{a,b,...}: C copy, rust copy.
set -u
w=\$1 ko=\$2
files="$files"
EOF
cat >> "$w/guest.sh" <<'EOF'
mp=$(mktemp -d)
run() { # FSTYPE DEV MOUNT-OPTS
	local t=$1 d=$2 o=$3 bs
	bs=$(dumpe2fs -h "$d" 2>/dev/null | sed -n 's/^Block size: *//p')
	mount -t "$t" -o "$o" "$d" $mp || { echo "mount: exit $?"; return; }
	python3 $w/ops.py $mp $bs
	umount $mp
	echo "== on disk"
	pair_guest_disk "$d" $files
}
insmod "$ko" writes=1 || exit 1
. "$w/lib-pair.sh"
pair_guest_runs
echo @@DONE
EOF
cp tests/lib-pair.sh "$w/"
pair_boot ext2-rw-write "$w" "$ko" || exit 0
while read -r name _; do
	c=$w/$name.c.out
	if ! pair_same ext2-rw-write "$w" "$name"; then
		:
	elif ! grep -qx 'e2fsck -fn: exit 0' "$c"; then
		echo "FAIL ext2-rw-write-$name: e2fsck not clean on both"
	else
		echo "PASS ext2-rw-write-$name ($(grep -c ': ok$' "$c") writes/truncates/syncs made, $(grep -cE ': E[A-Z]+$' "$c") refused as C ($(grep -oE ': E[A-Z]+$' "$c" | sort | uniq -c | tr -s ' ' | tr '\n' ' ')), $(grep -c '^[a-z0-9]*: size' "$c") states identical, block maps of $(grep -c '^[a-z0-9]* blocks: ' "$c") files and bitmaps identical, $(grep '^full: ' "$c") after root, a user stopped at the reserved blocks: $(grep -c 'reserved ones: True' "$c")/1, $(grep '^e2fsck' "$c"))"
	fi
done < "$w/names"
pair_splats ext2-rw-write "$w"

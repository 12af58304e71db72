#!/bin/bash
# Creating and unlinking regular files on rust_ext2 (writes=1) against C ext2,
# in one boot of the built kernel: the same script (tests/host/66-ops.py) on
# two copies of one image, one per driver, for 1, 2 and 4 KiB blocks,
# revisions 0 and 1, and the `sync` mount option: creates (O_EXCL, a 255-byte
# name, ENAMETOOLONG, a missing directory), unlinks of files with data, of a
# hard link, of a file with an xattr block, of an open file (freed at close),
# a directory grown over several blocks and pages, thinned and refilled, and
# MANY files created and removed. After each step the inode number, mode,
# links, size and i_blocks must be C's, the directories list the same names
# with the same inode numbers in the same order; after the unmount the on-disk
# directories, block maps, group counts (free blocks and inodes) must be
# identical and e2fsck -fn clean. Prints PASS/FAIL.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh
. tests/lib-pair.sh
[ -x "$CACHE/venv/bin/vng" ] || { echo "FAIL ext2-rw-create: virtme-ng missing (make setup)"; exit 0; }
w=$REPO/out/rw-create
rm -rf "$w"; mkdir -p "$w"
cp tests/host/66-ops.py "$w/ops.py"; cp tests/host/pairlib.py "$w/"
drives=() names=()
add() { # NAME MOUNT-OPTS MANY SIZE BS MKE2FS-OPTS...
	local name=$1 mo=$2 many=$3 size=$4 bs=$5 img t
	shift 5
	t=$w/$name.tree
	mkdir -p "$t/d"
	head -c 70000 /dev/urandom > "$t/keep"
	head -c 3000 /dev/urandom > "$t/hard"
	ln "$t/hard" "$t/hard2"
	: > "$t/xf"
	img=$w/$name.c.img
	mke2fs -q -F -t ext2 -I 128 -b "$bs" -d "$t" "$@" "$img" "$size" > /dev/null 2>&1 || { echo "FAIL ext2-rw-create: mke2fs $*"; exit 0; }
	debugfs -w -R "ea_set xf user.test value" "$img" > /dev/null 2>&1
	cp "$img" "$w/$name.r.img"
	pair_drives "$img" "$w/$name.r.img"
	names+=("$name $mo $many")
}
# NAME:mount options:files:size:block size:mke2fs options, ':' for ' '
for c in 1k-r0:noreservation:300:16M:1024:-r:0 2k-r1:noreservation:300:16M:2048 4k-r1:noreservation:10000:64M:4096 1k-r1-sync:sync,noreservation:100:16M:1024; do
	IFS=: read -r -a a <<< "$c"
	add "${a[@]}"
done
printf '%s\n' "${names[@]}" > "$w/names"
ko=$(find "$KBUILD_OUT/modinst" -name rust_ext2.ko | head -1)
[ -n "$ko" ] || { echo "FAIL ext2-rw-create: no rust_ext2.ko in $KBUILD_OUT/modinst"; exit 0; }
cat > "$w/guest.sh" <<'EOF2'
# In the guest: disk i of the list is /dev/vd{a,b,...}: C copy, rust copy.
set -u
w=$1 ko=$2
mp=$(mktemp -d)
run() { # FSTYPE DEV "MOUNT-OPTS MANY"
	local t=$1 d=$2 o=${3% *} many=${3#* }
	mount -t "$t" -o "$o" "$d" $mp || { echo "mount: exit $?"; return; }
	python3 $w/ops.py $mp $many
	umount $mp
	echo "== on disk"
	for dir in / /d; do echo "ls $dir: $(debugfs -R "ls $dir" "$d" 2>/dev/null | tr -s ' \n' ' ')"; done
	pair_guest_disk "$d" a b d/c hard2
}
insmod "$ko" writes=1 || exit 1
. "$w/lib-pair.sh"
pair_guest_runs
echo @@DONE
EOF2
cp tests/lib-pair.sh "$w/"
pair_boot ext2-rw-create "$w" "$ko" || exit 0
while read -r name _; do
	c=$w/$name.c.out
	if pair_verdict ext2-rw-create "$w" "$name"; then
		echo "PASS ext2-rw-create-$name ($pair_ok creates/unlinks checked one by one, $pair_refused, $(grep -E '^(created|unlinked) [0-9]+$' "$c" | tr '\n' ' '), $(grep -c '^ls ' "$c") directory listings, group counts and block maps identical, $(grep '^e2fsck' "$c"))"
	fi
done < "$w/names"
pair_splats ext2-rw-create "$w"

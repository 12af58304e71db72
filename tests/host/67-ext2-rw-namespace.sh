#!/bin/bash
# The namespace on rust_ext2 (writes=1) against C ext2, in one boot of the
# built kernel: the same script (tests/host/67-ops.py) on two copies of one
# image, one per driver: mkdir (EEXIST, ENOENT, ENAMETOOLONG, ENOTDIR), rmdir
# (ENOTEMPTY, of a directory emptied by unlinks, of an open directory),
# mknod of fifos, sockets and devices (old and new device encodings),
# symbolic links fast and slow (59/60 bytes, a block, ENAMETOOLONG), hard
# links (EPERM for a directory, EEXIST), renames of files and directories
# within and across directories, over files and empty directories (ENOTEMPTY,
# ENOTDIR, EISDIR, EINVAL; RENAME_NOREPLACE, and the flags ext2 refuses),
# O_TMPFILE files named by linkat(2) or freed at their close, inode flags
# (chattr: immutable and append-only enforced, FS_IOC_FSSETXATTR),
# FS_IOC_SETVERSION and EXT2_IOC_SETRSVSZ (one image mounted with
# reservation windows), then many directories made in a
# spread of parents and half removed. Images of 1, 2 and 4 KiB blocks,
# revision 0 and 1, many groups, `oldalloc` (find_group_dir: the same inode
# numbers as C), Orlov's allocator on one group (the same numbers) and on
# many (top-level groups are random: names, types, links and sizes
# compared, not numbers), and `sync`. After each step the inode number,
# mode, links, size and i_blocks must be C's and the directories list the
# same entries in the same order; after the unmount the on-disk directory
# records (debugfs ls: numbers and record lengths), the block maps of
# directories and slow links, the groups' free counts and directory counts
# must be identical and e2fsck -fn clean. Prints PASS/FAIL.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh
. tests/lib-pair.sh
[ -x "$CACHE/venv/bin/vng" ] || { echo "FAIL ext2-rw-namespace: virtme-ng missing (make setup)"; exit 0; }
w=$REPO/out/rw-namespace
rm -rf "$w"; mkdir -p "$w"
cp tests/host/67-ops.py "$w/ops.py"; cp tests/host/pairlib.py "$w/"
drives=() names=()
add() { # NAME MOUNT-OPTS DIRS INO SIZE BS MKE2FS-OPTS...
	local name=$1 mo=$2 dirs=$3 ino=$4 size=$5 bs=$6 img t
	shift 6
	t=$w/$name.tree
	mkdir -p "$t/full"; echo x > "$t/full/x"
	head -c 20000 /dev/urandom > "$t/f"
	img=$w/$name.c.img
	mke2fs -q -F -t ext2 -I 128 -b "$bs" -d "$t" "$@" "$img" "$size" > /dev/null 2>&1 || { echo "FAIL ext2-rw-namespace: mke2fs $*"; exit 0; }
	cp "$img" "$w/$name.r.img"
	pair_drives "$img" "$w/$name.r.img"
	names+=("$name $mo $dirs $ino")
}
# NAME:mount options:directories:inode numbers shown:size:block size:mke2fs options, ':' for ' '
for c in 1k-r0:oldalloc,noreservation:120:1:16M:1024:-r:0:-g:1024 \
	2k-r1:oldalloc,noreservation:120:1:32M:2048:-g:2048 \
	4k-r1-orlov:reservation:120:1:64M:4096 \
	1k-r1-orlov:noreservation:120:0:16M:1024:-g:1024 \
	1k-r1-sync:sync,oldalloc,noreservation:40:1:16M:1024:-g:2048; do
	IFS=: read -r -a a <<< "$c"
	add "${a[@]}"
done
printf '%s\n' "${names[@]}" > "$w/names"
ko=$(find "$KBUILD_OUT/modinst" -name rust_ext2.ko | head -1)
[ -n "$ko" ] || { echo "FAIL ext2-rw-namespace: no rust_ext2.ko in $KBUILD_OUT/modinst"; exit 0; }
cat > "$w/guest.sh" <<'EOF2'
# In the guest: disk i of the list is /dev/vd{a,b,...}: C copy, rust copy.
set -u
w=$1 ko=$2
mp=$(mktemp -d)
run() { # FSTYPE DEV "MOUNT-OPTS DIRS INO"
	local t=$1 d=$2 o dirs ino
	read -r o dirs ino <<< "$3"
	mount -t "$t" -o "$o" "$d" $mp || { echo "mount: exit $?"; return; }
	python3 $w/ops.py $mp "$dirs" "$ino"
	umount $mp
	echo "== on disk"
	if [ "$ino" = 1 ]; then
		for dir in / /a /a/b /e1 /r1; do echo "ls $dir: $(debugfs -R "ls $dir" "$d" 2>/dev/null | tr -s ' \n' ' ')"; done
		pair_guest_disk "$d" a a/b s60 s500 smax a/d3
	else
		e2fsck -fn "$d" > /dev/null 2>&1; echo "e2fsck -fn: exit $?"
	fi
}
insmod "$ko" writes=1 || exit 1
. "$w/lib-pair.sh"
pair_guest_runs
echo @@DONE
EOF2
cp tests/lib-pair.sh "$w/"
pair_boot ext2-rw-namespace "$w" "$ko" || exit 0
while read -r name _; do
	c=$w/$name.c.out
	if pair_verdict ext2-rw-namespace "$w" "$name"; then
		echo "PASS ext2-rw-namespace-$name ($pair_ok operations as C, $pair_refused, $(grep -E '^(made|removed) [0-9]+ directories$' "$c" | tr '\n' ' '), $(grep -c '^ls ' "$c") directory listings identical, $(grep '^e2fsck' "$c"))"
	fi
done < "$w/names"
pair_splats ext2-rw-namespace "$w"

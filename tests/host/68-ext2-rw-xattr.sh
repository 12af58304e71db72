#!/bin/bash
# Extended attributes written by rust_ext2 (writes=1) against C ext2, in one
# boot of the built kernel: the same script (tests/host/68-ops.py) on two
# copies of one image (128-byte inodes: attributes in blocks), one per
# driver: user., trusted. and security. attributes set, replaced in place or
# moved, removed (XATTR_CREATE/REPLACE, ENODATA, ERANGE, ENOSPC in a full
# block), on files, a directory, a device and a symbolic link; files with the
# same attributes sharing one block (ext2's mbcache, 1024 users a block),
# a shared block cloned when one user changes, released by unlinks; the
# first attribute of a revision 0 file system raising its revision and
# setting the ext_attr feature; POSIX ACLs set (the mode following, an ACL
# the mode says all of dropped), updated by chmod, removed, default ACLs
# inherited by new files, directories and fifos. After each step the attributes, values and
# i_blocks must be C's; after the unmount each file's xattr block number and
# the block's bytes (hashes, reference counts, layout), the groups' counts and
# the superblock's features and revision must be identical, e2fsck -fn
# clean. Prints PASS/FAIL.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh
. tests/lib-pair.sh
[ -x "$CACHE/venv/bin/vng" ] || { echo "FAIL ext2-rw-xattr: virtme-ng missing (make setup)"; exit 0; }
w=$REPO/out/rw-xattr
rm -rf "$w"; mkdir -p "$w"
cp tests/host/68-ops.py "$w/ops.py"; cp tests/host/pairlib.py "$w/"
drives=() names=()
add() { # NAME MOUNT-OPTS SHARED SIZE BS MKE2FS-OPTS...
	local name=$1 mo=$2 shared=$3 size=$4 bs=$5 img t
	shift 5
	t=$w/$name.tree
	mkdir -p "$t"
	img=$w/$name.c.img
	mke2fs -q -F -t ext2 -I 128 -b "$bs" -d "$t" "$@" "$img" "$size" > /dev/null 2>&1 || { echo "FAIL ext2-rw-xattr: mke2fs $*"; exit 0; }
	cp "$img" "$w/$name.r.img"
	pair_drives "$img" "$w/$name.r.img"
	names+=("$name $mo $shared")
}
# NAME:mount options:files sharing:size:block size:mke2fs options, ':' for ' '
for c in 1k-r0:user_xattr,acl,noreservation:60:16M:1024:-r:0 \
	2k-r1:user_xattr,acl,noreservation:60:16M:2048 \
	4k-r1:user_xattr,acl:1030:64M:4096 \
	1k-r1-sync:sync,user_xattr,acl,noreservation:30:16M:1024; do
	IFS=: read -r -a a <<< "$c"
	add "${a[@]}"
done
printf '%s\n' "${names[@]}" > "$w/names"
ko=$(find "$KBUILD_OUT/modinst" -name rust_ext2.ko | head -1)
[ -n "$ko" ] || { echo "FAIL ext2-rw-xattr: no rust_ext2.ko in $KBUILD_OUT/modinst"; exit 0; }
cat > "$w/guest.sh" <<'EOF2'
# In the guest: disk i of the list is /dev/vd{a,b,...}: C copy, rust copy.
set -u
w=$1 ko=$2
mp=$(mktemp -d)
run() { # FSTYPE DEV "MOUNT-OPTS SHARED"
	local t=$1 d=$2 o=${3% *} shared=${3#* } f acl
	mount -t "$t" -o "$o" "$d" $mp || { echo "mount: exit $?"; return; }
	python3 $w/ops.py $mp "$shared"
	umount $mp
	echo "== on disk"
	for f in f1 s1 s$((shared - 1)) d dev ln big af ad ad/file ad/sub; do
		acl=$(debugfs -R "stat $f" "$d" 2>/dev/null | grep -o 'File ACL: [0-9]*' | grep -o '[0-9]*$')
		echo "$f xattr block ${acl:-?}: $( [ "${acl:-0}" != 0 ] && debugfs -R "bd $acl" "$d" 2>/dev/null | md5sum)"
	done
	dumpe2fs -h "$d" 2>/dev/null | grep -E '^Filesystem revision'
	pair_guest_disk "$d"
}
insmod "$ko" writes=1 || exit 1
. "$w/lib-pair.sh"
pair_guest_runs
echo @@DONE
EOF2
cp tests/lib-pair.sh "$w/"
pair_boot ext2-rw-xattr "$w" "$ko" || exit 0
while read -r name _; do
	c=$w/$name.c.out
	if pair_verdict ext2-rw-xattr "$w" "$name"; then
		echo "PASS ext2-rw-xattr-$name ($pair_ok operations as C, $pair_refused, $(grep -E '^[0-9]+ files with one attribute$' "$c"), $(grep -c 'xattr block [1-9]' "$c") xattr blocks identical byte for byte, $(grep '^e2fsck' "$c"))"
	fi
done < "$w/names"
pair_splats ext2-rw-xattr "$w"

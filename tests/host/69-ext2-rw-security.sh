#!/bin/bash
# Security attributes of new inodes (ext2_init_security) on rust_ext2
# (writes=1) against C ext2, in one boot of the built kernel with Smack
# started (lsm=smack): Smack labels every inode it sees created with the
# creating task's label, security.SMACK64, which the file system stores as
# it creates the inode. The same script (tests/host/69-ops.py) on two copies
# of one image (128-byte inodes), one per driver: files, a directory, a fifo,
# a device, fast and slow symbolic links, an O_TMPFILE file, created with the
# floor label "_" and with others (one shared xattr block a label, as ext2's
# mbcache shares them), a shared block cloned by a user. attribute, and
# creates on a full file system (a label with no block yet fails as C fails,
# the inode given back). After the unmount each inode's xattr block number,
# its attributes as debugfs reads them from the disk, the groups' counts and
# block maps must be C's, e2fsck -fn clean. Prints PASS/FAIL.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh
. tests/lib-pair.sh
[ -x "$CACHE/venv/bin/vng" ] || { echo "FAIL ext2-rw-security: virtme-ng missing (make setup)"; exit 0; }
grep -q '^CONFIG_SECURITY_SMACK=y' "$KBUILD_OUT/.config" || { echo "FAIL ext2-rw-security: the kernel has no Smack (configs/base.config)"; exit 0; }
w=$REPO/out/rw-security
rm -rf "$w"; mkdir -p "$w"
cp tests/host/69-ops.py "$w/ops.py"; cp tests/host/pairlib.py "$w/"
drives=() names=()
add() { # NAME MOUNT-OPTS SIZE BS MKE2FS-OPTS...
	local name=$1 mo=$2 size=$3 bs=$4 img
	shift 4
	img=$w/$name.c.img
	mke2fs -q -F -t ext2 -I 128 -b "$bs" "$@" "$img" "$size" > /dev/null 2>&1 || { echo "FAIL ext2-rw-security: mke2fs $*"; exit 0; }
	cp "$img" "$w/$name.r.img"
	pair_drives "$img" "$w/$name.r.img"
	names+=("$name $mo")
}
# NAME:mount options:size:block size:mke2fs options, ':' for ' '
for c in 1k-r0:noreservation,user_xattr:8M:1024:-r:0 2k-r1:noreservation,user_xattr:8M:2048 4k-r1:noreservation,user_xattr:16M:4096:-O:^ext_attr; do
	IFS=: read -r -a a <<< "$c"
	add "${a[@]}"
done
printf '%s\n' "${names[@]}" > "$w/names"
ko=$(find "$KBUILD_OUT/modinst" -name rust_ext2.ko | head -1)
[ -n "$ko" ] || { echo "FAIL ext2-rw-security: no rust_ext2.ko in $KBUILD_OUT/modinst"; exit 0; }
cat > "$w/guest.sh" <<'EOF2'
# In the guest: disk i of the list is /dev/vd{a,b,...}: C copy, rust copy.
set -u
w=$1 ko=$2
mp=$(mktemp -d)
run() { # FSTYPE DEV MOUNT-OPTS
	local t=$1 d=$2 o=$3 f acl
	mount -t "$t" -o "$o" "$d" $mp || { echo "mount: exit $?"; return; }
	python3 $w/ops.py $mp
	umount $mp
	echo "== on disk"
	for f in f1 f1link d1 fifo chr ln lnslow d1/tmp d1/f2 g1 g2 d2 d2/g3 m0 m29 h1 h2 h3 h4; do
		acl=$(debugfs -R "stat $f" "$d" 2>/dev/null | grep -o 'File ACL: [0-9]*' | grep -o '[0-9]*$')
		echo "$f xattr block ${acl:-?}: $(debugfs -R "ea_list $f" "$d" 2>/dev/null | tr -s ' \n' ' ')"
	done
	dumpe2fs -h "$d" 2>/dev/null | grep -E '^Filesystem (revision|features)'
	pair_guest_disk "$d" f1 lnslow d1 d1/tmp
}
insmod "$ko" writes=1 || exit 1
. "$w/lib-pair.sh"
pair_guest_runs
echo @@DONE
EOF2
cp tests/lib-pair.sh "$w/"
PAIR_APPEND=lsm=smack pair_boot ext2-rw-security "$w" "$ko" || exit 0
while read -r name _; do
	c=$w/$name.c.out
	if ! grep -q 'security.SMACK64' "$c"; then
		echo "FAIL ext2-rw-security-$name: no security.SMACK64 on C ext2 (Smack not started?): $(grep -m1 'task label' "$c")"
	elif pair_verdict ext2-rw-security "$w" "$name"; then
		echo "PASS ext2-rw-security-$name ($pair_ok operations as C, $pair_refused, $(grep -c 'SMACK64' "$c") labels on disk identical, $(grep -c 'xattr block [1-9]' "$c") inodes with their block numbers as C's, $(grep '^e2fsck' "$c"))"
	fi
done < "$w/names"
pair_splats ext2-rw-security "$w"

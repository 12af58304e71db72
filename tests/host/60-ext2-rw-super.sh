#!/bin/bash
# Read-write mounts of rust_ext2 (module parameter writes=1) against C ext2,
# in one boot of the built kernel (virtme-ng, the host's e2fsprogs): the same
# mounts, syncs, remounts ro<->rw, freezes and unmounts on two copies of one
# image, one per driver, for 1, 2 and 4 KiB blocks and revisions 0 and 1. After
# each step the superblock as dumpe2fs reads it (state, mount counts, free
# counts, whether the mount/write times are set) and the mount's mode must be
# the same for both drivers, and e2fsck -fn clean after each unmount. A
# revision-1 image with a read-only-compatible feature ext2 does not know
# (huge_file) must refuse a read-write mount and remount and allow a
# read-only one, as C does; images left not clean, with errors recorded, at
# their maximal mount count or past their check time must give C's warnings.
# Without writes=1, rust_ext2's mounts stay read-only. Prints PASS/FAIL lines.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh
. tests/lib-pair.sh
[ -x "$CACHE/venv/bin/vng" ] || { echo "FAIL ext2-rw-super: virtme-ng missing (make setup)"; exit 0; }
w=$REPO/out/rw-super
rm -rf "$w"; mkdir -p "$w"
drives=() names=()
add() { # NAME MKE2FS-OPTS...
	local name=$1
	shift
	mke2fs -q -F -t ext2 -I 128 "$@" "$w/$name.c.img" 8M > /dev/null 2>&1 || { echo "FAIL ext2-rw-super: mke2fs $*"; exit 0; }
	cp "$w/$name.c.img" "$w/$name.r.img"
	pair_drives "$w/$name.c.img" "$w/$name.r.img"
	names+=("$name")
}
# NAME:mke2fs options, ':' for ' '
for c in 1k-r1:-b:1024 2k-r0:-b:2048:-r:0 4k-r1:-b:4096 1k-r0:-b:1024:-r:0 2k-r1:-b:2048 4k-r0:-b:4096:-r:0; do
	IFS=: read -r -a a <<< "$c"
	add "${a[@]}"
done
add hugefile -b 1024 -O huge_file
# Superblocks that make a read-write mount warn, as C's ext2_setup_super
# (set in the guest, one after the other): not clean, errors recorded,
# maximal mount count reached, check time passed.
add warn -b 1024
printf '%s\n' "${names[@]}" > "$w/names"
ko=$(find "$KBUILD_OUT/modinst" -name rust_ext2.ko | head -1)
[ -n "$ko" ] || { echo "FAIL ext2-rw-super: no rust_ext2.ko in $KBUILD_OUT/modinst"; exit 0; }
cat > "$w/guest.sh" <<'EOF'
# In the guest: disk i of the list is /dev/vd{a,b,...}: C copy, rust copy.
set -u
w=$1 ko=$2
letters=abcdefghijklmnopqrstuvwxyz
mp=$(mktemp -d)
sbinfo() { # DEV
	dumpe2fs -h "$1" 2>/dev/null | grep -E '^(Filesystem state|Mount count|Maximum mount count|Free blocks|Free inodes|Last mount time|Last write time|Filesystem features|Filesystem revision)' |
		sed -E 's/^(Last (mount|write) time):[[:space:]]+n\/a/\1: unset/; s/^(Last (mount|write) time):.*/\1: set/; s/[[:space:]]+/ /g'
}
mode() { awk -v mp="$mp" '$2 == mp { split($4, o, ","); print "mode " o[1] }' /proc/mounts; }
step() { # WHAT DEV
	echo "== $1"
	mode
	sbinfo "$2"
}
fsck() { e2fsck -fn "$1" > /dev/null 2>&1; echo "e2fsck -fn: exit $?"; }
msgs() { dmesg -c | grep -E 'warning|error' | sed -E 's/^\[[ 0-9.]+\] //; s/^EXT2-fs \([a-z0-9]+\): //; s/^rust_ext2: //'; }
run() { # FSTYPE DEV NAME
	local t=$1 d=$2
	dmesg -c > /dev/null
	case "$3" in
	hugefile)
		mount -t "$t" "$d" $mp 2> /dev/null; echo "mount rw: exit $?"; umount $mp 2> /dev/null
		mount -t "$t" -o ro "$d" $mp; echo "mount ro: exit $?"; mode
		mount -o remount,rw $mp 2> /dev/null; echo "remount rw: exit $?"; mode; umount $mp
		msgs; fsck "$d"; return ;;
	warn)
		for cond in unclean errorfs maxmount checktime; do
			case $cond in
			unclean) debugfs -w -R "ssv state 0" "$d" ;;
			errorfs) debugfs -w -R "ssv state 3" "$d" ;;
			maxmount) debugfs -w -R "ssv state 1" "$d" && tune2fs -c 2 -C 2 "$d" ;;
			checktime) tune2fs -c -1 -i 1d -T 20000101 "$d" ;;
			esac > /dev/null 2>&1
			mount -t "$t" "$d" $mp; step "mount ($cond)" "$d"; umount $mp
			step "umount" "$d"
		done
		msgs; return ;;
	esac
	mount -t "$t" "$d" $mp; step "mount" "$d"
	sync; step "sync" "$d"
	umount $mp; step "umount" "$d"; fsck "$d"
	mount -t "$t" -o ro "$d" $mp; step "mount ro" "$d"
	mount -o remount,rw $mp; step "remount rw" "$d"
	mount -o remount,ro $mp; step "remount ro" "$d"
	mount -o remount,rw $mp; step "remount rw again" "$d"
	umount $mp; step "umount" "$d"; fsck "$d"
	mount -t "$t" "$d" $mp
	fsfreeze -f $mp; step "freeze" "$d"
	fsfreeze -u $mp; step "thaw" "$d"
	umount $mp; step "umount" "$d"; fsck "$d"
	msgs
}
# Without writes=1: read-only, as before.
insmod "$ko" || exit 1
mount -t rust_ext2 /dev/vdb $mp && { echo "@@NOWRITES $(mode)"; umount $mp; }
rmmod rust_ext2
insmod "$ko" writes=1 || exit 1
i=0
while read -r name; do
	c=/dev/vd${letters:$((2 * i)):1} r=/dev/vd${letters:$((2 * i + 1)):1}
	run ext2 "$c" "$name" > "$w/$name.c.out" 2>&1
	run rust_ext2 "$r" "$name" > "$w/$name.r.out" 2>&1
	i=$((i + 1))
done < "$w/names"
dmesg | grep -E 'BUG|WARNING|Oops|KASAN|panicked|lockdep' > "$w/splats"
echo @@DONE
EOF
pair_boot ext2-rw-super "$w" "$ko" || exit 0
nw=$(grep '^@@NOWRITES' "$w/console.log" | tr -d '\r')
if [ "$nw" = "@@NOWRITES mode ro" ]; then
	echo "PASS ext2-rw-super-nowrites (without writes=1 a mount is read-only)"
else
	echo "FAIL ext2-rw-super-nowrites: got '$nw'"
fi
for name in $(cat "$w/names"); do
	c=$w/$name.c.out r=$w/$name.r.out
	if ! [ -s "$c" ]; then
		echo "FAIL ext2-rw-super-$name: no output"
	elif ! diff -u "$c" "$r" > "$w/$name.diff"; then
		echo "FAIL ext2-rw-super-$name: rust_ext2 differs from C ext2 (- C, + rust):"
		sed 's/^/    /' "$w/$name.diff" | head -40
	elif [ "$name" = hugefile ] && ! grep -qx 'mount ro: exit 0' "$c"; then
		echo "FAIL ext2-rw-super-$name: the read-only mount failed:"
		sed 's/^/    /' "$c" | head -20
	elif [ "$name" != hugefile ] && ! grep -A1 -x '== mount.*' "$c" | grep -qx 'mode rw'; then
		echo "FAIL ext2-rw-super-$name: not mounted read-write:"
		sed 's/^/    /' "$c" | head -20
	elif grep '^e2fsck -fn:' "$c" | grep -qv 'exit 0'; then
		echo "FAIL ext2-rw-super-$name: e2fsck not clean on both"
		grep '^e2fsck -fn:' "$c" | sed 's/^/    /'
	else
		echo "PASS ext2-rw-super-$name ($(grep -c '^==' "$c") steps, $(grep -c 'e2fsck -fn: exit 0' "$c") clean e2fsck, identical on both)"
	fi
done
pair_splats ext2-rw-super "$w"

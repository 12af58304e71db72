#!/bin/bash
# Errors on read-write mounts, rust_ext2 (writes=1) against C ext2, in one
# boot of the built kernel (virtme-ng, the host's e2fsprogs): images with a
# directory entry naming a cleared inode, a zeroed directory block and a file
# whose xattr block is not one, each mounted read-write with errors=continue
# and with errors=remount-ro on two copies (one per driver). The corruption
# is reached (stat, ls, getfattr), then a chmod is tried and the file system
# unmounted. What must be the same as C's (ext2_error): the errno of each
# step, the mount's mode after the error, how many error lines the driver
# logged and whether it said it remounts read-only, the superblock's state
# after the unmount (errors recorded: "clean with errors"), and e2fsck -fn's
# exit code. Prints PASS/FAIL lines.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh
. tests/lib-pair.sh
[ -x "$CACHE/venv/bin/vng" ] || { echo "FAIL ext2-rw-errors: virtme-ng missing (make setup)"; exit 0; }
w=$REPO/out/rw-errors
rm -rf "$w"; mkdir -p "$w/tree/dir"
t=$w/tree
printf 'data\n' > "$t/file"; printf 'victim\n' > "$t/victim"; printf 'in dir\n' > "$t/dir/f"
drives=() names=()
add() { # CORRUPTION ERRORS
	local name=$1-$2 img
	img=$w/$name.c.img
	mke2fs -q -F -t ext2 -I 128 -b 1024 -d "$t" "$img" 8M > /dev/null 2>&1 || { echo "FAIL ext2-rw-errors: mke2fs"; exit 0; }
	case $1 in
	deleted) debugfs -w -R "clri victim" "$img" ;;
	baddir)
		blk=$(debugfs -R "bmap dir 0" "$img" 2> /dev/null)
		dd if=/dev/zero of="$img" bs=1024 seek="$blk" count=1 conv=notrunc status=none ;;
	badxattr) debugfs -w -R "sif file file_acl $(debugfs -R 'bmap file 0' "$img" 2> /dev/null)" "$img" ;;
	esac > /dev/null 2>&1
	cp "$img" "$w/$name.r.img"
	pair_drives "$img" "$w/$name.r.img"
	names+=("$name $1 $2")
}
for c in deleted baddir badxattr; do
	for e in continue remount-ro; do add $c $e; done
done
printf '%s\n' "${names[@]}" > "$w/names"
ko=$(find "$KBUILD_OUT/modinst" -name rust_ext2.ko | head -1)
[ -n "$ko" ] || { echo "FAIL ext2-rw-errors: no rust_ext2.ko in $KBUILD_OUT/modinst"; exit 0; }
cat > "$w/guest.sh" <<'EOF'
# In the guest: disk i of the list is /dev/vd{a,b,...}: C copy, rust copy.
set -u
w=$1 ko=$2
letters=abcdefghijklmnopqrstuvwxyz
mp=$(mktemp -d)
mode() { awk -v mp="$mp" '$2 == mp { split($4, o, ","); print "mode " o[1] }' /proc/mounts; }
try() { "$@" > /dev/null 2>&1; echo "$*: exit $?" | sed "s|$mp/||g"; }
run() { # FSTYPE DEV CORRUPTION ERRORS
	local t=$1 d=$2
	dmesg -c > /dev/null
	mount -t "$t" -o "errors=$4" "$d" $mp || { echo "mount: exit $?"; return; }
	mode
	case $3 in
	deleted) try stat $mp/victim ;;
	baddir) try ls $mp/dir ;;
	badxattr) try getfattr -d -m - $mp/file ;;
	esac
	mode
	try chmod 600 $mp/file
	umount $mp
	dmesg -c | sed -E 's/^\[[ 0-9.]+\] //; s/^EXT2-fs \([a-z0-9]+\): //; s/^rust_ext2: //' > $w/msgs.$t
	echo "error lines: $(grep -c '^error:' $w/msgs.$t)"
	echo "remounting read-only: $(grep -c 'remounting filesystem read-only' $w/msgs.$t)"
	dumpe2fs -h "$d" 2> /dev/null | grep -E '^Filesystem state' | sed -E 's/[[:space:]]+/ /g'
	e2fsck -fn "$d" > /dev/null 2>&1; echo "e2fsck -fn: exit $?"
	sed 's/^/msg: /' $w/msgs.$t > $w/msgs.$t.keep
}
insmod "$ko" writes=1 || exit 1
i=0
while read -r name c e; do
	cd=/dev/vd${letters:$((2 * i)):1} rd=/dev/vd${letters:$((2 * i + 1)):1}
	run ext2 "$cd" "$c" "$e" > "$w/$name.c.out" 2>&1
	mv $w/msgs.ext2.keep $w/$name.c.msgs
	run rust_ext2 "$rd" "$c" "$e" > "$w/$name.r.out" 2>&1
	mv $w/msgs.rust_ext2.keep $w/$name.r.msgs
	i=$((i + 1))
done < "$w/names"
dmesg | grep -E 'BUG|WARNING|Oops|KASAN|panicked|lockdep' > "$w/splats"
echo @@DONE
EOF
pair_boot ext2-rw-errors "$w" "$ko" || exit 0
while read -r name c e; do
	cf=$w/$name.c.out rf=$w/$name.r.out
	if ! [ -s "$cf" ] || ! grep -q '^e2fsck' "$cf"; then
		echo "FAIL ext2-rw-errors-$name: C ext2's run did not finish:"
		sed 's/^/    /' "$cf" | head -20
	elif ! diff -u "$cf" "$rf" > "$w/$name.diff"; then
		echo "FAIL ext2-rw-errors-$name: rust_ext2 differs from C ext2 (- C, + rust):"
		sed 's/^/    /' "$w/$name.diff" | head -30
		echo "    messages, C then rust:"
		sed 's/^/    /' "$w/$name.c.msgs" "$w/$name.r.msgs" | head -10
	elif ! grep -q 'with errors' "$cf"; then
		echo "FAIL ext2-rw-errors-$name: the error was not recorded (C's run):"
		sed 's/^/    /' "$cf"
	else
		echo "PASS ext2-rw-errors-$name ($(grep '^mode' "$cf" | tail -1), $(grep '^error lines' "$cf"), state recorded, identical on both)"
	fi
done < "$w/names"
pair_splats ext2-rw-errors "$w"

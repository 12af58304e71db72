#!/bin/bash
# Inode attribute writes of rust_ext2 (writes=1) against C ext2, in one boot
# of the built kernel (virtme-ng, the host's e2fsprogs): the same chmod,
# chown, lchown and utimes (including times outside ext2's signed 32-bit
# range, refused changes of an unprivileged user, a read that updates the
# access time) on two copies of one image, one per driver, for 1, 2 and 4 KiB
# blocks, revisions 0 and 1, and nouid32. While mounted, `stat` must agree;
# after the unmount the raw on-disk inodes (128 bytes each, read from the
# device) must be identical but for the change times (and the access time
# the read set, which must be recent on both), the superblock's features and
# revision too (the first file over 2 GiB on a revision-0 file system without
# large_file: C sets the feature and raises the revision), e2fsck -fn clean,
# and a read-only remount must show the attributes again. Devices whose small
# numbers are stored in the new encoding are re-encoded as C does. Prints
# PASS/FAIL lines.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh
. tests/lib-pair.sh
[ -x "$CACHE/venv/bin/vng" ] || { echo "FAIL ext2-rw-attr: virtme-ng missing (make setup)"; exit 0; }
w=$REPO/out/rw-attr
rm -rf "$w"; mkdir -p "$w/tree/dir" "$w/tree/dir/sub"
t=$w/tree
printf 'one\n' > "$t/file"; printf 'two\n' > "$t/file2"; printf 'three\n' > "$t/file3"
printf 'four\n' > "$t/file4"; printf 'in dir\n' > "$t/dir/f"
ln -s file "$t/fastlink"
ln -s "$(printf 'x%.0s' $(seq 100))/target" "$t/slowlink"
mkfifo "$t/fifo"
# Times in the past, so that a read updates the access time (relatime).
find "$t" -exec touch -h -d '2020-01-01 00:00:00' {} +
drives=() names=() opts=()
add() { # NAME MOUNT-OPTS MKE2FS-OPTS...
	local name=$1 mo=$2 img
	shift 2
	img=$w/$name.c.img
	mke2fs -q -F -t ext2 -I 128 -d "$t" "$@" "$img" 8M > /dev/null 2>&1 || { echo "FAIL ext2-rw-attr: mke2fs $*"; exit 0; }
	# Devices: small numbers in the old encoding, small ones in the new
	# encoding (i_block[1], as other tools may write them), a large one
	# (major 300: only the new encoding).
	debugfs -w -f - "$img" > /dev/null 2>&1 <<-EOF
		mknod cdev c 1 3
		mknod cdev2 c 1 3
		sif cdev2 block[0] 0
		sif cdev2 block[1] 0x103
		mknod bdevbig b 300 700
		write /dev/null big
		sif big size 0x90000000
	EOF
	cp "$img" "$w/$name.r.img"
	pair_drives "$img" "$w/$name.r.img"
	names+=("$name") opts+=("$mo")
}
# NAME:mount options:mke2fs options, ':' for ' '
for c in 1k-r0:rw:-b:1024:-r:0 2k-r1:rw:-b:2048 4k-r1:rw:-b:4096 1k-r1-nouid32:nouid32:-b:1024; do
	IFS=: read -r -a a <<< "$c"
	add "${a[@]}"
done
for i in "${!names[@]}"; do echo "${names[$i]} ${opts[$i]}"; done > "$w/names"
ko=$(find "$KBUILD_OUT/modinst" -name rust_ext2.ko | head -1)
[ -n "$ko" ] || { echo "FAIL ext2-rw-attr: no rust_ext2.ko in $KBUILD_OUT/modinst"; exit 0; }
cat > "$w/inodes.py" <<'EOF'
# The raw 128-byte inodes of PATHs on DEV, from the device, in hex, with the
# change time (bytes 12-15) masked; with --recent P, P's access time (bytes
# 8-11) masked too, and whether it is within 10 minutes of now printed.
import struct, subprocess, sys, time
dev, paths = sys.argv[1], sys.argv[2:]
recent = None
if paths and paths[0] == '--recent':
    recent, paths = paths[1], paths[2:]
def debugfs(req):
    return subprocess.run(['debugfs', '-R', req, dev], capture_output=True, text=True).stdout
bs = int([l for l in debugfs('stats').splitlines() if l.startswith('Block size:')][0].split()[-1])
with open(dev, 'rb') as f:
    for p in paths:
        st = debugfs('stat "%s"' % p).split()
        if len(st) < 2:
            print(p, 'missing')
            continue
        ino = st[1]
        loc = debugfs('imap <%s>' % ino).split('located at block ')[1].split()
        block, off = int(loc[0].rstrip(',')), int(loc[2], 16)
        f.seek(block * bs + off)
        raw = bytearray(f.read(128))
        raw[12:16] = b'\0' * 4
        if p == recent:
            atime = struct.unpack_from('<i', raw, 8)[0]
            print('%s atime recent: %s' % (p, abs(time.time() - atime) < 600))
            raw[8:12] = b'\0' * 4
        print(p, raw.hex())
EOF
cat > "$w/guest.sh" <<'EOF'
# In the guest: disk i of the list is /dev/vd{a,b,...}: C copy, rust copy.
set -u
w=$1 ko=$2
letters=abcdefghijklmnopqrstuvwxyz
mp=$(mktemp -d)
paths="/ file file2 file3 file4 dir dir/f fastlink slowlink fifo cdev cdev2 bdevbig big"
st() { (cd $mp && stat -c '%n %f %u %g %h %s %b %X %Y' $paths) | sed -E 's/^(file4 [^ ]+ [^ ]+ [^ ]+ [^ ]+ [^ ]+ [^ ]+) [0-9]+/\1 -/'; }
sbinfo() { dumpe2fs -h "$1" 2>/dev/null | grep -E '^(Filesystem features|Filesystem revision)' | sed -E 's/[[:space:]]+/ /g'; }
try() { "$@" 2> /dev/null; echo "$*: exit $?" | sed "s|$mp/||g"; }
run() { # FSTYPE DEV MOUNT-OPTS
	local t=$1 d=$2 o=$3
	mount -t "$t" -o "$o" "$d" $mp || { echo "mount: exit $?"; return; }
	try chmod 0711 $mp
	try chmod 4755 $mp/file
	try chmod 2770 $mp/dir
	try chmod 0 $mp/fifo
	try chown 4000000000:54321 $mp/file2
	try chown 70000:70001 $mp/file3
	try chown -h 1234:5678 $mp/fastlink $mp/slowlink
	try chown 7:8 $mp/cdev $mp/cdev2 $mp/bdevbig
	try chmod 640 $mp/big
	try truncate -s 4 $mp/file
	try touch -m -d '2001-02-03 04:05:06' $mp/file
	try touch -a -d '1999-12-31 23:59:59' $mp/file2
	try touch -d @4294967296 $mp/file3
	try touch -d @-2147483649 $mp/dir
	try touch -h -d @1000000000 $mp/fastlink
	# Refused: not the owner (setattr_prepare).
	try setpriv --reuid=65534 --regid=65534 --clear-groups chmod 777 $mp/dir/f
	try setpriv --reuid=65534 --regid=65534 --clear-groups touch -d @5 $mp/dir/f
	cat $mp/file4 > /dev/null
	echo "== mounted"; st
	umount $mp
	echo "== on disk"
	python3 $w/inodes.py "$d" --recent file4 $paths
	sbinfo "$d"
	e2fsck -fn "$d" > /dev/null 2>&1; echo "e2fsck -fn: exit $?"
	mount -t "$t" -o "ro,$o" "$d" $mp
	echo "== remounted"; st
	umount $mp
}
insmod "$ko" writes=1 || exit 1
dmesg -c > /dev/null
i=0
while read -r name o; do
	c=/dev/vd${letters:$((2 * i)):1} r=/dev/vd${letters:$((2 * i + 1)):1}
	run ext2 "$c" "$o" > "$w/$name.c.out" 2>&1
	run rust_ext2 "$r" "$o" > "$w/$name.r.out" 2>&1
	i=$((i + 1))
done < "$w/names"
dmesg | grep -E 'BUG|WARNING|Oops|KASAN|panicked|lockdep' > "$w/splats"
echo @@DONE
EOF
pair_boot ext2-rw-attr "$w" "$ko" || exit 0
while read -r name _; do
	c=$w/$name.c.out r=$w/$name.r.out
	if ! [ -s "$c" ] || ! grep -q '^== remounted' "$c"; then
		echo "FAIL ext2-rw-attr-$name: C ext2's run did not finish:"
		sed 's/^/    /' "$c" | head -20
	elif ! diff -u "$c" "$r" > "$w/$name.diff"; then
		echo "FAIL ext2-rw-attr-$name: rust_ext2 differs from C ext2 (- C, + rust):"
		sed 's/^/    /' "$w/$name.diff" | head -40
	elif ! grep -qx 'file4 atime recent: True' "$c"; then
		echo "FAIL ext2-rw-attr-$name: the read did not update the access time on disk"
	elif ! grep -qx 'e2fsck -fn: exit 0' "$c"; then
		echo "FAIL ext2-rw-attr-$name: e2fsck not clean on both"
	elif ! diff <(sed -n '/^== mounted/,/^== on disk/p' "$c" | sed '1d;$d') \
		<(sed -n '/^== remounted/,$p' "$c" | sed 1d) > /dev/null && [ "$name" != 1k-r1-nouid32 ]; then
		echo "FAIL ext2-rw-attr-$name: the attributes did not survive the unmount"
	else
		echo "PASS ext2-rw-attr-$name ($(grep -c ': exit 0$' "$c") changes made, $(grep -c ': exit [1-9]' "$c") refused, $(grep -c '^[^ ]* [0-9a-f]\{256\}$' "$c") inodes identical on disk, e2fsck clean)"
	fi
done < "$w/names"
pair_splats ext2-rw-attr "$w"

#!/bin/bash
# fsync and fdatasync of rust_ext2 (writes=1) against C ext2, in one boot of
# the built kernel (virtme-ng): on two copies of one image (1 and 4 KiB
# blocks), one per driver, a file that reaches the double-indirect blocks is
# written and fsync'ed, another written and fdatasync'ed, with periodic
# writeback off; then the guest resets at once (reboot(2) without a sync),
# so that only what fsync wrote reaches the disk. On the host (debugfs) both
# files must read back as written from both copies: their indirect blocks
# (the inode's metadata buffers, ext2_sync_inode_metadata) and inode were
# written by fsync. Prints PASS/FAIL lines.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh
. tests/lib-pair.sh
[ -x "$CACHE/venv/bin/vng" ] || { echo "FAIL ext2-rw-fsync: virtme-ng missing (make setup)"; exit 0; }
w=$REPO/out/rw-fsync
rm -rf "$w"; mkdir -p "$w"
drives=() names=()
for bs in 1024 4096; do
	name=$((bs / 1024))k
	mkdir -p "$w/$name.tree"
	: > "$w/$name.tree/f"; : > "$w/$name.tree/g"
	mke2fs -q -F -t ext2 -I 128 -b "$bs" -d "$w/$name.tree" "$w/$name.c.img" 16M > /dev/null 2>&1 || { echo "FAIL ext2-rw-fsync: mke2fs"; exit 0; }
	cp "$w/$name.c.img" "$w/$name.r.img"
	pair_drives "$w/$name.c.img" "$w/$name.r.img"
	# f: into the double-indirect blocks; g: into the indirect ones.
	head -c $(((12 + bs / 4 + 20) * bs + 77)) /dev/urandom > "$w/$name.f"
	head -c $((40 * bs + 5)) /dev/urandom > "$w/$name.g"
	names+=("$name")
done
printf '%s\n' "${names[@]}" > "$w/names"
ko=$(find "$KBUILD_OUT/modinst" -name rust_ext2.ko | head -1)
[ -n "$ko" ] || { echo "FAIL ext2-rw-fsync: no rust_ext2.ko in $KBUILD_OUT/modinst"; exit 0; }
cat > "$w/write.py" <<'EOF'
# write.py SRC DST fsync|fdatasync: DST (an existing file) gets SRC's bytes,
# then is synced.
import os, sys
src, dst, how = sys.argv[1:]
data = open(src, 'rb').read()
fd = os.open(dst, os.O_WRONLY)
os.write(fd, data)
(os.fsync if how == 'fsync' else os.fdatasync)(fd)
os.close(fd)
EOF
cat > "$w/guest.sh" <<'EOF'
set -u
w=$1 ko=$2
letters=abcdefghijklmnopqrstuvwxyz
insmod "$ko" writes=1 || exit 1
# Nothing reaches the disk but what fsync writes.
echo 0 > /proc/sys/vm/dirty_writeback_centisecs
echo 360000 > /proc/sys/vm/dirty_expire_centisecs
: > "$w/splats"
i=0
while read -r name; do
	for t in ext2 rust_ext2; do
		[ $t = ext2 ] && d=/dev/vd${letters:$((2 * i)):1} || d=/dev/vd${letters:$((2 * i + 1)):1}
		mp=$(mktemp -d)
		mount -t $t -o noreservation "$d" "$mp" || echo "mount $t $d: exit $?" >> "$w/splats"
		python3 "$w/write.py" "$w/$name.f" "$mp/f" fsync
		python3 "$w/write.py" "$w/$name.g" "$mp/g" fdatasync
	done
	i=$((i + 1))
done < "$w/names"
dmesg | grep -E 'BUG|WARNING|Oops|KASAN|panicked|lockdep' >> "$w/splats"
echo @@DONE
sleep 1
# A reset, without a sync or an unmount.
python3 -c 'import ctypes; ctypes.CDLL(None).reboot(0x01234567)'
EOF
pair_boot ext2-rw-fsync "$w" "$ko" || exit 0
while read -r name; do
	for d in c r; do
		img=$w/$name.$d.img res=
		for f in f g; do
			debugfs -R "dump $f $w/$name.$d.$f.out" "$img" > /dev/null 2>&1
			if cmp -s "$w/$name.$f" "$w/$name.$d.$f.out"; then res="$res $f as written,"
			else res="$res $f NOT as written,"; fi
		done
		e2fsck -fn "$img" > /dev/null 2>&1
		echo "$res e2fsck -fn after the reset: exit $?" > "$w/$name.$d.res"
	done
	if grep -q NOT "$w/$name.c.res"; then
		echo "FAIL ext2-rw-fsync-$name: C ext2's files were not synced:$(cat "$w/$name.c.res")"
	elif ! diff -q "$w/$name.c.res" "$w/$name.r.res" > /dev/null; then
		echo "FAIL ext2-rw-fsync-$name: C ext2:$(cat "$w/$name.c.res") rust_ext2:$(cat "$w/$name.r.res")"
	else
		echo "PASS ext2-rw-fsync-$name (after fsync/fdatasync and a reset, on both drivers:$(cat "$w/$name.r.res"))"
	fi
done < "$w/names"
pair_splats ext2-rw-fsync "$w"

# timeout: 900
# kernel: debug
# Truncate on the debug kernel (KASAN, lockdep, KMEMLEAK, overflow checks):
# rust_ext2 with writes=1 mounts a copy of rw.img (tests/images/40-rw.sh) on
# a loop device (five rounds, a fresh copy each) and cuts a sparse file with data in every indirect level and
# a dense one level by level, down to a byte inside a block, grows and
# empties them, while two readers read the file being cut (cat through the
# page cache, and stat/FIEMAP-free block reads with dd); then the hostile
# files (an inode table block, a block past the end, a block shared with
# another file, a bitmap that does not mark the inode table) are truncated
# with errors=continue: each must give C's ext2_error message, never a
# splat, and after the unmount the module is removed (rmmod destroys the
# inode cache, which warns if objects are left). The run fails on any splat
# in the kernel log (the harness). 63-ext2-rw-truncate compares the results
# with C ext2's.
. /tests/lib.sh
# Earlier tests loaded the module without writes=1: reload it (nothing is
# mounted between tests), and leave nothing mounted if this test fails.
rmmod rust_ext2 2> /dev/null || true
modprobe rust_ext2 writes=1
trap 'umount /mnt/rw 2> /dev/null; losetup -d /dev/loop7 2> /dev/null' EXIT
mkdir -p /mnt/rw
# Five rounds, each on a fresh copy.
for round in 1 2 3 4 5; do
cp "$(disk rw)" /tmp/rw.img
losetup /dev/loop7 /tmp/rw.img
mount -t rust_ext2 -o errors=continue /dev/loop7 /mnt/rw || fail "mount rw"
dmesg -c > /dev/null
touch /tmp/readers
for r in 1 2; do
	(while [ -e /tmp/readers ]; do
		if [ $r = 1 ]; then cat /mnt/rw/big /mnt/rw/mid > /dev/null 2>&1
		else dd if=/mnt/rw/big bs=1024 skip=65800 count=300 of=/dev/null 2> /dev/null; fi
	done) &
done
bs=1024 p=256
i=$((12 + p)) dd=$((12 + p + p * p))
for sz in $(((dd + p + 8) * bs + 100)) $(((dd + 1) * bs + 7)) $((dd * bs)) \
	$(((i + p + 6) * bs + 1)) $((i * bs + 5)) $((15 * bs - 1)) $((12 * bs + 1)) \
	$((11 * bs + 3)) $((20 * bs + 17)) $((2 * bs + 1)) 0; do
	truncate -s "$sz" /mnt/rw/big || fail "truncate big to $sz"
	expect_eq "size of big" "$(stat -c %s /mnt/rw/big)" "$sz"
done
for sz in $((200 * bs)) $((100 * bs + 9)) $((12 * bs)) $((bs + bs / 2)) $((5 * bs)) 0; do
	truncate -s "$sz" /mnt/rw/mid || fail "truncate mid to $sz"
done
rm /tmp/readers
wait
expect_eq "blocks of big and mid" "$(stat -c %b /mnt/rw/big /mnt/rw/mid | tr '\n' ' ')" "0 0 "
for f in bad-sys bad-out bad-dup1 bad-dup2; do truncate -s 0 /mnt/rw/$f || fail "truncate $f"; done
errs=$(dmesg | sed -n 's/.*rust_ext2: error: //p')
expect_eq "errors" "$(echo "$errs" | sed 's/ = [0-9]*//g; s/block [0-9][0-9]*/block N/')" \
"Invalid block bitmap - block_group, block
Freeing blocks in system zones - Block, count
Freeing blocks not in datazone - block, count
bit already cleared for block N"
umount /mnt/rw
losetup -d /dev/loop7
rm /tmp/rw.img
done
trap - EXIT
rmmod rust_ext2
echo "PASS ext2-rw (5 rounds of truncates on the debug kernel, with readers; $(echo "$errs" | wc -l) errors as expected each)"

# timeout: 2400
# kernel: debug
# Writes on the debug kernel (KASAN, lockdep, KMEMLEAK, overflow checks):
# rust_ext2 with writes=1 on a copy of rww-1024/2048/4096.img (tests/images/
# 40-rw.sh) on a loop device (reservation windows on, but for 2 KiB blocks),
# for each block size: fstests' fsx, 10,000
# operations on a file through the page cache with read(2)/write(2) only,
# 10,000 with mapped reads and writes among them (shared writable mappings,
# allocated at writeback) and 10,000 with O_DIRECT (fsx checks every read
# against its model of the file), then four writers
# of four files with two readers reading them, then fstests' fsstress with
# four processes and all its operations (files, directories, links, symbolic
# links, device nodes, renames, attributes, ACL-less chmod/chown, chattr,
# O_DIRECT, mapped I/O, truncate, syncs), then a file filled to ENOSPC; after
# the unmount e2fsck -fn must be clean. The run fails on any splat in the
# kernel log (the harness). 64-ext2-rw-write and 66-ext2-rw-create compare
# the results of writes, creates and unlinks with C ext2's.
. /tests/lib.sh
rmmod rust_ext2 2> /dev/null || true
modprobe rust_ext2 writes=1
trap 'umount /mnt/rw 2> /dev/null; losetup -d /dev/loop7 2> /dev/null' EXIT
mkdir -p /mnt/rw
ops=0 stress=0
# fsx operations per mode and block size: 10,000, or FSX_OPS given to
# mkinitramfs (make test ... FSX_OPS=100000 for the long run).
nops=$(cat /expected/fsx-ops 2> /dev/null || echo 10000)
for bs in 1024 2048 4096; do
	cp "$(disk rww-$bs)" /tmp/rww.img
	losetup /dev/loop7 /tmp/rww.img
	# Reservation windows (the default) on 1 and 4 KiB blocks, none on 2 KiB.
	o=reservation,user_xattr,acl
	[ "$bs" = 2048 ] && o=noreservation,user_xattr,acl
	mount -t rust_ext2 -o $o /dev/loop7 /mnt/rw || fail "mount rww-$bs"
	fsx -q -P /tmp -N "$nops" -S 7 -l 1048576 -R -W /mnt/rw/fsx.buf > /tmp/fsx.log 2>&1 ||
		{ tail -30 /tmp/fsx.log; fail "fsx buffered, $bs-byte blocks"; }
	fsx -q -P /tmp -N "$nops" -S 9 -l 1048576 /mnt/rw/fsx.map > /tmp/fsx.log 2>&1 ||
		{ tail -30 /tmp/fsx.log; fail "fsx mmap, $bs-byte blocks"; }
	fsx -q -P /tmp -N "$nops" -S 8 -l 1048576 -R -W -Z -r 512 -w 512 -t 512 /mnt/rw/fsx.dio > /tmp/fsx.log 2>&1 ||
		{ tail -30 /tmp/fsx.log; fail "fsx O_DIRECT, $bs-byte blocks"; }
	ops=$((ops + 3 * nops))
	touch /tmp/readers
	readers=
	for r in 1 2; do
		(while [ -e /tmp/readers ]; do cat /mnt/rw/w1 /mnt/rw/w2 /mnt/rw/w3 /mnt/rw/w4 > /dev/null; done) &
		readers="$readers $!"
	done
	writers=
	for n in 1 2 3 4; do
		dd if=/dev/urandom of=/mnt/rw/w$n bs=3000 count=700 conv=notrunc 2> /dev/null &
		writers="$writers $!"
	done
	for p in $writers; do wait $p || fail "writer $p"; done
	rm /tmp/readers
	for p in $readers; do wait $p || true; done
	for n in 1 2 3 4; do expect_eq "size of w$n" "$(stat -c %s /mnt/rw/w$n)" 2100000; done
	fsstress -d /mnt/rw -p 4 -n 1500 -s "$bs" > /tmp/fsstress.log 2>&1 ||
		{ tail -30 /tmp/fsstress.log; fail "fsstress, $bs-byte blocks"; }
	stress=$((stress + 6000))
	dd if=/dev/zero of=/mnt/rw/fill bs=65536 2> /tmp/dd.log && fail "fill: no ENOSPC"
	grep -q 'No space left' /tmp/dd.log || { cat /tmp/dd.log; fail "fill: not ENOSPC"; }
	umount /mnt/rw
	losetup -d /dev/loop7
	e2fsck -fn /tmp/rww.img > /tmp/fsck.log 2>&1 || { cat /tmp/fsck.log; fail "e2fsck after the writes, $bs-byte blocks"; }
	rm /tmp/rww.img
done
trap - EXIT
rmmod rust_ext2
echo "PASS ext2-rw-write ($ops fsx operations buffered, mapped and O_DIRECT, 4 writers with 2 readers, $stress fsstress operations in 4 processes, a full file system, on 1, 2 and 4 KiB blocks: fsx and e2fsck clean)"

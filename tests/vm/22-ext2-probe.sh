# timeout: 900
# kernel: base
# rust_ext2 against C ext2 beyond the walk: for every image of
# expected/ext2-images that both mount, fsprobe (tests/tools/fsprobe.c) of a
# C ext2 mount and of a rust_ext2 mount must be identical: FS_IOC_GETFLAGS/
# FSGETXATTR, statx attributes and mask, the SEEK_DATA/SEEK_HOLE map, mmap
# reads, reads at and past EOF, access() and open() as three unprivileged
# users (against POSIX ACLs on ext2-1k and ext2-2k), the POSIX ACL
# attributes, lseek+getdents on directories, FS_IOC_GETVERSION, FIBMAP,
# FIEMAP, O_DIRECT reads (aligned and misaligned), file handle round
# trips, fsync/fdatasync and leases (F_SETLEASE/F_GETLEASE). PENDING lists
# probes that are reported, not judged (none now). Not probed: an open
# without O_LARGEFILE of a file over 2 GiB (generic_file_open's EOVERFLOW):
# 64-bit processes always open with O_LARGEFILE, and the test kernels have
# no IA32_EMULATION for a 32-bit one.
. /tests/lib.sh
SERVED="flags|statx|seek|mmap|eof|access|acl|dirseek|version|fibmap|handle|fiemap|odirect|sync|lease"
PENDING=""
modprobe rust_ext2
mkdir -p /mnt/c /mnt/r
bad=0
while read -r name want; do
	[ "$want" = refuse ] && continue
	dev=$(disk "$name")
	mount -t ext2 -o ro "$dev" /mnt/c
	fsprobe /mnt/c > /tmp/c.probe
	umount /mnt/c
	mount -t rust_ext2 -o ro "$dev" /mnt/r || { echo "$name: rust_ext2 failed to mount"; bad=1; continue; }
	fsprobe /mnt/r > /tmp/r.probe
	umount /mnt/r
	grep -E "^($SERVED) " /tmp/c.probe > /tmp/c.served || true
	grep -E "^($SERVED) " /tmp/r.probe > /tmp/r.served || true
	if diff -u /tmp/c.served /tmp/r.served > /tmp/diff; then
		echo "$name: identical:" $(cut -d' ' -f1 /tmp/c.served | sort | uniq -c | awk '{print $2 "=" $1}')
	else
		echo "$name: DIFFERENT (- C ext2, + rust_ext2):"
		head -40 /tmp/diff
		bad=1
	fi
	[ -n "$PENDING" ] || continue
	pending=
	for p in $PENDING; do
		grep "^$p " /tmp/c.probe > /tmp/c.p || true
		grep "^$p " /tmp/r.probe > /tmp/r.p || true
		n=$(diff /tmp/c.p /tmp/r.p | grep -c '^[-+][^-+]' || true)
		pending="$pending $p=$n"
	done
	echo "$name: not served yet, lines that differ:$pending"
done < /expected/ext2-images
[ $bad = 0 ] || fail "rust_ext2 differs from C ext2"

# kernel: debug
# The bindings contain a file system that misbehaves through the safe API
# (samples/rust/rust_badfs.rs): oversized xattr lengths give ERANGE, a folio
# read on an inode without read_folio EINVAL, inodes whose file or link
# operations read through the page cache without read_folio are refused
# (EINVAL: read(2) or the link walk would call NULL), reads of blocks on the
# device the superblock does not have fail with EIO (page cache and O_DIRECT;
# its fill_super's block-size calls fail too), an owned link target in RCU
# walk is retried in ref walk, a target borrowed from non-whitelisted inode
# data is copied for readlink (hardened usercopy), over-aligned inode data is
# aligned, inode data whose Drop sleeps is dropped where it may sleep, and
# folios read_folio wrote only in part read as zeros where it did not write,
# a new inode whose set-up failed is released (lookups fail, not hang), a
# target borrowed from another inode's object is copied for readlink, and
# inode references held in inode data and in the superblock's data are
# released at put_super (no "Busy inodes after unmount"); a parameter is read
# as the kind of the spec that matched it, not of the first spec with its
# option number; a file of holes gives FIEMAP in bounded time (the length is
# clamped to the size), a 64-bit inode number no 32-bit file handle, and a
# new inode and a folio that the file system "forgets" are unlocked anyway;
# an inode whose file operations write but whose address space cannot is
# refused (EINVAL), and a write_begin that prepares another length than asked
# gets EINVAL (the folio released: the next write does not hang); per-inode
# writer state whose Drop sleeps is dropped where it may sleep, and one whose
# initialiser fails fails the inode's allocation (the mount: ENOMEM).
# As root and as an unprivileged user; dmesg must stay clean (debug kernel:
# KASAN, HARDENED_USERCOPY, DEBUG_ATOMIC_SLEEP, lockdep).
. /tests/lib.sh
modprobe rust_badfs
grep -qw rust-badfs /proc/filesystems || fail "rust-badfs not registered"
mkdir -p /mnt/b
want="lstat xattrs = 0
lstat noaops = 0
lstat owned = 0
lstat inlink = 0
listxattr size = 100
listxattr 64 = ERANGE
getxattr size = 16
getxattr 64 = ERANGE
lookup in noaops = EINVAL
readlink owned = xattrs
stat through owned = 0
stat through owned again = 0
lstat noread = EINVAL
read noread = EINVAL
lstat nolink = EINVAL
readlink nolink = EINVAL
read blocks = EIO
odirect read blocks = EIO
stale bytes in partial = 0
lstat failing = EIO
lstat failing again = EIO
readlink inlink = xattrs
stat through inlink = 0
readlink holder = xattrs
stat through holder = 0
handle bigino = EOVERFLOW
fiemap holes = 0
lstat nowrite = EINVAL
write wrongpos = EINVAL
write wrongpos again = EINVAL
lstat forget = 0
lstat forget again = 0
read forget = 6
read forget again = 6"
i=0
while [ $i -lt 20 ]; do
	mount -t rust-badfs none /mnt/b || fail "mount"
	got=$(badfs-probe /mnt/b)
	expect_eq "as root (cycle $i)" "$got" "$want"
	got=$(BADFS_UID=65534 badfs-probe /mnt/b)
	expect_eq "as nobody (cycle $i)" "$got" "$want"
	umount /mnt/b
	i=$((i + 1))
done
echo "$want"
# owner=UID and count=N share an option number: a count is a count (which
# badfs refuses), not read as a uid (it became the root's owner before).
mount -t rust-badfs -o owner=1234 none /mnt/b || fail "mount -o owner=1234"
got=$(stat -c %u /mnt/b)
umount /mnt/b
expect_eq "owner of the root with owner=1234" "$got" 1234
if mount -t rust-badfs -o count=5 none /mnt/b 2>/dev/null; then
	got=$(stat -c %u /mnt/b)
	umount /mnt/b
	fail "mount -o count=5 succeeded, root owned by $got"
fi
echo "owner=1234: root owned by 1234; count=5: refused"
# A writer state that fails to initialise fails the inode's allocation: the
# mount fails with ENOMEM (the object freed: KASAN, kmemleak), the next works.
if mount -t rust-badfs -o writer_fail none /mnt/b 2> /tmp/wf.err; then
	umount /mnt/b
	fail "mount -o writer_fail succeeded"
fi
grep -q 'Cannot allocate memory' /tmp/wf.err || { cat /tmp/wf.err; fail "mount -o writer_fail: not ENOMEM"; }
mount -t rust-badfs none /mnt/b || fail "mount after writer_fail"
umount /mnt/b
echo "writer_fail: ENOMEM, then mounted"
echo "20 mount cycles, root and nobody: as expected"
# The maxbytes it asked for (i64::MAX) was clamped: a mount works at all.
rmmod rust_badfs
grep -qw rust-badfs /proc/filesystems && fail "rust-badfs still registered after rmmod"
true

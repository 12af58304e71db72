# kernel: debug
# Inodes of another superblock of the same type (rust_badfs's `stash`,
# `foreign` and `-o foreign_root`, through an inode slot shared by its
# mounts): the bindings refuse to splice one into a dentry (the lookup fails
# with EIO) or to make one the root of a new mount (the mount fails), so no
# dentry of one superblock keeps an inode of another past that one's umount
# (which would be "Busy inodes after unmount" and a use after free).
# rust_badfs stays loaded after this test: its slot is a static that a
# sample cannot free (31-badfs removes the module, before the slot exists).
. /tests/lib.sh
modprobe rust_badfs
mkdir -p /mnt/a /mnt/b
i=0
while [ $i -lt 5 ]; do
	mount -t rust-badfs none /mnt/a || fail "mount a"
	mount -t rust-badfs none /mnt/b || fail "mount b"
	# Puts a's inode of `xattrs` in the slot; the name itself is not found.
	stat /mnt/a/stash > /dev/null 2>&1 && fail "stash found"
	if got=$(stat -c %i /mnt/b/foreign 2>&1); then
		fail "b/foreign: inode $got of a spliced into b"
	fi
	case "$got" in *"Input/output error"*) ;; *) fail "b/foreign: $got, want EIO" ;; esac
	umount /mnt/a
	umount /mnt/b
	mount -t rust-badfs none /mnt/a || fail "mount a"
	stat /mnt/a/stash > /dev/null 2>&1 && fail "stash found"
	if mount -t rust-badfs -o foreign_root none /mnt/b 2>/dev/null; then
		got=$(stat -c %i /mnt/b)
		umount /mnt/b
		fail "mount -o foreign_root succeeded, root inode $got of a"
	fi
	umount /mnt/a
	i=$((i + 1))
done
echo "5 cycles: b/foreign = EIO, mount -o foreign_root refused"

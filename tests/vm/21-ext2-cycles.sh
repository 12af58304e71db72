# timeout: 600
# kernel: base
# rust_ext2: 100 mount/unmount cycles with a walk leak nothing (the inode
# cache is back to its count from before the first mount), and the module
# unloads.
. /tests/lib.sh
modprobe rust_ext2
dev=$(disk ext2-1k)
before=$(slab_objs rust_ext2)
bh_before=$(slab_objs buffer_head)
mkdir -p /mnt/r
i=0
while [ $i -lt 100 ]; do
	mount -t rust_ext2 -o ro "$dev" /mnt/r
	ls -laR /mnt/r/special /mnt/r/links > /dev/null
	cat /mnt/r/hello.txt /mnt/r/special/slow-1000 /mnt/r/holes-1k > /dev/null 2>&1 || true
	umount /mnt/r
	i=$((i + 1))
done
# Inodes are freed after an RCU grace period, on a workqueue.
after=$(slab_settle rust_ext2 "$before")
echo "rust_ext2 inode cache objects: before=$before after=$after"
expect_eq "inode cache objects after 100 mounts" "$after" "$before"
# Buffer heads that block_read_full_folio attached to holes-1k's folios are
# released with the folios (block_invalidate_folio) when the inodes go.
echo 3 > /proc/sys/vm/drop_caches
bh_after=$(slab_settle buffer_head "$bh_before")
echo "buffer_head objects: before=$bh_before after=$bh_after"
[ "$bh_after" -le "$bh_before" ] || fail "buffer heads leaked: $bh_before before, $bh_after after"
rmmod rust_ext2
grep -qw rust_ext2 /proc/filesystems && fail "rust_ext2 still registered after rmmod"
true

# rust_ext2: 100 mount/unmount cycles with a walk leak nothing (the inode
# cache is back to its count from before the first mount), and the module
# unloads.
. /tests/lib.sh
modprobe rust_ext2
dev=$(disk ext2-1k)
slab_objs() {
	[ -e /sys/kernel/slab/rust_ext2/shrink ] && echo 1 > /sys/kernel/slab/rust_ext2/shrink
	awk '$1 == "rust_ext2" { print $2 }' /proc/slabinfo
}
before=$(slab_objs)
mkdir -p /mnt/r
i=0
while [ $i -lt 100 ]; do
	mount -t rust_ext2 -o ro "$dev" /mnt/r
	ls -laR /mnt/r/special /mnt/r/links > /dev/null
	cat /mnt/r/hello.txt /mnt/r/special/slow-1000 > /dev/null 2>&1 || true
	umount /mnt/r
	i=$((i + 1))
done
sleep 1
after=$(slab_objs)
echo "rust_ext2 inode cache objects: before=$before after=$after"
expect_eq "inode cache objects after 100 mounts" "$after" "$before"
rmmod rust_ext2
grep -qw rust_ext2 /proc/filesystems && fail "rust_ext2 still registered after rmmod"
true

# kernel: base debug
# C ext2 mounts an image made by mke2fs -d on the host; contents match the
# host's SHA-256 of every file.
. /tests/lib.sh
dev=$(disk smoke)
mkdir -p /mnt/smoke
mount -t ext2 -o ro "$dev" /mnt/smoke
cd /mnt/smoke
got=$(find . -type f | sort | xargs sha256sum)
cd /
umount /mnt/smoke
expect_eq "sha256 of smoke.img files" "$got" "$(cat /expected/smoke.sha256)"

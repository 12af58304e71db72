# kernel: debug
# On the hardened debug kernel (HARDENED_USERCOPY, KASAN, ...): every
# conformance image walked by an unprivileged user (uid 65534, no groups) on
# C ext2 and on rust_ext2 in the same boot, without file contents: readlink
# of every fast and slow symlink, lstat, getdents, xattrs and statfs must be
# identical, and dmesg clean (a fast symlink's target is copied to user space
# from the inode cache, which must be whitelisted).
# timeout: 900
. /tests/lib.sh
modprobe rust_ext2
mkdir -p /mnt/c /mnt/r
export FSWALK_UID=65534 FSWALK_NODATA=1
bad=0 links=0
while read -r name want; do
	[ "$want" = refuse ] && continue
	dev=$(disk "$name")
	walk_both "$dev"
	n=$(grep -c '^link ' /tmp/c.walk || true)
	links=$((links + n))
	if diff -u /tmp/c.walk /tmp/r.walk > /tmp/diff; then
		echo "$name: identical as uid 65534 ($n symlinks read)"
	else
		echo "$name: DIFFERENT as uid 65534 (- C ext2, + rust_ext2):"
		head -40 /tmp/diff
		bad=1
	fi
done < /expected/ext2-images
[ "$links" -gt 0 ] || fail "no symlink was read"
[ $bad = 0 ] || fail "rust_ext2 differs from C ext2 for an unprivileged user"
echo "$links symlinks read as uid 65534"

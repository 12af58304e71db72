# timeout: 1200
# kernel: base debug
# rust_ext2 against C ext2, same image, same boot: for every image of
# expected/ext2-images, fswalk (tests/tools/fswalk.c) of a C ext2 mount and
# of a rust_ext2 mount must be identical: names, getdents order/offsets/types,
# seekdir, inode numbers, modes, owners, sizes, blocks, links, times, rdev,
# symlink targets, xattrs, SHA-256 of contents, statfs. Images marked
# "refuse" must be refused by both (rust_ext2 with EINVAL); on images marked
# "ok" writes must fail with EROFS ("walk": the walks only).
. /tests/lib.sh
modprobe rust_ext2
grep -qw rust_ext2 /proc/filesystems || fail "rust_ext2 not registered"
mkdir -p /mnt/c /mnt/r
bad=0
while read -r name want; do
	dev=$(disk "$name")
	if [ "$want" = refuse ]; then
		if mount -t ext2 -o ro "$dev" /mnt/c 2>/dev/null; then
			umount /mnt/c; echo "$name: C ext2 mounted an image it should refuse"; bad=1
		fi
		out=$(mount -t rust_ext2 -o ro "$dev" /mnt/r 2>&1) && {
			umount /mnt/r; echo "$name: rust_ext2 mounted it"; bad=1; continue; }
		case "$out" in *"Invalid argument"*) echo "$name: refused by both ($out)" ;;
		*) echo "$name: rust_ext2 refused it without EINVAL: $out"; bad=1 ;; esac
		continue
	fi
	mount -t ext2 -o ro "$dev" /mnt/c
	fswalk /mnt/c > /tmp/c.walk
	umount /mnt/c
	if ! mount -t rust_ext2 -o ro "$dev" /mnt/r; then
		echo "$name: rust_ext2 failed to mount"; bad=1; continue
	fi
	fswalk /mnt/r > /tmp/r.walk
	# Writes are refused.
	[ "$want" = ok ] && for cmd in "touch /mnt/r/new" "mkdir /mnt/r/d" "rm -f /mnt/r/hello.txt" \
		"sh -c 'echo x >> /mnt/r/hello.txt'" "setfattr -n user.x -v 1 /mnt/r/hello.txt"; do
		out=$(eval "$cmd" 2>&1 || true)
		case "$out" in *"Read-only file system"*) ;;
		*) echo "$name: $cmd: $out"; bad=1 ;; esac
	done
	umount /mnt/r
	if diff -u /tmp/c.walk /tmp/r.walk > /tmp/diff; then
		echo "$name: identical:" $(cut -d' ' -f1 /tmp/c.walk | sort | uniq -c | awk '{print $2 "=" $1}')
		grep '^err ' /tmp/c.walk | sed "s/^/$name: both: /" || true
	else
		echo "$name: DIFFERENT (- C ext2, + rust_ext2):"
		head -40 /tmp/diff
		bad=1
	fi
done < /expected/ext2-images
# Without -o ro, the mount is read-only all the same (the disks are read-only).
mount -t rust_ext2 "$(disk ext2-1k)" /mnt/r || fail "mount without -o ro failed"
opts=$(awk '$2 == "/mnt/r" { print $4 }' /proc/mounts)
umount /mnt/r
case "$opts" in ro,*|ro) echo "mount without -o ro: $opts" ;; *) fail "mount without -o ro: $opts" ;; esac
[ $bad = 0 ] || fail "rust_ext2 differs from C ext2"

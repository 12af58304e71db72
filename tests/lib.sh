# Helpers for the in-VM tests (sourced; busybox sh).
set -e
# disk NAME: the /dev node of image NAME.img
disk() {
	d=$(awk -v n="$1" '$1 == n { print $2 }' /expected/disks)
	[ -n "$d" ] || { echo "no disk for image $1"; return 1; }
	echo "/dev/$d"
}
fail() { echo "FAIL: $*"; exit 1; }
# expect_eq WHAT GOT WANT
expect_eq() { [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"; }
# slab_objs CACHE: active objects of a slab cache (after shrinking it)
slab_objs() {
	[ -e "/sys/kernel/slab/$1/shrink" ] && echo 1 > "/sys/kernel/slab/$1/shrink"
	awk -v c="$1" '$1 == c { print $2 }' /proc/slabinfo
}
# slab_settle CACHE WANT: objects of CACHE once at most WANT (frees come after
# RCU grace periods and workqueues), or after 20 s what there is.
slab_settle() {
	n=0
	while [ "$(slab_objs "$1")" -gt "$2" ] && [ $n -lt 20 ]; do
		sleep 1; n=$((n + 1))
	done
	slab_objs "$1"
}
# walk_both DEV [OPTS]: fswalk of DEV mounted read-only (with OPTS) by C ext2
# into /tmp/c.walk and by rust_ext2 into /tmp/r.walk (FSWALK_* from the
# environment); fails if rust_ext2 refuses to mount it.
walk_both() {
	mount -t ext2 -o "ro${2:+,$2}" "$1" /mnt/c
	fswalk /mnt/c > /tmp/c.walk
	umount /mnt/c
	mount -t rust_ext2 -o "ro${2:+,$2}" "$1" /mnt/r || return 1
	fswalk /mnt/r > /tmp/r.walk
	umount /mnt/r
}

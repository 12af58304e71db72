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

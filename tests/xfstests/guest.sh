#!/bin/bash
# Inside the fstests VM (scripts/xfstests.sh): guest.sh WORKDIR
# WORKDIR (writable, shared with the host) has `env` and `tests`; /dev/vda is
# TEST_DEV (made by the host), /dev/vdb SCRATCH_DEV.
set -u
w=$1
. "$w/env"
# rust_ext2, a module of the running kernel (none when it is built in as ext2);
# with RUST=1 it is the ext2 of this boot (C ext2 registered as c_ext2), and
# the guest writes the proof. The read-back check mounts with both names.
C_EXT2=ext2 RUST_EXT2=rust_ext2
if [ "${RUST:-0}" = 1 ]; then
	C_EXT2=c_ext2 RUST_EXT2=ext2
	grep -qw c_ext2 /proc/filesystems || { echo "C ext2 is not c_ext2 in this boot"; exit 1; }
	insmod "$RUST_EXT2_KO" as_ext2=1 writes=1 || exit 1
	mkdir -p /tmp/proof
	mount -t ext2 /dev/vda /tmp/proof || exit 1
	# register_filesystem refuses a second "ext2" (EBUSY): the insmod above
	# succeeded only because C ext2 registered under another name.
	echo "proof: rust_ext2 registered as ext2 (C ext2 is c_ext2 in this boot)," \
		"ext2 in /proc/filesystems $(grep -cw ext2 /proc/filesystems) time(s)," \
		"rust_ext2 module users with TEST_DEV mounted as ext2: $(cat /sys/module/rust_ext2/refcnt)" > "$w/proof"
	umount /tmp/proof
elif [ -n "$RUST_EXT2_KO" ]; then
	grep -qw rust_ext2 /proc/filesystems || insmod "$RUST_EXT2_KO" || exit 1
fi
# fstests' users and group, in the guest's /etc (a tmpfs overlay; useradd
# cannot replace /etc/shadow, which virtme-ng bind-mounts, but it can be
# appended to).
grep -q '^fsgqa:' /etc/group || echo "fsgqa:x:10001:" >> /etc/group
for u in fsgqa:10001 fsgqa2:10002 123456-fsgqa:123456; do
	name=${u%:*} uid=${u#*:}
	id "$name" >/dev/null 2>&1 && continue
	echo "$name:x:$uid:10001::/tmp/home-$name:/bin/bash" >> /etc/passwd
	echo "$name:*:20000:0:99999:7:::" >> /etc/shadow # su needs one
	mkdir -p "/tmp/home-$name" && chown "$uid:10001" "/tmp/home-$name"
done
# fsck.ext2 is the read-back wrapper, for this boot only. (On Debian it is a
# link to e2fsck, so e2fsck is the wrapper too; the real one is copied.)
real=$(readlink -f "$(command -v fsck.ext2)")
mkdir -p /run/xfstests
cp "$real" /run/xfstests/e2fsck
for f in /sbin/fsck.ext2 /usr/sbin/fsck.ext2; do
	[ -e "$f" ] && mount --bind "$XT/fsck.ext2" "$f"
done
export E2FSCK_REAL=/run/xfstests/e2fsck FSWALK=$TOOLS/fswalk READBACK READBACK_LOG=$w/readback.log C_EXT2 RUST_EXT2
mkdir -p /tmp/test /tmp/scratch
cat > "$w/local.config" <<EOC
export FSTYP=$FSTYP
export TEST_DEV=/dev/vda
export TEST_DIR=/tmp/test
export SCRATCH_DEV=/dev/vdb
export SCRATCH_MNT=/tmp/scratch
EOC
cd "$FT" || exit 1
HOST_OPTIONS=$w/local.config RESULT_BASE=$w/results ./check -R xunit-quiet $(cat "$w/tests") \
	> "$w/check.log" 2>&1
echo "check exit $?" >> "$w/check.log"
dmesg > "$w/dmesg.log"

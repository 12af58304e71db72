# timeout: 600
# kernel: base
# Mount options of rust_ext2 against C ext2 (mountopt, tests/tools/mountopt.c):
# every option of ext2_param_spec alone and in combinations, on images with
# mke2fs's defaults (ext2-1k, ext2-4k) and with other defaults in the
# superblock (ext2-2k: errors=remount-ro, resuid/resgid, bsdgroups, uid16),
# must give the same errno, the same /proc/mounts options and the same view of
# an ACL'd file, a high-uid file and an xattr'd one; remounts change options
# as in C; -o sb= mounts the images whose primary superblock is zeroed and
# both walks of them are identical.
. /tests/lib.sh
modprobe rust_ext2
mkdir -p /mnt/o /mnt/c /mnt/r
export MO_PROBE="files/size-1023 owners/f4 hello.txt special"
bad=0
same() { # WHAT DEV OPTS [REMOUNT-OPTS...]
	what=$1 dev_=$2
	shift 2
	mountopt ext2 "$dev_" /mnt/o "$@" > /tmp/c.mo 2>&1
	mountopt rust_ext2 "$dev_" /mnt/o "$@" > /tmp/r.mo 2>&1
	if diff -u /tmp/c.mo /tmp/r.mo > /tmp/diff; then
		n=$((n + 1))
	else
		echo "$what: DIFFERENT (- C ext2, + rust_ext2):"
		cat /tmp/diff
		bad=1
	fi
}
for img in ext2-1k ext2-2k ext2-4k; do
	dev=$(disk "$img")
	n=0
	while read -r o; do
		[ "$o" = - ] && o=
		same "$img -o '$o'" "$dev" "$o"
	done <<-EOF
	-
	acl
	noacl
	user_xattr
	nouser_xattr
	errors=continue
	errors=remount-ro
	errors=panic
	errors=bogus
	sb=1
	nouid32
	resuid=1000
	resgid=1000
	resuid=0
	resuid=-1
	resuid=abc
	grpid
	bsdgroups
	nogrpid
	sysvgroups
	debug
	oldalloc
	orlov
	nobh
	dax
	xip
	quota
	noquota
	usrquota
	grpquota
	reservation
	noreservation
	minixdf
	bsddf
	bogus
	acl=1
	acl,noacl
	noacl,acl
	nouser_xattr,noacl,errors=continue,nouid32
	resuid=1000,resgid=1001,grpid,minixdf,oldalloc,noreservation
	user_xattr,acl,errors=remount-ro,sysvgroups,bsddf,orlov,reservation
	EOF
	same "$img remounts" "$dev" "" "noacl" "acl" "nouser_xattr,errors=panic" \
		"resuid=5,resgid=6" "nouid32,sb=8193" "bogus" "user_xattr,errors=continue"
	same "$img remount from noacl" "$dev" "noacl,nouser_xattr,nouid32" "acl" "" "user_xattr"
	same "$img" "$dev" ""
	echo "$img: $n option sets identical; with none: $(grep -m1 '^options:' /tmp/c.mo)"
done
# Zeroed primary superblocks: refused without sb=, mounted with the backup's.
# sb= counts 1 KiB units whatever the block size: the backup in block 32768
# of a 4 KiB image is sb=131072 (sb=32768 is refused by both).
for img_sb in ext2-nosb-1k:8193 ext2-nosb-4k:131072; do
	img=${img_sb%:*} sb=${img_sb#*:}
	dev=$(disk "$img")
	n=0
	for o in "" "sb=$sb" "sb=$sb,noacl" "sb=$((sb - 1))" "sb=32768" "sb=4294967295"; do
		same "$img -o '$o'" "$dev" "$o"
	done
	walk_both "$dev" "sb=$sb" || { echo "$img: rust_ext2 -o sb=$sb failed"; bad=1; continue; }
	if diff -u /tmp/c.walk /tmp/r.walk > /tmp/diff; then
		echo "$img: $n option sets identical, walk with sb=$sb identical ($(wc -l < /tmp/c.walk) lines)"
	else
		echo "$img: walk with sb=$sb DIFFERENT:"
		head -40 /tmp/diff
		bad=1
	fi
done
[ $bad = 0 ] || fail "rust_ext2's options differ from C ext2's"

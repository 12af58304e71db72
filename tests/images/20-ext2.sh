# ext2 conformance images: mke2fs -d from generated trees (tests/images/
# ext2_tree.py), debugfs -w for the xattrs. Each line of expected/ext2-images
# is "NAME ok" (both drivers mount it and must show the same tree) or
# "NAME refuse" (both must refuse it; rust_ext2 with EINVAL).
here=$(dirname "${BASH_SOURCE[0]}")
: > "$IMGDIR/expected/ext2-images"
# Fixed UUID, hash seed and creation time: the same image on every machine.
export E2FSPROGS_FAKE_TIME=1700000000
mkfs() { # NAME SIZE TREE-KIND MKE2FS-ARGS...
	local name=$1 size=$2 kind=$3
	shift 3
	rm -rf "$WORK/$name"
	python3 "$here/ext2_tree.py" "$WORK/$name" "$kind"
	mke2fs -q -F -U 0b1d2a3c-4e5f-4061-8273-94a5b6c7d8e9 -E hash_seed=5e1f2d3c-4b5a-4968-8776-655443322110 \
		-d "$WORK/$name" "$@" "$IMGDIR/$name.img" "$size"
}
xattrs() { # NAME: user., trusted. and security. attributes in the xattr block
	local img=$IMGDIR/$1.img cmds=$WORK/$1.debugfs
	{
		echo "ea_set /hello.txt user.comment hello-xattr"
		echo "ea_set /hello.txt trusted.secret t0p"
		echo "ea_set /hello.txt security.label unconfined"
		echo "ea_set /files/size-1 user.a 1"
		echo "ea_set /files/size-1 user.$(printf 'n%.0s' $(seq 200)) long-name"
		echo "ea_set /files/size-1 user.bin $(printf 'v%.0s' $(seq 400))"
		echo "ea_set /special user.dir-attr on-a-directory"
		echo "ea_set /special/fast-link user.link-attr on-a-symlink"
		echo "ea_set /special/fifo trusted.fifo-attr fifo"
	} > "$cmds"
	debugfs -w -f "$cmds" "$img" > /dev/null 2>&1
}
flagged() { # NAME: on-disk inode flags (EXT2_*_FL), set with debugfs
	local img=$IMGDIR/$1.img cmds=$WORK/$1.flags
	{
		echo "sif /hello.txt flags 0x10"          # immutable
		echo "sif /files/size-1 flags 0x20"       # append
		echo "sif /files/size-4096 flags 0xc0"    # nodump, noatime
		echo "sif /special flags 0x10008"         # dirsync, sync
		echo "sif /special/chr flags 0x10"        # immutable device: writes EPERM
		echo "sif /special/fifo flags 0x20"       # append fifo
		echo "sif /deep flags 0x40004"            # compressed; huge_file (not user-visible)
		echo "sif /names flags 0x21000"           # topdir, index
	} > "$cmds"
	debugfs -w -f "$cmds" "$img" > /dev/null 2>&1
}
acls() { # NAME: POSIX ACLs in the xattr block (128-byte inodes: not in the inode)
	local img=$IMGDIR/$1.img cmds=$WORK/$1.acls d=$WORK/$1.acl
	mkdir -p "$d"
	# debugfs takes ACLs in the xattr format (version 2, 8-byte entries: tag,
	# perm, id) and stores ext2's; -r stores raw bytes (the broken ones).
	python3 - "$d" <<-'PY'
	import struct, sys
	d = sys.argv[1]
	UO, U, GO, G, M, O, X = 1, 2, 4, 8, 0x10, 0x20, 0xffffffff
	acls = {
	    # A named user denied, one allowed, groups by primary and supplementary id.
	    "deny": [(UO, 6, X), (U, 0, 1000), (U, 6, 1002), (GO, 4, X), (G, 0, 1003), (G, 6, 1004), (M, 6, X), (O, 4, X)],
	    # The mask limits a named group; other gets nothing.
	    "mask": [(UO, 6, X), (GO, 4, X), (G, 6, 1000), (M, 4, X), (O, 0, X)],
	    # A directory: only uid 1002 may list it, whatever the mode says.
	    "dir": [(UO, 7, X), (U, 5, 1002), (GO, 5, X), (M, 5, X), (O, 0, X)],
	    "default": [(UO, 7, X), (GO, 5, X), (G, 7, 1000), (M, 7, X), (O, 0, X)],
	    # Only the three base entries (equivalent to the mode).
	    "minimal": [(UO, 6, X), (GO, 0, X), (O, 4, X)],
	}
	for name, entries in acls.items():
	    with open(f"{d}/{name}", "wb") as f:
	        f.write(struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries))
	raw = {
	    "odd-size": b"\x01\x00\x00\x00\x01\x00\x06",
	    "bad-version": struct.pack("<IHH", 2, 1, 6),
	    "bad-tag": struct.pack("<IHHHHHH", 1, 1, 6, 0x40, 4, 0x20, 4),
	    "header-only": struct.pack("<I", 1),
	}
	for name, b in raw.items():
	    with open(f"{d}/{name}", "wb") as f:
	        f.write(b)
	PY
	{
		echo "ea_set -f $d/deny /files/size-1023 system.posix_acl_access"
		echo "ea_set -f $d/mask /files/size-1025 system.posix_acl_access"
		echo "ea_set -f $d/mask /owners/f1 system.posix_acl_access"  # mode 0600: unused
		echo "ea_set -f $d/dir /special system.posix_acl_access"
		echo "ea_set -f $d/default /special system.posix_acl_default"
		echo "ea_set -f $d/default /deep system.posix_acl_default"
		echo "ea_set -f $d/minimal /files/size-2047 system.posix_acl_access"
		echo "ea_set -r -f $d/odd-size /names/a system.posix_acl_access"
		echo "ea_set -r -f $d/bad-version /names/-dash system.posix_acl_access"
		echo "ea_set -r -f $d/bad-tag /links/orig system.posix_acl_access"
		echo "ea_set -r -f $d/header-only /files/size-2048 system.posix_acl_access"
		echo "ea_set -r -f $d/bad-version /names/.hidden system.posix_acl_default"
	} > "$cmds"
	debugfs -w -f "$cmds" "$img" > /dev/null 2>&1
}
mkfs ext2-1k 160M full -t ext2 -b 1024 -I 128
xattrs ext2-1k
flagged ext2-1k
acls ext2-1k
# A file whose pages mix 1 KiB data blocks and holes: mpage falls back to
# block_read_full_folio, which attaches buffer heads to the file's folios.
python3 -c "import sys; sys.stdout.buffer.write(b''.join(bytes([65 + i % 26]) * 1024 if i % 2 == 0 else bytes(1024) for i in range(64)))" > "$WORK/holes-1k"
debugfs -w -R "write $WORK/holes-1k holes-1k" "$IMGDIR/ext2-1k.img" > /dev/null 2>&1
mkfs ext2-2k 160M full -t ext2 -b 2048 -I 128
xattrs ext2-2k
acls ext2-2k
# Defaults other than mke2fs's in the superblock, for the option tests:
# remount-ro on errors, reserved-block owners, grpid and 16-bit ids.
tune2fs -e remount-ro -u 1000 -g 1001 -o bsdgroups,uid16 "$IMGDIR/ext2-2k.img" > /dev/null
mkfs ext2-4k 160M full -t ext2 -b 4096 -I 256
xattrs ext2-4k
flagged ext2-4k
mkfs ext2-rev0 160M rev0 -t ext2 -r 0 -b 1024
mkfs ext2-bigdir 64M bigdir -t ext2 -b 4096 -O ^dir_index
mkfs ext2-huge 64M huge -t ext2 -b 4096
mkfs ext3-journal 32M small -t ext3 -b 1024 -I 128
xattrs ext3-journal
# A root directory whose i_size (1) is smaller than one entry: C's readdir
# compares pos with i_size - EXT2_DIR_REC_LEN(1) in signed arithmetic and
# lists nothing; its lookups fail the page check (found by the boundary
# sweep: rust_ext2 read the page and failed readdir with EIO). "walk": the
# walks are compared, but not the write checks (every lookup in the root
# fails with EIO before EROFS could be said, on both drivers).
mkfs ext2-dirsize-1 8M small -t ext2 -b 1024 -I 128
debugfs -w -R "sif / size 1" "$IMGDIR/ext2-dirsize-1.img" > /dev/null 2>&1
echo "ext2-1k ok
ext2-2k ok
ext2-4k ok
ext2-rev0 ok
ext2-bigdir ok
ext2-huge ok
ext3-journal ok
ext2-dirsize-1 walk" >> "$IMGDIR/expected/ext2-images"
# Images both drivers refuse: ext4 features (INCOMPAT extents, 64bit,
# flex_bg), and 64 KiB blocks on a 4 KiB-page machine.
mkfs ext4-incompat 32M small -t ext4 -b 4096
mkfs ext2-64k 64M small -t ext2 -b 65536
# A rev 1 image whose inode size is the block size and whose
# s_inodes_per_group is 0xFFFFFFFD: "#blocks per group smaller than metadata
# size" must be computed without overflowing (itb_per_group + 3).
mkfs ext2-ipg-overflow 8M small -t ext2 -b 1024 -I 128
python3 - "$IMGDIR/ext2-ipg-overflow.img" <<'PY'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(1024 + 40); f.write(struct.pack("<I", 0xFFFFFFFD))  # s_inodes_per_group
    f.seek(1024 + 88); f.write(struct.pack("<H", 1024))        # s_inode_size
PY
# Zeroed primary superblocks: both drivers refuse them, and mount them with
# -o sb= of the backup in group 1 (23-ext2-options).
mkfs ext2-nosb-1k 16M small -t ext2 -b 1024 -I 128
mkfs ext2-nosb-4k 160M small -t ext2 -b 4096 -I 128
for n in 1k 4k; do
	dd if=/dev/zero of="$IMGDIR/ext2-nosb-$n.img" bs=1024 seek=1 count=1 conv=notrunc status=none
done
echo "ext4-incompat refuse
ext2-64k refuse
ext2-ipg-overflow refuse
ext2-nosb-1k refuse
ext2-nosb-4k refuse" >> "$IMGDIR/expected/ext2-images"
rm -rf "$WORK"/ext2-* "$WORK"/ext3-* "$WORK"/ext4-*

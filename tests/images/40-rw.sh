# Read-write image for the debug kernel's truncate test (tests/vm/25-ext2-rw.sh),
# which writes a copy of it: 1 KiB blocks, a sparse file with data in every
# indirect level, a dense file into the double-indirect blocks, and files
# that map an inode table block, a block past the end and another file's
# block; the block bitmap of group 0 does not mark the inode table.
mkdir -p "$WORK/rw"
rwput() { # FILE FIRST-BLOCK COUNT (1 KiB blocks of random bytes)
	head -c $(($3 * 1024)) /dev/urandom | dd of="$1" bs=1024 seek="$2" conv=notrunc status=none
}
rwput "$WORK/rw/big" 0 3
rwput "$WORK/rw/big" 10 4
rwput "$WORK/rw/big" 266 4
rwput "$WORK/rw/big" 529 2
rwput "$WORK/rw/big" 65802 4
rwput "$WORK/rw/big" 66067 3
truncate -s $((66320 * 1024 + 123)) "$WORK/rw/big"
rwput "$WORK/rw/mid" 0 300
for f in bad-sys bad-out bad-dup1 bad-dup2; do head -c 100 /dev/urandom > "$WORK/rw/$f"; done
mke2fs -q -F -t ext2 -I 128 -b 1024 -d "$WORK/rw" "$IMGDIR/rw.img" 16M
rwit=$(dumpe2fs "$IMGDIR/rw.img" 2> /dev/null | sed -n 's/.*Inode table at \([0-9]*\)-.*/\1/p' | head -1)
rwd1=$(debugfs -R "bmap bad-dup1 0" "$IMGDIR/rw.img" 2> /dev/null)
debugfs -w -f - "$IMGDIR/rw.img" > /dev/null 2>&1 <<-EOT
	sif bad-sys block[0] $rwit
	sif bad-out block[0] 100000
	sif bad-dup2 block[0] $rwd1
	freeb $rwit
EOT
# Empty images for the debug kernel's write test (tests/vm/26-ext2-rw-write.sh),
# one per block size, with the empty files it writes and the directories of
# fsstress's four processes (rust_ext2 does not make directories yet).
mkdir -p "$WORK/rww" "$WORK/rww/p0" "$WORK/rww/p1" "$WORK/rww/p2" "$WORK/rww/p3"
for f in fsx.buf fsx.dio w1 w2 w3 w4 fill; do : > "$WORK/rww/$f"; done
for bs in 1024 2048 4096; do
	mke2fs -q -F -t ext2 -I 128 -b "$bs" -d "$WORK/rww" "$IMGDIR/rww-$bs.img" 32M
done

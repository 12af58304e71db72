# Smoke image: a small tree on a 1k-block ext2, plus host-side checksums.
mkdir -p "$WORK/tree/dir"
printf 'hello from the host\n' > "$WORK/tree/hello.txt"
head -c 300000 /dev/urandom > "$WORK/tree/dir/random.bin"
mke2fs -q -F -t ext2 -b 1024 -d "$WORK/tree" "$IMGDIR/smoke.img" 4M
(cd "$WORK/tree" && find . -type f | sort | xargs sha256sum) > "$IMGDIR/expected/smoke.sha256"

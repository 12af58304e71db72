#!/bin/bash
# Build the benchmark image (4 KiB blocks) into $IMGDIR/bench.img:
#   big       1 GiB of seeded random data (QUICK: 64 MiB)
#   holes     1 GiB with 1 MiB of data every 8 MiB, holes between
#   tree      100,000 small files in nested directories (QUICK: 2,000)
#   bigdir    50,000 entries in one directory (QUICK: 1,000)
#   src       a copy of the kernel's fs/ and rust/ directories (QUICK: fs/ext2)
# and, for the namespace cases, $IMGDIR/srctar.img: a tar archive (the disk
# is the archive) of the pristine kernel source without drivers/, 61,869
# entries, 523 MiB, under src/ (TAR_QUICK, default QUICK: fs/, 2,452).
set -euo pipefail
. "$(dirname "$0")/../../scripts/env.sh"
quick=${QUICK:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
t=$work/tree
mkdir -p "$t"
python3 - "$t" "$quick" <<'PY'
import os, random, sys
root, quick = sys.argv[1], sys.argv[2] == "1"
rng = random.Random(0xBE4C)
big = (64 if quick else 1024) << 20
with open(os.path.join(root, "big"), "wb") as f:
    for _ in range(big >> 20):
        f.write(rng.randbytes(1 << 20))
with open(os.path.join(root, "holes"), "wb") as f:
    f.truncate(big)
    for off in range(0, big, 8 << 20):
        f.seek(off)
        f.write(rng.randbytes(1 << 20))
nfiles = 2000 if quick else 100000
for i in range(nfiles):
    d = os.path.join(root, "tree", "d%02d" % (i % 50), "e%03d" % (i // 50 % 40))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%06d" % i), "wb") as f:
        f.write(b"x" * (i % 300))
bd = os.path.join(root, "bigdir")
os.makedirs(bd)
for i in range(1000 if quick else 50000):
    open(os.path.join(bd, "entry-%06d" % i), "wb").close()
PY
mkdir -p "$t/src"
if [ "$quick" = 1 ]; then
	cp -a "$KTREE/fs/ext2" "$t/src/"
else
	cp -a "$KTREE/fs" "$KTREE/rust" "$t/src/"
fi
if [ "${TAR_QUICK-$quick}" = 1 ]; then
	tdirs=(fs)
else
	tdirs=($(cd "$PRISTINE" && ls -A | grep -vx drivers))
fi
# NEED_TAR=0: no case untars it.
if [ "${NEED_TAR:-1}" = 1 ]; then
	tar -cf "$IMGDIR/srctar.img" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
		-C "$PRISTINE" --transform 's,^,src/,' "${tdirs[@]}"
	# The archive's entries are the paths under tdirs (counted there, not by
	# listing the archive again).
	echo "mkbench: $IMGDIR/srctar.img ($(du -m "$IMGDIR/srctar.img" | cut -f1) MiB, $(cd "$PRISTINE" && find "${tdirs[@]}" | wc -l) entries)"
fi
size=$(( $(du -sm --apparent-size "$t" | cut -f1) * 13 / 10 + 256 ))M
mke2fs -q -F -t ext2 -b 4096 -N $(( $(find "$t" | wc -l) + 10000 )) -d "$t" "$IMGDIR/bench.img" "$size"
echo "mkbench: $IMGDIR/bench.img ($size, $(find "$t" | wc -l) entries)"

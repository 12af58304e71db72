#!/bin/bash
# Truncate of rust_ext2 (writes=1) against C ext2, in one boot of the built
# kernel (virtme-ng, the host's e2fsprogs): the same truncate sequence on two
# copies of one image, one per driver, for 1, 2 and 4 KiB blocks, revisions
# 0 and 1, and the `sync` mount option. The files are sparse and dense, with
# data across the direct/indirect/double/triple-indirect boundaries; each is
# cut down level by level (inside a leaf block, at a level's first block, to
# a byte inside a block, so that the rest of the block must read as zeros
# when the file grows again), grown again and emptied; append-only and
# immutable files must refuse; copies are left cut inside each level. After
# each step the content's checksum, size and i_blocks must be C's; after the
# unmount the block map of every file, the group descriptors and free ranges
# (dumpe2fs) and the raw inodes but their times must be identical, and
# e2fsck -fn clean. A hostile image (errors=continue) has files mapping an
# inode table block, a block past the end and a block of another file, and a
# block bitmap that does not mark the inode table: truncating them must log
# C's errors (ext2_error, same messages, same order) and leave the same
# bitmaps. Prints PASS/FAIL lines.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh
. tests/lib-pair.sh
[ -x "$CACHE/venv/bin/vng" ] || { echo "FAIL ext2-rw-truncate: virtme-ng missing (make setup)"; exit 0; }
w=$REPO/out/rw-truncate
rm -rf "$w"; mkdir -p "$w"
drives=() names=() opts=()
# Block B of a file: 64 bytes of a pattern that says which, the rest random.
put() { # FILE BS FIRST-BLOCK COUNT
	local f=$1 bs=$2 b
	for ((b = $3; b < $3 + $4; b++)); do
		{ printf '%-64s' "block $b of $(basename "$f")"; head -c $((bs - 64)) /dev/urandom; } |
			dd of="$f" bs="$bs" seek="$b" conv=notrunc status=none
	done
}
add() { # NAME MOUNT-OPTS BS MKE2FS-OPTS...
	local name=$1 mo=$2 bs=$3 img t p d i
	shift 3
	t=$w/$name.tree
	mkdir -p "$t"
	p=$((bs / 4)) d=12
	i=$((d + p)) dd=$((d + p + p * p))
	# big: sparse, data around each boundary and inside each level.
	put "$t/big" "$bs" 0 3
	put "$t/big" "$bs" $((d - 2)) 4
	put "$t/big" "$bs" $((i - 2)) 4
	put "$t/big" "$bs" $((i + p + 5)) 2
	put "$t/big" "$bs" $((dd - 2)) 4
	put "$t/big" "$bs" $((dd + p + 7)) 3
	truncate -s $(((dd + 2 * p + 10) * bs + 123)) "$t/big"
	# mid: dense, into the double indirect blocks for 1 KiB.
	put "$t/mid" "$bs" 0 300
	cp --sparse=always "$t/big" "$t/big2"; cp "$t/mid" "$t/mid2"; cp --sparse=always "$t/big" "$t/big3"
	head -c 5000 /dev/urandom > "$t/small"
	head -c 3000 /dev/urandom > "$t/imm"
	head -c 3000 /dev/urandom > "$t/app"
	case $name in bad-*)
		for f in bad-sys bad-out bad-dup1 bad-dup2; do head -c 100 /dev/urandom > "$t/$f"; done
	esac
	img=$w/$name.c.img
	mke2fs -q -F -t ext2 -I 128 -b "$bs" -d "$t" "$@" "$img" 16M > /dev/null 2>&1 || { echo "FAIL ext2-rw-truncate: mke2fs $*"; exit 0; }
	debugfs -w -f - "$img" > /dev/null 2>&1 <<-EOF
		sif imm flags 0x10
		sif app flags 0x20
	EOF
	case $name in bad-*)
		# bad-sys maps the inode table, bad-out a block past the end, bad-dup2
		# bad-dup1's block; the bitmap of group 0 loses the table's first bit.
		local it d1
		it=$(dumpe2fs "$img" 2> /dev/null | sed -n 's/.*Inode table at \([0-9]*\)-.*/\1/p' | head -1)
		d1=$(debugfs -R "bmap bad-dup1 0" "$img" 2> /dev/null)
		debugfs -w -f - "$img" > /dev/null 2>&1 <<-EOF
			sif bad-sys block[0] $it
			sif bad-out block[0] 100000
			sif bad-dup2 block[0] $d1
			freeb $it
		EOF
	esac
	cp "$img" "$w/$name.r.img"
	pair_drives "$img" "$w/$name.r.img"
	names+=("$name") opts+=("$mo")
}
# NAME:mount options:block size:mke2fs options, ':' for ' '
for c in 1k-r0:rw:1024:-r:0 2k-r1:rw:2048 4k-r1:rw:4096 1k-r1-sync:sync:1024 bad-1k:errors=continue:1024; do
	IFS=: read -r -a a <<< "$c"
	add "${a[@]}"
done
for i in "${!names[@]}"; do echo "${names[$i]} ${opts[$i]}"; done > "$w/names"
ko=$(find "$KBUILD_OUT/modinst" -name rust_ext2.ko | head -1)
[ -n "$ko" ] || { echo "FAIL ext2-rw-truncate: no rust_ext2.ko in $KBUILD_OUT/modinst"; exit 0; }
cat > "$w/inodes.py" <<'EOF'
# The raw 128-byte inodes of PATHs on DEV, from the device, in hex, with the
# access, change and modification times (bytes 8-19) masked.
import subprocess, sys
dev, paths = sys.argv[1], sys.argv[2:]
def debugfs(req):
    return subprocess.run(['debugfs', '-R', req, dev], capture_output=True, text=True).stdout
bs = int([l for l in debugfs('stats').splitlines() if l.startswith('Block size:')][0].split()[-1])
with open(dev, 'rb') as f:
    for p in paths:
        ino = debugfs('stat "%s"' % p).split()[1]
        loc = debugfs('imap <%s>' % ino).split('located at block ')[1].split()
        f.seek(int(loc[0].rstrip(',')) * bs + int(loc[2], 16))
        raw = bytearray(f.read(128))
        raw[8:20] = b'\0' * 12
        print(p, raw.hex())
EOF
cat > "$w/hash.py" <<'EOF'
# The checksum of FILE (block size BS): the whole file if it is small, else
# the blocks around the boundaries of the indirect levels and the last ones
# (reading gigabytes of holes would take minutes under TCG).
import hashlib, os, sys
path, bs = sys.argv[1], int(sys.argv[2])
p = bs // 4
size = os.path.getsize(path)
h = hashlib.sha256()
with open(path, 'rb') as f:
    if size <= 512 * bs:
        h.update(f.read())
    else:
        i, dd = 12 + p, 12 + p + p * p
        wins = [(0, 16), (i - 4, i + p + 10), (dd - 4, dd + p + 12), (size // bs - 3, size // bs + 1)]
        for a, b in wins:
            f.seek(max(a, 0) * bs)
            h.update(f.read(max(b - max(a, 0), 0) * bs))
print(h.hexdigest()[:16])
EOF
cat > "$w/guest.sh" <<'EOF'
# In the guest: disk i of the list is /dev/vd{a,b,...}: C copy, rust copy.
set -u
w=$1 ko=$2
mp=$(mktemp -d)
files="big mid small imm app big2 mid2 big3"
bad="bad-sys bad-out bad-dup1 bad-dup2"
st() {
	case $1 in
	bad-*) echo "$1: $(stat -c '%s %b' $mp/$1)" ;;
	*) echo "$1: $(stat -c '%s %b' $mp/$1) $(python3 $w/hash.py $mp/$1 $bs)" ;;
	esac
}
try() { "$@" 2> /dev/null; echo "$*: exit $?" | sed "s|$mp/||g"; }
cut_to() { # FILE SIZE...
	local f=$1
	shift
	for sz in "$@"; do try truncate -s "$sz" $mp/$f; st $f; done
}
run() { # FSTYPE DEV MOUNT-OPTS
	local t=$1 d=$2 o=$3 bs p i dd
	bs=$(dumpe2fs -h "$d" 2>/dev/null | sed -n 's/^Block size: *//p')
	p=$((bs / 4)) i=$((12 + bs / 4))
	dd=$((i + p * p))
	mount -t "$t" -o "$o" "$d" $mp || { echo "mount: exit $?"; return; }
	for f in $files; do st $f; done
	cut_to big $(((dd + p + 8) * bs + 100)) $(((dd + 1) * bs + 7)) $((dd * bs)) \
		$(((i + p + 6) * bs + 1)) $((i * bs + 5)) $((15 * bs - 1)) $((12 * bs + 1)) \
		$((11 * bs + 3)) $((20 * bs + 17)) $((2 * bs + 1)) 0
	cut_to mid $((200 * bs)) $((100 * bs + 9)) $((12 * bs)) $((bs + bs / 2)) $((5 * bs)) 0
	cut_to small 4097 10 8000 0
	cut_to imm 10
	cut_to app 10
	cut_to big2 $(((dd + p + 8) * bs + 100))
	cut_to big3 $(((i + p + 6) * bs + 1))
	cut_to mid2 $((100 * bs + 9))
	local all=$files
	if [ -e $mp/bad-sys ]; then
		all="$files $bad"
		for f in $bad; do cut_to $f 0; done
	fi
	umount $mp
	echo "== on disk"
	python3 $w/inodes.py "$d" $all
	pair_guest_disk "$d" $all
}
insmod "$ko" writes=1 || exit 1
. "$w/lib-pair.sh"
pair_guest_runs
echo @@DONE
EOF
cp tests/lib-pair.sh "$w/"
pair_boot ext2-rw-truncate "$w" "$ko" || exit 0
while read -r name _; do
	c=$w/$name.c.out
	if ! pair_same ext2-rw-truncate "$w" "$name"; then
		:
	elif [ "${name#bad-}" = "$name" ] && ! grep -qx 'e2fsck -fn: exit 0' "$c"; then
		echo "FAIL ext2-rw-truncate-$name: e2fsck not clean on both"
	else
		echo "PASS ext2-rw-truncate-$name ($(grep -c ': exit 0$' "$c") truncates made, $(grep -c ': exit [1-9]' "$c") refused, $(grep -c '^[^ ]* [0-9a-f]\{256\}$' "$c") inodes identical on disk, block maps and bitmaps identical, $(grep -c '^error: ' "$c") errors as C's, $(grep '^e2fsck' "$c"))"
	fi
done < "$w/names"
pair_splats ext2-rw-truncate "$w"

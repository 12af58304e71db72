# timeout: 600
# kernel: base
# The disk reads of cold file reads, rust_ext2 against C ext2: for every
# image of expected/ext2-images that both mount, each regular file over
# 8 KiB (the ones mapped past the first blocks) is read with cold caches
# (drop_caches, then read) on a C ext2 mount and on a rust_ext2 mount,
# counting the reads the disk completed (/sys/block/*/stat), the median of
# three reads (merging in the block layer depends on timing: C ext2 itself
# once took 9 reads for a file it reads with 11 otherwise).
# The counts must be the same file by file (within 2 for files over 1 MiB,
# whose count C itself varies by 2 from boot to boot): the drivers must map
# the same runs and mark the same boundaries (set_buffer_boundary at the end of the
# direct and of each indirect block, after which the mpage reader submits
# its bio so that the indirect block read joins it).
# The work is bounded by design, not by the file sizes: a file is read in
# windows around the places where its mapping changes level, not whole
# (reading a sparse file's first 256 MiB of holes cold took 18-20 s under
# TCG): from the start to two indirect blocks into the double-indirect range
# (at least 4 MiB), from one indirect block before the triple-indirect range
# to two into it, and the last MiB. At most 25 MiB per read (4 KiB blocks).
. /tests/lib.sh
modprobe rust_ext2
mkdir -p /mnt/io
# windows_for BLOCKSIZE: in 4 KiB pages, W1 = the end of the first window
# (two indirect blocks into the double-indirect range, at least 4 MiB), T =
# the first page of the triple-indirect range, A = pages an indirect block maps.
windows_for() {
	apb=$(($1 / 4))
	A=$((apb * $1 / 4096))
	W1=$(((12 + 3 * apb) * $1 / 4096))
	[ $W1 -ge 1024 ] || W1=1024
	T=$(((12 + apb + apb * apb) * $1 / 4096))
}
# read_windows FILE SIZE: the windows of the comment above, each clipped to the file.
read_windows() {
	local pages=$((($2 + 4095) / 4096))
	dd if="$1" of=/dev/null bs=4096 count=$W1 2>/dev/null
	[ $pages -gt $((T - A)) ] &&
		dd if="$1" of=/dev/null bs=4096 skip=$((T - A)) count=$((3 * A)) 2>/dev/null
	[ $pages -gt $W1 ] &&
		dd if="$1" of=/dev/null bs=4096 skip=$((pages > 256 ? pages - 256 : 0)) 2>/dev/null
	return 0
}
count() { # DRIVER DEV: "PATH READS" for each file
	local dev=$2 stat f a b k
	stat=/sys/block/${dev#/dev/}/stat
	mount -t "$1" -o ro "$dev" /mnt/io || return 1
	find /mnt/io -xdev -type f -size +8k | sort > /tmp/io.files
	windows_for "$(stat -f -c %S /mnt/io)"
	while read -r f; do
		size=$(stat -c %s "$f")
		for k in 1 2 3; do
			sync; echo 3 > /proc/sys/vm/drop_caches
			a=$(awk '{ print $1 }' "$stat")
			read_windows "$f" "$size"
			b=$(awk '{ print $1 }' "$stat")
			echo $((b - a))
		done | sort -n | sed -n 2p > /tmp/io.median
		echo "${f#/mnt/io} $(cat /tmp/io.median) $size"
	done < /tmp/io.files
	umount /mnt/io
}
bad=0
while read -r name want; do
	[ "$want" = refuse ] && continue
	dev=$(disk "$name")
	count ext2 "$dev" > /tmp/c.io || { echo "$name: C ext2 failed to mount"; bad=1; continue; }
	count rust_ext2 "$dev" > /tmp/r.io || { echo "$name: rust_ext2 failed to mount"; bad=1; continue; }
	# "PATH C-READS RUST-READS" for the files whose counts differ too much.
	paste -d' ' /tmp/c.io /tmp/r.io | awk '$1 != $4 { print $1, "listed differently"; next }
		{ d = $2 - $5; if (d < 0) d = -d }
		d > ($3 > 1048576 ? 2 : 0) { print $1, $2, $5 }' > /tmp/diff
	if [ -s /tmp/diff ]; then
		echo "$name: DIFFERENT reads (path, C ext2, rust_ext2):"
		head -40 /tmp/diff
		bad=1
	else
		echo "$name: same reads (path C rust):" $(paste -d' ' /tmp/c.io /tmp/r.io | awk '{ printf "%s %s %s, ", $1, $2, $5 }')
	fi
done < /expected/ext2-images
[ $bad = 0 ] || fail "rust_ext2 reads the disk differently from C ext2"

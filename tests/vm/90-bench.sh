# timeout: 7200
# make bench: each case, REPS times, alternating which driver goes first;
# cold = after mount + drop_caches, warm = the same again from the page cache.
# Prints "@@BENCH CASE DRIVER cold|warm SECONDS CHECK" lines for the host.
. /tests/lib.sh
modprobe rust_ext2
dev=$(disk bench)
reps=$(cat /expected/bench-reps 2>/dev/null || echo 5)
mkdir -p /mnt/b
cases="seq-read holes-read rand-read find-stat getdents tar"
cmd() { # CASE
	case "$1" in
	seq-read) benchtool seq /mnt/b/big ;;
	holes-read) benchtool seq /mnt/b/holes ;;
	rand-read) benchtool rand /mnt/b/big 0x5eed 2000 ;;
	find-stat) benchtool statwalk /mnt/b/tree ;;
	getdents) benchtool getdents /mnt/b/bigdir ;;
	tar) benchtool run "tar -cf - -C /mnt/b src | cat > /dev/null" ;;
	esac
}
r=1
while [ $r -le "$reps" ]; do
	if [ $((r % 2)) = 1 ]; then order="ext2 rust_ext2"; else order="rust_ext2 ext2"; fi
	for c in $cases; do
		for drv in $order; do
			mount -t $drv -o ro "$dev" /mnt/b
			sync; echo 3 > /proc/sys/vm/drop_caches
			set -- $(cmd $c)
			echo "@@BENCH $c $drv cold $2 $4:$6" > /dev/console
			set -- $(cmd $c)
			echo "@@BENCH $c $drv warm $2 $4:$6" > /dev/console
			umount /mnt/b
		done
	done
	r=$((r + 1))
done

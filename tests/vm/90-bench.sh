# timeout: 7200
# kernel: bench
# make bench: each case, REPS times, alternating which driver goes first;
# cold = after mount + drop_caches (and empty slabs shrunk), warm = the same again from the page cache
# (the short warm cases, random reads and getdents, repeated WARM_LOOPS times
# in one timing so that they last long enough to measure).
# Prints "@@BENCH CASE DRIVER cold|warm SECONDS CHECK" lines for the host.
. /tests/lib.sh
modprobe rust_ext2 writes=1
dev=$(disk bench)
reps=$(cat /expected/bench-reps 2>/dev/null || echo 5)
mkdir -p /mnt/b
cases=$(cat /expected/bench-cases 2>/dev/null || true)
[ -n "$cases" ] || cases="seq-read holes-read rand-read find-stat getdents tar seq-write seq-write-fsync overwrite dio-write truncate small-files untar rm-rf empty-files renames"
# The write cases (wcmd below): a fresh file system each run; the namespace
# cases among them need a larger one.
ns_case() {
	case $1 in untar|rm-rf|empty-files|renames) return 0 ;; esac
	return 1
}
write_case() {
	ns_case "$1" && return 0
	case $1 in *-write|*-write-fsync|overwrite|truncate|small-files) return 0 ;; esac
	return 1
}
# The write cases: a fresh file system each run (mke2fs, 4 KiB blocks, on a
# loop device over tmpfs, so that the disk's speed does not show), with the
# empty files they write, mounted read-write with the default options
# (e2fsprogs' mke2fs: busybox's has no -d); MiB written per run, and files
# created, written and unlinked per run of small-files.
# The namespace cases: the source tree of srctar.img untarred (then sync),
# and removed with rm -rf (then sync); NEMPTY empty files created in
# directories of 1,000 and removed with them; NREN files renamed across and
# within directories of 1,000, 3 rounds (benchtool renames).
WMIB=256 NFILES=10000 NEMPTY=100000 NREN=10000
[ -n "$(cat /expected/bench-quick 2>/dev/null)" ] && WMIB=32 NFILES=1000 NEMPTY=5000 NREN=1000
# Only there for the cases that untar it (scripts/bench.sh).
srctar=$(disk srctar) || srctar=
# The write cases' file system: WMIB * 2 + 64 MiB; for the namespace cases,
# 150,000 inodes and 1 GiB, or room for the source tree twice for those that
# untar it.
wsize() {
	if [ "$1" = untar ] || [ "$1" = rm-rf ]; then
		echo "-N 150000 $(( $(blockdev --getsize64 "$srctar") * 2 / 1048576 + 256 ))M"
	elif ns_case "$1"; then
		echo "-N 150000 1024M"
	else
		echo "$((WMIB * 2 + 64))M"
	fi
}
wsetup() { # DRV CASE: /mnt/w, with f (empty) and g (WMIB/4 MiB, for overwrite)
	mkdir -p /tmp/wtree /mnt/w
	: > /tmp/wtree/f; : > /tmp/wtree/g
	rm -f /tmp/w.img
	/usr/bin/mke2fs -q -F -t ext2 -b 4096 -d /tmp/wtree /tmp/w.img $(wsize "$2")
	losetup /dev/loop6 /tmp/w.img
	mount -t "$1" /dev/loop6 /mnt/w
}
wdone() {
	umount /mnt/w
	losetup -d /dev/loop6
	rm -f /tmp/w.img
}
wcmd() { # CASE: the timed part (its set-up before it)
	case "$1" in
	seq-write) benchtool write /mnt/w/f $WMIB s ;;
	seq-write-fsync) benchtool write /mnt/w/f $WMIB f ;;
	dio-write) benchtool write /mnt/w/f $WMIB d ;;
	overwrite)
		benchtool write /mnt/w/g $((WMIB / 4)) f > /dev/null
		drop_all
		benchtool overwrite /mnt/w/g 0x5eed 4000 ;;
	truncate)
		benchtool write /mnt/w/f $WMIB f > /dev/null
		benchtool run "truncate -s 0 /mnt/w/f && sync" ;;
	small-files) benchtool files /mnt/w $NFILES 4000 ;;
	untar) benchtool run "tar -xf $srctar -C /mnt/w && sync" ;;
	rm-rf)
		tar -xf "$srctar" -C /mnt/w
		drop_all
		benchtool run "rm -rf /mnt/w/src && sync" ;;
	empty-files) benchtool empty /mnt/w $NEMPTY 1000 ;;
	renames) benchtool renames /mnt/w $NREN 3 ;;
	esac
}
# reads completed and sectors read on the image's disk so far
disk_reads() { awk '{ print $1, $3 }' "/sys/block/${dev#/dev/}/stat"; }
WARM_LOOPS=50
# Before a cold run: the page, dentry and inode caches dropped, and empty slabs
# given back to the page allocator, so that no run finds the dentries and
# inodes the run before it freed ready to reuse (the second run of a rep was
# 4 % faster in find-stat cold without it).
drop_all() {
	sync; echo 3 > /proc/sys/vm/drop_caches
	for f in /sys/kernel/slab/*/shrink; do echo 1 > "$f"; done 2> /dev/null
}
cmd() { # CASE cold|warm
	local loops=1
	[ "$2" = warm ] && loops=$WARM_LOOPS
	case "$1" in
	seq-read) benchtool seq /mnt/b/big ;;
	holes-read) benchtool seq /mnt/b/holes ;;
	rand-read) benchtool rand /mnt/b/big 0x5eed 2000 $loops ;;
	find-stat) benchtool statwalk /mnt/b/tree ;;
	getdents) benchtool getdents /mnt/b/bigdir $loops ;;
	tar) benchtool run "tar -cf - -C /mnt/b src | cat > /dev/null" ;;
	esac
}
r=1
while [ $r -le "$reps" ]; do
	if [ $((r % 2)) = 1 ]; then order="ext2 rust_ext2"; else order="rust_ext2 ext2"; fi
	for c in $cases; do
		for drv in $order; do
			if write_case $c; then
				wsetup $drv $c
				drop_all
				set -- $(wcmd $c)
				echo "@@BENCH $c $drv cold $2 $4:$6" > /dev/console
				echo "@@IO $c $drv 0 0 $8 ${10}" > /dev/console
				wdone
				continue
			fi
			mount -t $drv -o ro "$dev" /mnt/b
			drop_all
			set -- $(disk_reads)
			ios=$1 sectors=$2
			set -- $(cmd $c cold)
			echo "@@BENCH $c $drv cold $2 $4:$6" > /dev/console
			cpu=$8 waits=${10}
			set -- $(disk_reads)
			echo "@@IO $c $drv $(($1 - ios)) $(($2 - sectors)) $cpu $waits" > /dev/console
			set -- $(cmd $c warm)
			echo "@@BENCH $c $drv warm $2 $4:$6" > /dev/console
			umount /mnt/b
		done
	done
	r=$((r + 1))
done

# make bench PERF="CASE...": a cpu-clock profile of each named case, warm (or
# cold with PERF_MODE=cold: caches dropped before each of the three runs), for
# both drivers (perf from the host, symbols from /proc/kallsyms).
perf_cases=$(cat /expected/bench-perf 2>/dev/null || true)
perf_mode=$(cat /expected/bench-perf-mode 2>/dev/null || echo warm)
read -r perf_runs perf_limit perf_graph < /expected/bench-perf-opts 2>/dev/null || true
perf_runs=${perf_runs:-3}
perf_limit=${perf_limit:-0.7}
if [ -n "$perf_cases" ] && command -v perf > /dev/null; then
	for c in $perf_cases; do
		for drv in ext2 rust_ext2; do
			write=
			write_case $c && write=1
			[ -n "$write" ] || { mount -t $drv -o ro "$dev" /mnt/b; cmd $c cold > /dev/null; }
			# perf in a session of its own: its signals must not reach this script.
			# PERF_GRAPH=SYMBOL: with call chains, to show SYMBOL's callers.
			setsid perf record -q -e cpu-clock -F 4000 -a ${perf_graph:+-g} -o /tmp/perf.data -- sleep 3600 \
				> /tmp/perf.log 2>&1 &
			sleep 1
			for k in $(seq "$perf_runs"); do
				if [ -n "$write" ]; then
					# A fresh file system each run, as timed.
					wsetup $drv $c; wcmd $c > /dev/null; wdone
					continue
				fi
				[ "$perf_mode" = cold ] && drop_all
				cmd $c $perf_mode > /dev/null
			done
			kill -INT $(pidof perf)
			w=0
			while pidof perf > /dev/null && [ $w -lt 60 ]; do sleep 1; w=$((w + 1)); done
			sed "s/^/@@PERF $c $drv record: /" /tmp/perf.log > /dev/console
			[ -n "$write" ] || umount /mnt/b
			# The timed processes (rm-rf's set-up untars: its profile is rm's).
			comms=benchtool,tar,cat,truncate,sync
			[ "$c" = rm-rf ] && comms=rm,sync
			perf report -i /tmp/perf.data --stdio -n --comms $comms --sort sym \
				--percent-limit "$perf_limit" 2>&1 | grep -v '^#' | grep -v '^$' |
				head -400 | sed "s/^/@@PERF $c $drv /" > /dev/console
			[ -z "$perf_graph" ] || perf report -i /tmp/perf.data --stdio -n --no-children \
				--comms $comms --symbols "$perf_graph" -G 2>&1 |
				grep -v '^#' | grep -v '^$' | head -300 | sed "s/^/@@PERF $c $drv graph /" > /dev/console
			# Where all the samples went (idle is the time spent waiting).
			perf report -i /tmp/perf.data --stdio -n --sort comm --percent-limit 1 2>&1 |
				grep -v '^#' | grep -v '^$' | head -10 |
				sed "s/^/@@PERF $c $drv comm /" > /dev/console
		done
	done
fi

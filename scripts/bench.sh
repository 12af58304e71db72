#!/bin/bash
# make bench [QUICK=1] [REPS=5] [CASES="find-stat tar"]: one boot of the base kernel; for each case
# (reads: seq-read holes-read rand-read find-stat getdents tar; writes, on a
# fresh file system each run: seq-write seq-write-fsync overwrite dio-write
# truncate small-files; namespace: untar rm-rf empty-files renames)
# (tests/vm/90-bench.sh) C ext2 and rust_ext2 on the same 4 KiB-block image,
# alternating; report median/min/max and the rust/C ratio of the medians as a
# Markdown table in out/bench.md (and on stdout).
set -uo pipefail
. "$(dirname "$0")/env.sh"
out=$REPO/out/bench
export IMGDIR=$out/images
rm -rf "$out"; mkdir -p "$IMGDIR/expected"
"$REPO/scripts/build-kernel.sh" > "$out/build.log" 2>&1 || { tail -20 "$out/build.log"; exit 1; }
# Only write and namespace cases asked for: they make their own file
# systems, the read image can be the small one.
img_quick=${QUICK:-}
if [ -n "${CASES:-}" ] && ! tr ' ' '\n' <<< "$CASES" | grep -qvE '^(seq-write|seq-write-fsync|overwrite|dio-write|truncate|small-files|untar|rm-rf|empty-files|renames|)$'; then
	img_quick=1
fi
# The namespace cases' source tree is small only with QUICK=1, and made only
# for the cases that untar it.
need_tar=1
if [ -n "${CASES:-}" ] && ! tr ' ' '\n' <<< "$CASES" | grep -qxE 'untar|rm-rf'; then
	need_tar=0
fi
QUICK=$img_quick TAR_QUICK=${QUICK:-} NEED_TAR=$need_tar "$REPO/tests/bench/mkbench.sh" || exit 1
reps=${REPS:-5}
[ "${QUICK:-}" = 1 ] && reps=${REPS:-2}
echo "$reps" > "$IMGDIR/expected/bench-reps"
# QUICK=1: the write cases write 32 MiB a run instead of 256.
echo "${QUICK:-}" > "$IMGDIR/expected/bench-quick"
# PERF="getdents tar ...": also profile those cases (warm) with perf in the VM.
# PERF_MODE=cold: profile cold runs (caches dropped before each) instead.
echo "${PERF:-}" > "$IMGDIR/expected/bench-perf"
# CASES="find-stat tar": only those cases.
echo "${CASES:-}" > "$IMGDIR/expected/bench-cases"
echo "${PERF_MODE:-warm}" > "$IMGDIR/expected/bench-perf-mode"
# PERF_RUNS=10: runs per profile (3); PERF_LIMIT=0.1: smallest symbol share shown (0.7%);
# PERF_GRAPH=SYMBOL: call chains recorded, and SYMBOL's callers shown.
echo "${PERF_RUNS:-3} ${PERF_LIMIT:-0.7} ${PERF_GRAPH:-}" > "$IMGDIR/expected/bench-perf-opts"
[ -n "${PERF:-}" ] && export EXTRA_TOOLS=perf
# One vCPU: the other host core is left to QEMU's I/O thread (less noise).
# 4 GiB: the namespace cases keep a file system of 1 GiB in tmpfs.
MEM=4G SMP=1 TESTS="90-bench" BOOT_TIMEOUT=14400 "$REPO/scripts/run-tests.sh" > "$out/result.txt"
rc=$?
console=$REPO/out/console.log
grep '^@@BENCH ' "$console" > "$out/raw.txt"
grep '^@@IO ' "$console" > "$out/io.txt"
ko=$KBUILD_OUT/samples/rust/rust_ext2/rust_ext2.ko
size_of() { llvm-size-$LLVM_VER "$@" 2>/dev/null | awk 'NR > 1 { t += $1 } END { print t }'; }
python3 - "$out/raw.txt" "$out/io.txt" "$(size_of "$ko")" "$(size_of "$KBUILD_OUT"/fs/ext2/*.o)" "${QUICK:-}" <<'PY' > "$REPO/out/bench.md"
import statistics, sys
raw, io, rust_text, c_text, quick = sys.argv[1:6]
res = {}
check = {}
for line in open(raw):
    _, case, drv, mode, secs, chk = line.split()
    res.setdefault((case, mode), {}).setdefault(drv, []).append(float(secs))
    check.setdefault((case, mode, drv), set()).add(chk.split(":")[1])
# Paired: rep k runs both drivers back to back, C ext2 first in odd reps and
# rust_ext2 first in even ones (tests/vm/90-bench.sh). The run that comes
# second in a rep can be faster for reasons of its own (what the first left
# in the allocators), so the ratios of the reps where C ran first and of those
# where rust_ext2 did are averaged (geometric means) separately and then
# together: the order's effect cancels, however many reps of each kind. The
# "order" column is that effect: how much faster the second run of a rep was.
import math
def paired(c, r):
    logs = [[], []]
    for k, (a, b) in enumerate(zip(c, r)):
        logs[k % 2].append(math.log(b / a))
    if not logs[0] or not logs[1]:
        return None, None
    c_first, r_first = (sum(v) / len(v) for v in logs)
    return math.exp((c_first + r_first) / 2), math.exp((r_first - c_first) / 2)
opt = lambda x: "-" if x is None else "%.3f" % x
print("| case | C ext2 median (min-max) s | rust_ext2 median (min-max) s | rust/C (medians) | rust/C (minima) | rust/C (paired, order-balanced) | order: first/second run |")
print("|---|---|---|---|---|---|---|")
order = ["seq-read", "holes-read", "rand-read", "find-stat", "getdents", "tar",
         "seq-write", "seq-write-fsync", "overwrite", "dio-write", "truncate", "small-files",
         "untar", "rm-rf", "empty-files", "renames"]
for case in order:
    for mode in ("cold", "warm"):
        d = res.get((case, mode))
        if not d or "ext2" not in d or "rust_ext2" not in d:
            continue
        c, r = d["ext2"], d["rust_ext2"]
        same = check[(case, mode, "ext2")] == check[(case, mode, "rust_ext2")]
        fmt = lambda v: "%.3f (%.3f-%.3f)" % (statistics.median(v), min(v), max(v))
        ratio = statistics.median(r) / statistics.median(c)
        pr, eff = paired(c, r)
        print("| %s %s | %s | %s | %.3f%s | %.3f | %s | %s |" % (
            case, mode, fmt(c), fmt(r), ratio, "" if same else " (DATA DIFFERS)",
            min(r) / min(c), opt(pr), opt(eff)))
print()
# The disk reads of the cold runs (the same for every rep of a driver, or shown
# as the range), their CPU time (user + system, median) and how often the
# process slept (voluntary context switches, median): what is not CPU time is
# waiting, mostly for the disk.
ios = {}
for line in open(io):
    _, case, drv, n, sectors, cpu, waits = line.split()
    ios.setdefault((case, drv), []).append((int(n), int(sectors), float(cpu), int(waits)))
if ios:
    print("| cold case | C ext2 reads (KiB) | rust_ext2 reads (KiB) | C ext2 CPU s | rust_ext2 CPU s | C ext2 sleeps | rust_ext2 sleeps |")
    print("|---|---|---|---|---|---|---|")
    rng = lambda v: "%d" % v[0] if min(v) == max(v) else "%d-%d" % (min(v), max(v))
    cell = lambda v: "%s (%s)" % (rng([x[0] for x in v]), rng([x[1] // 2 for x in v])) if v else "-"
    cpu = lambda v: "%.3f" % statistics.median([x[2] for x in v]) if v else "-"
    waits = lambda v: "%d" % statistics.median([x[3] for x in v]) if v else "-"
    for case in order:
        c, r = ios.get((case, "ext2"), []), ios.get((case, "rust_ext2"), [])
        if c or r:
            print("| %s | %s | %s | %s | %s | %s | %s |" % (case, cell(c), cell(r), cpu(c), cpu(r),
                                                           waits(c), waits(r)))
    print()
print("Text size: rust_ext2.ko %s bytes; C ext2 (built in, fs/ext2/*.o) %s bytes.%s" % (
    rust_text, c_text, " QUICK run: small data set, not representative." if quick == "1" else ""))
PY
if grep -q '^@@PERF ' "$console"; then
	{
		echo
		echo "Profiles (perf record -e cpu-clock, ${PERF_MODE:-warm}, samples of the benchmark processes, symbols with >= ${PERF_LIMIT:-0.7}% of ${PERF_RUNS:-3} runs; percent of all samples, then sample count):"
		echo '```'
		grep '^@@PERF ' "$console" | sed 's/^@@PERF //'
		echo '```'
	} >> "$REPO/out/bench.md"
fi
cat "$REPO/out/bench.md"
[ "$rc" = 0 ] || { echo "bench: the VM run failed; see $out/result.txt"; cat "$out/result.txt"; exit 1; }
grep -q "DATA DIFFERS" "$REPO/out/bench.md" && { echo "bench: the drivers read different data"; exit 1; }
exit 0

#!/usr/bin/env python3
# summary.py OUTDIR BASELINE "TESTS" WALL_SECONDS: print what the fstests run
# gave (ran / passed / failed / not run, with reasons), what changed against
# the baseline (C ext2's verdicts on this kernel), and the read-back checks.
# One PASS/FAIL line per test: PASS when its verdict is the baseline's and
# every read-back check of it was identical (a test that ran must have had
# one, unless READBACK=0 or fstests checks no file system for it: no
# _require_test or _require_scratch in its source, FSTESTS_TREE). Exit 1 on
# any FAIL, 2 on a test with no verdict.
import os
import re
import sys

out, baseline_file, tests, wall = sys.argv[1], sys.argv[2], sys.argv[3].split(), int(sys.argv[4])
need_readback = os.environ.get("READBACK", "1") != "0"
# The name of the run in its PASS/FAIL lines ("xfstests-rust" for RUST=1).
label = os.environ.get("SUMMARY_LABEL", "xfstests")
verdicts = {}
with open(os.path.join(out, "verdicts")) as f:
    for line in f:
        parts = line.rstrip("\n").split(" ", 3)
        if len(parts) >= 3:
            verdicts[parts[0]] = (parts[1], int(parts[2] or 0), parts[3] if len(parts) > 3 else "")
baseline = {}
if os.path.exists(baseline_file):
    with open(baseline_file) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                parts = line.split(None, 2)
                baseline[parts[0]] = parts[1]
readback = {}
try:
    with open(os.path.join(out, "readback.log")) as f:
        for line in f:
            t = line.split()[0]
            n, bad = readback.get(t, (0, 0))
            readback[t] = (n + 1, bad + ("DIFFERS" in line))
except OSError:
    pass


def checks_a_fs(test):
    """Whether fstests checks a file system after `test` (it marks require_test or
    require_scratch); without the source, assume it does."""
    tree = os.environ.get("FSTESTS_TREE")
    try:
        src = open(os.path.join(tree, "tests", test)).read() if tree else None
    except OSError:
        src = None
    return src is None or re.search(r"\b_require_(test|scratch)\b(?!_)", src) is not None


count = {"pass": 0, "fail": 0, "notrun": 0}
changed, missing, total = [], [], 0
for t in tests:
    if t not in verdicts:
        missing.append(t)
        continue
    v, secs, reason = verdicts[t]
    count[v] = count.get(v, 0) + 1
    total += secs
    want = baseline.get(t, "pass")
    n, bad = readback.get(t, (0, 0))
    unchecked = not n and v != "notrun" and not checks_a_fs(t)
    rb = f"read-back {n - bad}/{n} identical" if n else "no read-back" + (
        " (fstests checks no file system)" if unchecked else "")
    line = f"{t:14} {v:7} {secs:4}s  {rb}"
    if v != "pass":
        line += f"  {reason}"
    if v != want or bad or (need_readback and v != "notrun" and not n and not unchecked):
        line += f"  [baseline: {want}]"
        changed.append(t)
    print(("FAIL" if t in changed else "PASS") + f" {label}:" + line)
ran = count["pass"] + count["fail"]
print(f"{label}: {ran} ran, {count['pass']} passed, {count['fail']} failed, "
      f"{count['notrun']} not run, {len(missing)} without a verdict; "
      f"{sum(n for n, _ in readback.values())} read-back checks, "
      f"{sum(b for _, b in readback.values())} differences; "
      f"test time {total} s, wall {wall} s")
if changed:
    print(f"{label}: {len(changed)} differ from baseline " + os.path.basename(baseline_file)
          + " or from C ext2 in the read-back: " + " ".join(changed))
for t in missing[:20]:
    print(f"FAIL {label}:{t:14} no verdict")
if missing:
    print(f"{label}: {len(missing)} without a verdict (not run yet, or the VM died: see {out}): "
          + " ".join(missing[:20]) + (" ..." if len(missing) > 20 else ""))
sys.exit(1 if changed else 2 if missing else 0)

#!/usr/bin/env python3
"""Print one extended regex per error message of the rust_ext2 sources.

usage: checks.py FILE.rs...

Each mount_err!/pr_err!/pr_warn! format string, and each directory check
kind of dir.rs, becomes a regex (format arguments match anything) that the
hostile-image test looks for in the kernel log.
"""
import re
import sys

out = set()
for path in sys.argv[1:]:
    src = open(path).read()
    lits = re.findall(r'(?:mount_err|pr_err|pr_warn)!\(\s*"((?:[^"\\]|\\.)*)"', src)
    lits += re.findall(r'Some\("((?:[^"\\]|\\.)*)"\)', src) if path.endswith("dir.rs") else []
    for lit in lits:
        lit = lit.replace("\\n", "").replace("rust_ext2: error: ", "").replace("rust_ext2: ", "")
        parts = re.split(r"\{[^}]*\}", lit)
        rx = ".*".join(re.sub(r"([.\[\]()*+?{}|^$\\])", r"\\\1", p) for p in parts).strip()
        if rx and rx != ".*":
            out.add(rx)
for rx in sorted(out):
    print(rx)

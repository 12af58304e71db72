#!/usr/bin/env python3
"""Make a set of mutated images for the hostile-image tests.

usage: [FUZZ_BOUNDARY=N|all] fuzzgen.py COUNT SEED0 CONTAINER LIST BASE.img [BASE.img ...]

Image i is mutate(BASE[i % len(BASE)], SEED0 + i), written into slot i of
CONTAINER (slots of SLOT bytes, sparse), and described by one line of LIST:
"i seed base size description". The first images apply each targeted
corruption of mutate.py to each base in turn, so that a set of at least
len(BASE) * mutate.TARGETED_COUNT images has every one of them; the rest are
left to the seed. The VM reads the first `size` bytes of slot i
back into a loop device.

After them come the boundary-value images of boundary.py: all of its cases
for every base with FUZZ_BOUNDARY=all, or a fixed slice of N of them (the
same N cases on every run, spread over the bases) with FUZZ_BOUNDARY=N.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import boundary  # noqa: E402
import mutate  # noqa: E402
import random  # noqa: E402

SLOT = 4 << 20
count, seed0, container, listfile = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
bases = [(os.path.basename(b)[:-4], open(b, "rb").read()) for b in sys.argv[5:]]
# Boundary-value cases: (base name, base data, case index, case).
want = os.environ.get("FUZZ_BOUNDARY", "0")
sweep = []
for name, data in bases:
    cs = list(enumerate(boundary.cases(data)))
    if want != "all":
        per = -(-int(want) // len(bases)) if bases else 0
        cs = sorted(random.Random("boundary-" + name).sample(cs, min(per, len(cs))))
    sweep += [(name, data, k, case) for k, case in cs]
if want != "all":
    sweep = sweep[:int(want)]


def put(c, i, img):
    for off in range(0, len(img), 4096):
        chunk = img[off:off + 4096]
        if chunk.count(0) != len(chunk):
            c.seek(i * SLOT + off)
            c.write(chunk)


with open(container, "wb") as c, open(listfile, "w") as lst:
    for i in range(count):
        name, data = bases[i % len(bases)]
        assert len(data) <= SLOT
        k = i // len(bases)
        target = k if k < mutate.TARGETED_COUNT else None
        img, what = mutate.mutate(data, seed0 + i, target)
        put(c, i, img)
        lst.write("%d %d %s %d %s\n" % (i, seed0 + i, name, len(img), what))
    for j, (name, data, k, case) in enumerate(sweep):
        i = count + j
        img, what = boundary.apply(data, case)
        put(c, i, img)
        # The "seed" of a boundary image is its case index (boundary.py BASE OUT INDEX).
        lst.write("%d %d %s %d %s#%d\n" % (i, k, name, len(img), what.replace(" ", ":"), k))
    c.truncate((count + len(sweep)) * SLOT)

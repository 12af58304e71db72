#!/usr/bin/env python3
"""Make a set of mutated images for the hostile-image tests.

usage: fuzzgen.py COUNT SEED0 CONTAINER LIST BASE.img [BASE.img ...]

Image i is mutate(BASE[i % len(BASE)], SEED0 + i), written into slot i of
CONTAINER (slots of SLOT bytes, sparse), and described by one line of LIST:
"i seed base size description". The first images apply each targeted
corruption of mutate.py to each base in turn, so that a set of at least
len(BASE) * mutate.TARGETED_COUNT images has every one of them; the rest are
left to the seed. The VM reads the first `size` bytes of slot i
back into a loop device.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutate  # noqa: E402

SLOT = 4 << 20
count, seed0, container, listfile = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
bases = [(os.path.basename(b)[:-4], open(b, "rb").read()) for b in sys.argv[5:]]
with open(container, "wb") as c, open(listfile, "w") as lst:
    for i in range(count):
        name, data = bases[i % len(bases)]
        assert len(data) <= SLOT
        k = i // len(bases)
        target = k if k < mutate.TARGETED_COUNT else None
        img, what = mutate.mutate(data, seed0 + i, target)
        for off in range(0, len(img), 4096):
            chunk = img[off:off + 4096]
            if chunk.count(0) != len(chunk):
                c.seek(i * SLOT + off)
                c.write(chunk)
        lst.write("%d %d %s %d %s\n" % (i, seed0 + i, name, len(img), what))
    c.truncate(count * SLOT)

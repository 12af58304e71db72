#!/usr/bin/env python3
"""Build a reproducible directory tree for the ext2 conformance images.

usage: ext2_tree.py DIR KIND   (KIND: full, rev0, bigdir, huge, fuzz, small)

Everything is derived from a fixed seed, so the same tree (and the same
image, mke2fs -d being deterministic given -U/-E hash_seed and a fixed time)
is built on every machine.
"""
import os
import random
import socket
import sys

root, kind = sys.argv[1], sys.argv[2]
rng = random.Random(0x45585432)  # "EXT2"
os.makedirs(root, exist_ok=True)


def path(*p):
    return os.path.join(root, *p)


def write(p, data):
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "wb") as f:
        f.write(data)


def sparse(p, size, chunks):
    """A sparse file of `size` bytes with data `chunks` = [(offset, length)]."""
    with open(p, "wb") as f:
        f.truncate(size)
        for off, n in chunks:
            f.seek(off)
            f.write(rng.randbytes(n))


def times(p, t):
    os.utime(p, (t, t), follow_symlinks=False)


# Regular files of many sizes around block boundaries.
for n in [0, 1, 511, 1023, 1024, 1025, 2047, 2048, 4095, 4096, 4097, 12288, 12289, 70000]:
    write(path("files", "size-%d" % n), rng.randbytes(n))
write(path("hello.txt"), b"hello, ext2\n")

if kind in ("full", "rev0"):
    # Single and double indirect blocks with 1k blocks (12K + 256K < 3M).
    write(path("files", "dense-3M"), rng.randbytes(3 << 20))
    # Holes at the start, middle and end.
    sparse(path("files", "holes"), 1 << 20, [(300000, 5000), (700000, 4096)])
    # Triple indirect blocks with 1k blocks: data beyond 64 MiB + 268 KiB.
    # Data sits at 16 MiB multiples, which fswalk's sampled hash covers.
    sparse(path("files", "triple"), 96 << 20, [(0, 4096), (80 << 20, 65536)])

    # Every file type.
    os.makedirs(path("special"), exist_ok=True)
    os.mknod(path("special", "chr"), 0o620 | 0o020000, os.makedev(4, 64))
    os.mknod(path("special", "blk"), 0o660 | 0o060000, os.makedev(8, 1))
    os.mknod(path("special", "bigdev"), 0o600 | 0o020000, os.makedev(300, 70000))
    os.mkfifo(path("special", "fifo"), 0o644)
    s = socket.socket(socket.AF_UNIX)
    s.bind(path("special", "sock"))
    s.close()
    # Fast (< 60 bytes) and slow symlinks, dangling and long ones.
    os.symlink("../hello.txt", path("special", "fast-link"))
    os.symlink("x" * 59, path("special", "fast-59"))
    os.symlink("y" * 60, path("special", "slow-60"))
    os.symlink("/".join(["dir%03d" % i for i in range(500)])[:1000], path("special", "slow-1000"))
    os.symlink("../files/size-4096", path("special", "to-file"))

    # Names of length 1 and 255, odd bytes.
    os.makedirs(path("names"), exist_ok=True)
    for name in ["a", "N" * 255, "with space", "ünïcödé", "-dash", ".hidden", "x" * 254 + "y"]:
        write(path("names", name), name.encode())

    # Hard links.
    write(path("links", "orig"), b"linked\n")
    for i in range(3):
        os.link(path("links", "orig"), path("links", "hard%d" % i))

    # Owners, modes, high uid/gid bits.
    os.makedirs(path("owners"), exist_ok=True)
    for i, (uid, gid, mode) in enumerate([(0, 0, 0o644), (1000, 1000, 0o600),
                                         (65535, 65534, 0o4755), (100000, 200000, 0o2750),
                                         (4000000000, 3000000000, 0o1777), (123, 456, 0o000)]):
        p = path("owners", "f%d" % i)
        write(p, b"owner\n")
        os.chown(p, uid, gid)
        os.chmod(p, mode)

    # Nested directories.
    d = path("deep")
    for i in range(20):
        d = os.path.join(d, "level%02d" % i)
    write(os.path.join(d, "bottom"), b"bottom\n")

    # A directory spanning several blocks with deleted-looking gaps.
    for i in range(300):
        write(path("medium", "entry-%04d-%s" % (i, "z" * (i % 50))), b"")

if kind == "fuzz":
    # Small, but with every structure the driver parses (fits a 4 MiB image).
    write(path("files", "dense-300k"), rng.randbytes(300 << 10))
    sparse(path("files", "triple"), 96 << 20, [(0, 1024), (80 << 20, 2048)])
    os.makedirs(path("special"), exist_ok=True)
    os.mknod(path("special", "chr"), 0o620 | 0o020000, os.makedev(4, 64))
    os.mknod(path("special", "bigdev"), 0o600 | 0o020000, os.makedev(300, 70000))
    os.mkfifo(path("special", "fifo"), 0o644)
    os.symlink("../hello.txt", path("special", "fast-link"))
    os.symlink("z" * 300, path("special", "slow-link"))
    # 150 entries: more than one page (4 KiB) of directory on every block size.
    for i in range(150):
        write(path("dir", "entry-%03d-%s" % (i, "q" * (i % 40))), b"x" * (i % 7))

if kind == "bigdir":
    os.makedirs(path("big"), exist_ok=True)
    for i in range(10000):
        open(path("big", "f%05d%s" % (i, "_" * (i % 37))), "wb").close()

if kind == "huge":
    # A sparse 5 GiB file (i_size_high), data at 16 MiB multiples.
    sparse(path("huge-5G"), 5 << 30, [(0, 8192), (4 << 30, 65536), ((5 << 30) - 16384, 16384)])

# Fixed times, including before 1970 and after 2038 (as signed 32 bits).
stamps = [0, 1, 86400 * 365, 1234567890, 2147483647, -1, -86400 * 3650]
all_paths = []
for dp, dn, fn in os.walk(root, topdown=False):
    for n in fn + dn:
        all_paths.append(os.path.join(dp, n))
all_paths.sort()
for i, p in enumerate(all_paths):
    times(p, stamps[i % len(stamps)])
times(root, 1000000000)

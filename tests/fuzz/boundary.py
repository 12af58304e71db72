#!/usr/bin/env python3
"""Boundary-value sweep of the on-disk fields that rust_ext2 reads.

usage: boundary.py BASE.img                   (lists the cases of BASE)
       boundary.py BASE.img OUT.img INDEX     (writes case INDEX: the reproducer)
   or: import boundary; boundary.cases(data) -> [(description, offset, width, value)]
       boundary.apply(data, case) -> bytes

For every field of the superblock, the first group descriptor, the inodes
(root directory, a regular file with an indirect block, a fast and a slow
symlink, an inode with an xattr block), the entries of the root directory's
first block, the xattr block header and first entry, and the first entry of
an indirect block, the sweep sets the field to 0, 1, max-1, max, 2^(n-1)-1
and 2^(n-1), and to one below, at and above each limit the driver compares
it with (block size, device size, inode counts, ...). One case, one image.
"""
import struct
import sys

SB = 1024


def _u(img, o, w):
    return int.from_bytes(img[o:o + w], "little")


def _generic(width):
    m = (1 << (8 * width)) - 1
    h = 1 << (8 * width - 1)
    return [0, 1, m - 1, m, h - 1, h]


def cases(data):
    img = bytes(data)
    u16 = lambda o: _u(img, o, 2)  # noqa: E731
    u32 = lambda o: _u(img, o, 4)  # noqa: E731
    bs = 1024 << u32(SB + 24)
    blocks_count = u32(SB + 4)
    inodes_count = u32(SB + 0)
    ipg = u32(SB + 40)
    bpg = u32(SB + 32)
    first_data = u32(SB + 20)
    rev = u32(SB + 76)
    isize = 128 if rev == 0 else u16(SB + 88)
    ngroups = (blocks_count - first_data - 1) // bpg + 1
    gdt = (first_data + 1) * bs
    dev_blocks = len(img) // bs
    ipb = bs // isize
    itb = ipg // ipb

    def inode_off(ino):
        g, i = divmod(ino - 1, ipg)
        return u32(gdt + 32 * g + 8) * bs + i * isize

    out = []

    def field(what, off, width, limits=()):
        m = (1 << (8 * width)) - 1
        vals = []
        for v in list(_generic(width)) + list(limits):
            if 0 <= v <= m and v not in vals:
                vals.append(v)
        for v in vals:
            out.append(("%s=%d" % (what, v), off, width, v))

    # Superblock: every field the driver reads, with its limits.
    sbf = [
        ("sb.inodes_count", 0, 4, [ngroups * ipg - 1, ngroups * ipg, ngroups * ipg + 1]),
        ("sb.blocks_count", 4, 4, [dev_blocks - 1, dev_blocks, dev_blocks + 1, first_data, first_data + 1]),
        ("sb.r_blocks_count", 8, 4, [blocks_count - 1, blocks_count, blocks_count + 1]),
        ("sb.free_blocks_count", 12, 4, [blocks_count, blocks_count + 1]),
        ("sb.free_inodes_count", 16, 4, [inodes_count, inodes_count + 1]),
        ("sb.first_data_block", 20, 4, [blocks_count - 1, blocks_count]),
        ("sb.log_block_size", 24, 4, [2, 5, 6, 7]),
        ("sb.log_frag_size", 28, 4, [u32(SB + 24) - 1, u32(SB + 24) + 1]),
        ("sb.blocks_per_group", 32, 4, [bs * 8 - 1, bs * 8, bs * 8 + 1, itb + 2, itb + 3, itb + 4]),
        ("sb.inodes_per_group", 40, 4, [ipb - 1, ipb, ipb + 1, bs * 8, bs * 8 + 1]),
        ("sb.magic", 56, 2, [0xEF53]),
        ("sb.state", 58, 2, []),
        ("sb.rev_level", 76, 4, [0, 1, 2]),
        ("sb.def_resuid", 80, 2, []),
        ("sb.first_ino", 84, 4, [10, 11, 12, inodes_count, inodes_count + 1]),
        ("sb.inode_size", 88, 2, [127, 128, 129, 255, 256, bs - 1, bs, bs + 1]),
        ("sb.feature_compat", 92, 4, [4]),
        ("sb.feature_incompat", 96, 4, [2, 16, 0x10000]),
        ("sb.feature_ro_compat", 100, 4, [1, 2, 8]),
        ("sb.default_mount_opts", 256, 4, [4]),
        ("sb.first_meta_bg", 260, 4, [0, 1, ngroups]),
    ]
    for what, o, w, lim in sbf:
        if rev == 0 and o in (84, 88, 92, 96, 100, 256, 260):
            continue
        field(what, SB + o, w, lim)
    # Group descriptor 0.
    g0_first, g0_last = first_data, min(first_data + bpg, blocks_count) - 1
    for what, o, w in (("gd.block_bitmap", 0, 4), ("gd.inode_bitmap", 4, 4), ("gd.inode_table", 8, 4),
                       ("gd.free_blocks", 12, 2), ("gd.free_inodes", 14, 2)):
        lim = [g0_first - 1, g0_first, g0_last, g0_last + 1, g0_last - itb + 1, g0_last - itb + 2] if w == 4 else []
        field(what, gdt + o, w, lim)
    # Inodes: the root directory and one of each kind.
    picks = {"root": 2}
    for ino in range(11, min(inodes_count, 4096) + 1):
        o = inode_off(ino)
        if o + isize > len(img):
            break
        mode, links = u16(o), u16(o + 26)
        if mode == 0 or links == 0:
            continue
        fmt = mode & 0o170000
        acl = u32(o + 104)
        if fmt == 0o100000 and u32(o + 40 + 48) != 0:
            picks.setdefault("reg-indirect", ino)
        if fmt == 0o120000:
            picks.setdefault("fastlink" if u32(o + 28) in (0, bs // 512 if acl else 0) else "slowlink", ino)
        if acl:
            picks.setdefault("xattr", ino)
    for kind, ino in sorted(picks.items()):
        o = inode_off(ino)
        size = u32(o + 4)
        for what, fo, w, lim in (
                ("mode", 0, 2, [0o040755, 0o100644, 0o120777, 0o020644, 0o170000]),
                ("uid", 2, 2, []), ("size", 4, 4, [59, 60, 61, bs - 1, bs, bs + 1, size - 1, size + 1]),
                ("links_count", 26, 2, []), ("blocks", 28, 4, [bs // 512 - 1, bs // 512, bs // 512 + 1]),
                ("flags", 32, 4, [0x1000]),
                ("block0", 40, 4, [first_data, blocks_count - 1, blocks_count]),
                ("block11", 84, 4, [blocks_count - 1, blocks_count]),
                ("block12", 88, 4, [blocks_count - 1, blocks_count]),
                ("block13", 92, 4, [blocks_count - 1, blocks_count]),
                ("block14", 96, 4, [blocks_count - 1, blocks_count]),
                ("file_acl", 104, 4, [first_data, first_data + 1, 1, blocks_count - 1, blocks_count]),
                ("size_high", 108, 4, []), ("uid_high", 120, 2, []), ("gid_high", 122, 2, [])):
            field("inode%d(%s).%s" % (ino, kind, what), o + fo, w, lim)
        if kind == "reg-indirect":
            ind = u32(o + 88)
            if 0 < ind < blocks_count:
                field("indirect%d[0]" % ind, ind * bs, 4, [blocks_count - 1, blocks_count])
        if kind == "xattr":
            x = u32(o + 104) * bs
            for what, fo, w, lim in (("h_magic", 0, 4, [0xEA020000]), ("h_refcount", 4, 4, []),
                                     ("h_blocks", 8, 4, [2]), ("e_name_len", 32, 1, []),
                                     ("e_name_index", 33, 1, [2, 4, 6, 7]),
                                     ("e_value_offs", 34, 2, [bs - 1, bs, bs + 1]),
                                     ("e_value_block", 36, 4, []),
                                     ("e_value_size", 40, 4, [bs - 1, bs, bs + 1])):
                field("xattr%d.%s" % (x // bs, what), x + fo, w, lim)
    # Root directory, first block: each of its first three entries.
    root = inode_off(2)
    b = u32(root + 40)
    if 0 < b < blocks_count:
        p = 0
        for k in range(3):
            e = b * bs + p
            rl = u16(e + 4)
            for what, fo, w, lim in (("inode", 0, 4, [inodes_count, inodes_count + 1, 10, 11]),
                                     ("rec_len", 4, 2, [7, 8, 11, 12, 13, bs - p - 1, bs - p, bs - p + 1]),
                                     ("name_len", 6, 1, [rl - 9, rl - 8, rl - 7]),
                                     ("file_type", 7, 1, [7, 8])):
                field("dirent%d@%d.%s" % (k, p, what), e + fo, w, lim)
            if rl < 12 or p + rl >= bs:
                break
            p += rl
    return out


def apply(data, case):
    what, off, width, value = case
    img = bytearray(data)
    img[off:off + width] = value.to_bytes(width, "little")
    return bytes(img), "boundary " + what


if __name__ == "__main__":
    base = open(sys.argv[1], "rb").read()
    if len(sys.argv) == 4:
        img, what = apply(base, cases(base)[int(sys.argv[3])])
        open(sys.argv[2], "wb").write(img)
        print(what)
    else:
        for i, c in enumerate(cases(base)):
            print(i, c[0])

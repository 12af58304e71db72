#!/usr/bin/env python3
"""Seeded ext2 image mutator for the hostile-image tests.

usage: mutate.py BASE.img OUT.img SEED   (one image; the reproducer form)
   or: import mutate; mutate.mutate(data, seed) -> (bytes, description)

Parses BASE (superblock, group descriptors, inode table, directory, indirect,
xattr and symlink blocks), then applies one mutation chosen from SEED:
random byte/bit flips in one of those regions, or a targeted corruption of a
field the driver must bounds-check. Prints one line: "SEED KIND DETAIL".
The same (BASE, SEED) always gives the same image.
"""
import random
import struct
import sys



DIRENT_FIELDS = ("rec_len0", "rec_len_past", "rec_len_unaligned", "name_len", "ino0", "ino_big",
                 "ino_reserved", "ino_unused", "file_type", "tail_short")
SB_FIELDS = ("log_block_size", "log_block_size_page", "blocks_per_group", "inodes_per_group",
             "inodes_count", "blocks_count", "first_data_block", "inode_size", "first_ino",
             "rev_level", "incompat", "journal", "blocks_per_group_big", "log_frag_size",
             "inodes_per_group_bad")
XATTR_FIELDS = ("magic", "h_blocks", "value_offs", "value_size", "name_len", "value_block",
                "no_end")
INODE_FIELDS = ("mode", "links0", "acl_block", "root", "dir_iblocks")
# The nine corruptions of the list below, the field ones, and two truncations.
TARGETED_COUNT = 9 + len(DIRENT_FIELDS) + len(SB_FIELDS) + len(XATTR_FIELDS) + len(INODE_FIELDS) + 2


def mutate(data, seed, target=None):
    """Returns (mutated image, description) for `data` and `seed`.

    With `target` (an index into the targeted corruptions, modulo their
    number), that corruption is applied; otherwise the seed picks a random
    flip or a targeted corruption.
    """
    img = bytearray(data)
    rng = random.Random(seed)


    def u16(o):
        return struct.unpack_from("<H", img, o)[0]


    def u32(o):
        return struct.unpack_from("<I", img, o)[0]


    def p16(o, v):
        struct.pack_into("<H", img, o, v & 0xFFFF)


    def p32(o, v):
        struct.pack_into("<I", img, o, v & 0xFFFFFFFF)


    SB = 1024
    bs = 1024 << u32(SB + 24)
    blocks_count = u32(SB + 4)
    inodes_count = u32(SB + 0)
    ipg = u32(SB + 40)
    first_data = u32(SB + 20)
    rev = u32(SB + 76)
    isize = 128 if rev == 0 else u16(SB + 88)
    ngroups = (blocks_count - first_data - 1) // u32(SB + 32) + 1
    gdt = (first_data + 1) * bs
    ptrs = bs // 4


    def inode_off(ino):
        g, i = divmod(ino - 1, ipg)
        return u32(gdt + 32 * g + 8) * bs + i * isize


    # Collect regions by walking every used inode.
    regions = {"superblock": [(SB, 1024)], "group-desc": [(gdt, 32 * ngroups)],
               "inode": [], "dir": [], "indirect": [], "xattr": [], "symlink": []}
    inodes = {}  # kind -> [ino]
    dir_blocks = {}  # directory inode -> its blocks, in logical order


    def walk_ind(b, level, out_data, seen):
        if b == 0 or b >= blocks_count or b in seen:
            return
        seen.add(b)
        if level == 0:
            out_data.append(b)
            return
        regions["indirect"].append((b * bs, bs))
        for k in range(ptrs):
            walk_ind(u32(b * bs + 4 * k), level - 1, out_data, seen)


    for ino in range(1, inodes_count + 1):
        o = inode_off(ino)
        if o + isize > len(img):
            continue
        mode, links = u16(o), u16(o + 26)
        if mode == 0 or links == 0 or (ino < 11 and ino != 2):
            continue
        regions["inode"].append((o, 128))
        fmt = mode & 0o170000
        kind = {0o040000: "dir", 0o100000: "reg", 0o120000: "lnk"}.get(fmt, "special")
        inodes.setdefault(kind, []).append(ino)
        acl = u32(o + 104)
        if acl and acl < blocks_count:
            regions["xattr"].append((acl * bs, bs))
            inodes.setdefault("xattr", []).append(ino)
        blocks = []
        if kind in ("dir", "reg") or (kind == "lnk" and u32(o + 28) != (0 if not acl else bs // 512)):
            seen = set()
            for k in range(12):
                walk_ind(u32(o + 40 + 4 * k), 0, blocks, seen)
            for k, lvl in ((12, 1), (13, 2), (14, 3)):
                walk_ind(u32(o + 40 + 4 * k), lvl, blocks, seen)
        if kind == "dir":
            regions["dir"] += [(b * bs, bs) for b in blocks]
            dir_blocks[ino] = blocks
        if kind == "lnk" and blocks:
            regions["symlink"] += [(b * bs, bs) for b in blocks]
            inodes.setdefault("slowlink", []).append(ino)


    def dirents(region_list):
        """(offset of entry, rec_len) of every directory entry."""
        res = []
        for off, n in region_list:
            p = 0
            while p + 8 <= n:
                rl = u16(off + p + 4)
                if rl < 8:
                    break
                res.append((off + p, rl))
                p += rl
        return res


    def pick(lst):
        return lst[rng.randrange(len(lst))]


    def random_flip(region):
        off, n = pick(regions[region])
        count = rng.choice([1, 1, 2, 4, 8, 16])
        for _ in range(count):
            o = off + rng.randrange(n)
            if rng.random() < 0.5:
                img[o] ^= 1 << rng.randrange(8)
            else:
                img[o] = rng.randrange(256)
        return "%s @%d x%d" % (region, off, count)


    def t_block_past_end():
        ino = pick(inodes["reg"] + inodes["dir"])
        k = rng.randrange(15)
        p32(inode_off(ino) + 40 + 4 * k, blocks_count + rng.randrange(1, 1 << 20))
        return "inode %d i_block[%d] past end" % (ino, k)


    def t_indirect_self():
        if not regions["indirect"]:
            return t_block_past_end()
        off, _ = pick(regions["indirect"])
        b = off // bs
        for k in range(rng.choice([1, ptrs])):
            p32(off + 4 * k, b)
        return "indirect block %d points to itself" % b


    def t_indirect_loop():
        ino = pick(inodes["reg"])
        o = inode_off(ino)
        # The double indirect block is its own first-level block.
        b = u32(o + 40 + 4 * 12) or u32(o + 40)
        if not b:
            return t_block_past_end()
        p32(o + 40 + 4 * 13, b)
        p32(o + 40 + 4 * 14, b)
        p32(b * bs, b)
        return "inode %d dind/tind loop through block %d" % (ino, b)


    def t_dirent(field):
        ents = dirents(regions["dir"])
        if field == "tail_short":
            # The last entry of a directory's last block ends 4 or 8 bytes short of the block
            # (and so of the page, or of i_size): less than a minimal entry is left.
            d = pick([i for i in inodes["dir"] if i != 11])
            size = u32(inode_off(d) + 4)
            b = dir_blocks[d][(size - 1) // bs]
            o, rl = dirents([(b * bs, bs)])[-1]
            need = (8 + img[o + 6] + 3) & ~3
            cut = 8 if rl - 8 >= need else 4
            p16(o + 4, rl - cut)
            return "dirent @%d rec_len %d -> %d (short tail)" % (o, rl, rl - cut)
        o, rl = pick(ents)
        if field == "rec_len0":
            p16(o + 4, 0)
        elif field == "rec_len_past":
            p16(o + 4, bs + 4 * rng.randrange(1, 64))
        elif field == "rec_len_unaligned":
            p16(o + 4, rl + rng.choice([1, 2, 3]))
        elif field == "name_len":
            img[o + 6] = min(255, rl - 8 + rng.randrange(1, 200))
        elif field == "ino0":
            p32(o, 0)
        elif field == "ino_big":
            p32(o, inodes_count + rng.randrange(1, 1 << 16))
        elif field == "ino_reserved":
            p32(o, rng.randrange(3, 11))
        elif field == "ino_unused":
            p32(o, inodes_count - rng.randrange(0, 8))
        elif field == "file_type":
            img[o + 7] = rng.randrange(8, 256)
        return "dirent @%d %s" % (o, field)


    def t_isize():
        ino = pick(inodes["reg"] + inodes["dir"] + inodes.get("lnk", []))
        o = inode_off(ino)
        p32(o + 4, rng.choice([0xFFFFFFFF, 0x7FFFFFFF, bs * 1000, 1]))
        if rng.random() < 0.5:
            p32(o + 108, rng.choice([0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 1]))
        return "inode %d i_size huge" % ino


    def t_sb(field):
        if field == "log_block_size":
            p32(SB + 24, rng.choice([7, 16, 31, 0xFFFFFFFF]))
        elif field == "log_block_size_page":
            # Valid for ext2 (up to 64 KiB) but larger than a page here.
            p32(SB + 24, rng.choice([3, 4, 5, 6]))
        elif field == "blocks_per_group":
            p32(SB + 32, 0)
        elif field == "inodes_per_group":
            p32(SB + 40, 0)
        elif field == "inodes_count":
            p32(SB + 0, rng.choice([0, 1, 0xFFFFFFFF]))
        elif field == "blocks_count":
            p32(SB + 4, rng.choice([0, 1, 0xFFFFFFFF, first_data]))
        elif field == "first_data_block":
            p32(SB + 20, rng.choice([blocks_count, 0xFFFFFFFF, 5]))
        elif field == "inode_size":
            p16(SB + 88, rng.choice([0, 1, 100, 129, 0xFFFF, 8192]))
        elif field == "first_ino":
            p32(SB + 84, rng.choice([0, 1, inodes_count + 5, 0xFFFFFFFF]))
        elif field == "rev_level":
            p32(SB + 76, rng.choice([0, 1, 2, 0xFFFFFFFF]))
        elif field == "incompat":
            p32(SB + 96, u32(SB + 96) | (1 << rng.randrange(2, 20)))
        elif field == "journal":
            p32(SB + 92, u32(SB + 92) | 4)
        elif field == "blocks_per_group_big":
            p32(SB + 32, bs * 8 + rng.randrange(1, 1000))
        elif field == "log_frag_size":
            p32(SB + 28, u32(SB + 24) + rng.randrange(1, 3))
        elif field == "inodes_per_group_bad":
            p32(SB + 40, rng.choice([1, bs * 8 + 8]))
        return "superblock %s" % field


    def t_gd():
        g = rng.randrange(ngroups)
        f = rng.choice([0, 4, 8])
        p32(gdt + 32 * g + f, rng.choice([0, blocks_count, 0xFFFFFFFF, blocks_count - 1]))
        return "group %d descriptor field %d" % (g, f)


    def t_dir_size():
        # A directory size that is not a multiple of the block size.
        ino = pick([i for i in inodes["dir"] if i != 11])
        o = inode_off(ino)
        p32(o + 4, u32(o + 4) + rng.choice([4, 12, bs // 2]))
        return "directory %d i_size not a multiple of the block size" % ino


    def t_dir_hole():
        ino = pick(inodes["dir"])
        k = rng.randrange(min(12, max(1, u32(inode_off(ino) + 4) // bs)))
        p32(inode_off(ino) + 40 + 4 * k, 0)
        return "directory %d block %d is a hole" % (ino, k)


    def t_symlink():
        if not inodes.get("slowlink"):
            return t_isize()
        ino = pick(inodes["slowlink"])
        o = inode_off(ino)
        b = u32(o + 40)
        for k in range(bs):
            img[b * bs + k] = ord("A") + k % 26
        p32(o + 4, rng.choice([bs, 4095, 4096, 0xFFFFFFFF]))
        return "symlink %d without NUL, i_size=%d" % (ino, u32(o + 4))


    def t_fast_symlink():
        ino = pick(inodes.get("lnk", inodes["reg"]))
        p32(inode_off(ino) + 4, rng.choice([60, 61, 4095, 0xFFFFFFFF]))
        return "symlink %d i_size beyond i_block" % ino


    def t_xattr(field):
        if not regions["xattr"]:
            return t_isize()
        off, _ = pick(regions["xattr"])
        e = off + 32
        if field == "magic":
            p32(off, rng.randrange(1 << 32))
        elif field == "h_blocks":
            p32(off + 8, rng.choice([0, 2, 0xFFFFFFFF]))
        elif field == "value_offs":
            p16(e + 2, rng.choice([bs - 1, bs, 0xFFFF]))
        elif field == "value_size":
            p32(e + 8, rng.choice([bs, bs + 1, 0xFFFFFFFF, 0x7FFFFFFF]))
        elif field == "name_len":
            img[e] = 255
        elif field == "value_block":
            p32(e + 4, 1)
        elif field == "no_end":
            for k in range(32, bs):
                img[off + k] = 0xAA
        return "xattr block @%d %s" % (off, field)


    def t_inode(field):
        ino = pick(inodes["reg"] + inodes["dir"] + inodes.get("special", []))
        o = inode_off(ino)
        if field == "mode":
            p16(o, rng.choice([0, 0o170777, 0o010644 | 0o100000, 0xFFFF]))
        elif field == "links0":
            p16(o + 26, 0)
        elif field == "acl_block":
            p32(o + 104, rng.choice([1, blocks_count, 0xFFFFFFFF]))
        elif field == "root":
            o = inode_off(2)
            p16(o, rng.choice([0o100644, 0]))
        elif field == "dir_iblocks":
            # The largest directory claims fewer blocks than its size needs.
            # (not lost+found, whose blocks are empty: nothing is looked up there).
            ino = max([i for i in inodes["dir"] if i != 11], key=lambda i: u32(inode_off(i) + 4))
            o = inode_off(ino)
            p32(o + 28, 0)
        return "inode %d %s" % (ino, field)


    targeted = [
        t_block_past_end, t_indirect_self, t_indirect_loop, t_isize, t_gd, t_dir_hole,
        t_symlink, t_fast_symlink, t_dir_size,
    ] + [lambda f=f: t_dirent(f) for f in DIRENT_FIELDS] \
      + [lambda f=f: t_sb(f) for f in SB_FIELDS] \
      + [lambda f=f: t_xattr(f) for f in XATTR_FIELDS] \
      + [lambda f=f: t_inode(f) for f in INODE_FIELDS]

    def t_truncate(small):
        # A device smaller than the file system (the loop device gets only this much): too
        # small for the superblock, or for the blocks the superblock counts.
        n = rng.choice([512, 1024, 1536] if small else [2048, len(img) // 2, len(img) - bs])
        del img[n:]
        return "image truncated to %d bytes" % n

    targeted += [lambda: t_truncate(True), lambda: t_truncate(False)]
    assert len(targeted) == TARGETED_COUNT
    if target is not None:
        what = "targeted " + targeted[target % len(targeted)]()
    elif rng.random() < 0.5:
        what = "random " + random_flip(pick([r for r in regions if regions[r]]))
    else:
        what = "targeted " + pick(targeted)()

    return bytes(img), what


if __name__ == "__main__":
    data, what = mutate(open(sys.argv[1], "rb").read(), int(sys.argv[3]))
    open(sys.argv[2], "wb").write(data)
    print(sys.argv[3], what)

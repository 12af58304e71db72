#!/usr/bin/env python3
"""Print one extended regex per error message of the rust_ext2 sources.

usage: checks.py FILE.rs...

Each mount_err!/pr_err!/pr_warn! format string, and each directory check
kind of dir.rs, becomes a regex (format arguments match anything) that the
hostile-image test looks for in the kernel log.
"""
import re
import sys

# Checks that no image can reach, and why (mount options' messages included).
# Everything else must be reached by the fixed image set of make test.
UNREACHABLE = {
    "unable to set blocksize":
        "sb_min_blocksize() fails only for a device whose logical block size is over PAGE_SIZE",
    "magic mismatch":
        "re-reads the same bytes after sb_set_blocksize(); only a device changing under the "
        "mount can differ",
    "ext2_readdir: zero-length directory entry":
        "the page check (ext2_check_folio) refuses rec_len 0 before readdir sees the page",
    "ext2_find_entry: zero-length directory entry":
        "the page check (ext2_check_folio) refuses rec_len 0 before a lookup sees the page",
    "unable to read group descriptors":
        "needs an I/O error: the descriptors lie inside the device-size check of s_blocks_count",
    "DAX support has been removed. dax option ignored.":
        "a mount option's message, not an image's (23-ext2-options mounts with -o dax)",
    "couldn't mount RDWR because of unsupported optional features (.*)":
        "read-write mounts only (these images are mounted read-only); 60-ext2-rw-super reaches it",
    "warning: couldn't remount RDWR because of unsupported optional features (.*).":
        "read-write remounts only; 60-ext2-rw-super reaches it",
    "warning: mounting unchecked fs, running e2fsck is recommended":
        "read-write mounts only; 60-ext2-rw-super reaches it",
    "warning: mounting fs with errors, running e2fsck is recommended":
        "read-write mounts only; 60-ext2-rw-super reaches it",
    "warning: maximal mount count reached, running e2fsck is recommended":
        "read-write mounts only; 60-ext2-rw-super reaches it",
    "warning: checktime reached, running e2fsck is recommended":
        "read-write mounts only; 60-ext2-rw-super reaches it",
    "remounting filesystem read-only":
        "errors=remount-ro on read-write mounts only; 62-ext2-rw-errors reaches it",
    "IO error syncing inode .*":
        "needs a failed write of an inode table block on a read-write mount (an I/O error)",
    "could not record the error in the superblock":
        "needs a failed superblock read or write on a read-write mount (an I/O error)",
    "warning: updating to rev .* because of new feature flag, running e2fsck is recommended":
        "read-write mounts only (a revision-0 file over 2 GiB); 61-ext2-rw-attr reaches it",
    "previous I/O error to superblock detected":
        "needs a failed write of the superblock (an I/O error on a read-write mount)",
    "Freeing blocks not in datazone - block = .*, count = .*":
        "block freeing: read-write mounts only; 63-ext2-rw-truncate reaches it",
    "Freeing blocks in system zones - Block = .*, count = .*":
        "block freeing: read-write mounts only; 63-ext2-rw-truncate reaches it",
    "bit already cleared for block .*":
        "block freeing: read-write mounts only; 63-ext2-rw-truncate reaches it",
    "Invalid block bitmap - block_group = .*, block = .*":
        "block bitmaps are read by writers only; 63-ext2-rw-truncate reaches it",
    "Cannot read block bitmap - block_group = .*, block_bitmap = .*":
        "needs an I/O error reading a block bitmap on a read-write mount",
    "Read failure, inode=.*, block=.*":
        "needs an I/O error reading an indirect block that truncate frees",
    "Allocating block in system zone - blocks from .*, length .*":
        "block allocation: read-write mounts only (a block bitmap that does not mark the "
        "group's metadata)",
    "block(.*) >= blocks count(.*) - block_group = .*":
        "the last group's bitmap is searched only up to s_blocks_count",
    "Error syncing inode metadata ino=.*":
        "needs a failed write of an indirect block on a read-write mount (an I/O error)",
    "ext2_add_link: zero-length directory entry":
        "the page check (ext2_check_folio) refuses rec_len 0 before a create sees the page",
    "ext2_delete_entry: zero-length directory entry":
        "the page check (ext2_check_folio) refuses rec_len 0 before an unlink sees the page",
    "ext2_empty_dir: zero-length directory entry":
        "the page check (ext2_check_folio) refuses rec_len 0 before rmdir or rename sees the page",
    "Failed to create ea_block_cache":
        "a mount's allocation failure (mb_cache_create), not an image's",
    "Cannot read inode bitmap - block_group = .*, inode_bitmap = .*":
        "needs an I/O error reading an inode bitmap on a read-write mount",
    "reserved inode or inode > inodes count - block_group = .*,inode=.*":
        "inode allocation: read-write mounts only (an inode bitmap with a reserved inode free)",
    "inode number already in use - inode=.*":
        "inode allocation: read-write mounts only (an inode bitmap with an inode in use free)",
    "reserved or nonexistent inode .*":
        "inode freeing: only inodes read from the image are evicted, and those are checked",
    "bit already cleared for inode .*":
        "inode freeing: read-write mounts only (an inode bitmap with an inode in use free)",
    "inode .*: xattr block .* is out of data blocks range":
        "inodes with such an xattr block are refused when they are read (ext2_iget)",
    "inode .*: block .* read error":
        "needs an I/O error reading an xattr block on a read-write mount",
    "DAX support has been removed. xip option ignored.":
        "a mount option's message, not an image's (23-ext2-options mounts with -o xip)",
    "Reservation out of group .* range goal .* fsb[.*,.*] rsv[.*, .*]":
        "a window is made inside the group it is used in, or kept only while it overlaps it",
}

out = set()
for path in sys.argv[1:]:
    src = open(path).read()
    lits = re.findall(r'(?:mount_err|pr_err|pr_warn)!\(\s*"((?:[^"\\]|\\.)*)"', src)
    # ext2_error!(SB, "...") (`ext2_error`): the message follows the superblock.
    lits += re.findall(r'ext2_error!\(\s*[^,"]+,\s*"((?:[^"\\]|\\.)*)"', src)
    if path.endswith("dir.rs"):
        lits += re.findall(r'Some\("((?:[^"\\]|\\.)*)"\)', src)
        lits += re.findall(r'format_args!\(\s*"((?:[^"\\]|\\.)*)"', src)
    for lit in lits:
        lit = lit.replace("\\n", "").removeprefix("error: ")
        parts = re.split(r"\{[^}]*\}", lit)
        rx = ".*".join(re.sub(r"([.\[\]()*+?{}|^$\\])", r"\\\1", p) for p in parts).strip()
        if rx and rx != ".*":
            out.add(rx)
for rx in sorted(out):
    why = UNREACHABLE.get(rx.replace("\\", ""))
    print("#unreachable %s -- %s" % (rx, why) if why else rx)

// SPDX-License-Identifier: GPL-2.0

//! Directories: `ext2_dir_entry_2` records, their checks and readdir (`fs/ext2/dir.c`).

use crate::defs::{self, byte, le16, le32};
use crate::inode::map_blocks;
use crate::superblock::Ext2Fs;
use kernel::fs::buffer;
use kernel::fs::file::{self, DirEmitter, DirEntryType, File, FileOperations};
use kernel::fs::inode::INode;
use kernel::prelude::*;
use kernel::sync::aref::ARef;

pub(crate) const DIR_FOPS: file::Ops<Ext2Fs> = file::Ops::new::<DirOps>();

/// Size of the fixed part of a directory entry.
const DIR_ENTRY_HEADER: usize = 8;

/// Minimal record length for a name of `len` bytes (`EXT2_DIR_REC_LEN`).
fn rec_len_for(len: usize) -> usize {
    (len + DIR_ENTRY_HEADER + 3) & !3
}

/// A directory entry inside a directory block.
pub(crate) struct DirEntry<'a> {
    pub(crate) ino: u32,
    pub(crate) rec_len: usize,
    pub(crate) file_type: u8,
    pub(crate) name: &'a [u8],
}

/// Decodes `rec_len` (`ext2_rec_len_from_disk`): with 64 KiB pages (and so possibly 64 KiB
/// blocks), 65535 stands for 65536.
fn rec_len_from_disk(v: u16) -> usize {
    if kernel::page::PAGE_SIZE >= 1 << 16 && v == 0xffff {
        1 << 16
    } else {
        v.into()
    }
}

/// Reads and checks block `n` of directory `dir` (`ext2_get_folio` + `ext2_check_folio`).
///
/// Returns `None` for a hole (C ext2 reads holes as zeroes, which fail the checks: the same
/// `EIO` is returned for them).
pub(crate) fn dir_block(dir: &INode<Ext2Fs>, n: u64) -> Result<ARef<buffer::Head>> {
    let sb = dir.super_block();
    let s = sb.data();
    let bs = s.block_size as usize;
    let Some((phys, _)) = map_blocks(dir, n, 1)? else {
        pr_err!(
            "rust_ext2: error: ext2_check_folio: directory #{} contains a hole at offset {}\n",
            dir.ino(),
            n * bs as u64
        );
        return Err(EIO);
    };
    let bh = sb.bread(phys)?;
    let data = bh.data();
    let mut offs = 0;
    while offs < bs {
        let rec_len = rec_len_from_disk(le16(data, offs + 4));
        let name_len = usize::from(byte(data, offs + 6));
        let ino = le32(data, offs);
        let err = if rec_len < rec_len_for(1) {
            Some("rec_len is smaller than minimal")
        } else if rec_len & 3 != 0 {
            Some("unaligned directory entry")
        } else if rec_len < rec_len_for(name_len) {
            Some("rec_len is too small for name_len")
        } else if offs + rec_len > bs {
            Some("directory entry across blocks")
        } else if ino > s.inodes_count {
            Some("inode out of bounds")
        } else {
            None
        };
        if let Some(e) = err {
            pr_err!(
                "rust_ext2: error: ext2_check_folio: bad entry in directory #{}: {} - offset={}, inode={}, rec_len={}, name_len={}\n",
                dir.ino(),
                e,
                n * bs as u64 + offs as u64,
                ino,
                rec_len,
                name_len
            );
            return Err(EIO);
        }
        offs += rec_len;
    }
    Ok(bh)
}

/// Returns the entry at byte `offs` of a checked directory block.
pub(crate) fn entry_at(data: &[u8], offs: usize) -> DirEntry<'_> {
    let name_len = usize::from(byte(data, offs + 6));
    DirEntry {
        ino: le32(data, offs),
        rec_len: rec_len_from_disk(le16(data, offs + 4)),
        file_type: byte(data, offs + 7),
        name: data
            .get(offs + DIR_ENTRY_HEADER..offs + DIR_ENTRY_HEADER + name_len)
            .unwrap_or(&[]),
    }
}

/// Number of blocks of directory `dir` (`dir_pages` in blocks).
pub(crate) fn dir_blocks(dir: &INode<Ext2Fs>) -> u64 {
    let bs = u64::from(dir.super_block().data().block_size);
    (dir.size().max(0) as u64)
        .checked_next_multiple_of(bs)
        .and_then(|n| n.checked_div(bs))
        .unwrap_or(0)
}

/// Converts an on-disk file type to a `d_type` (`ext2_filetype_table`).
fn dirent_type(has_filetype: bool, t: u8) -> DirEntryType {
    if !has_filetype {
        return DirEntryType::Unknown;
    }
    match t {
        defs::EXT2_FT_REG_FILE => DirEntryType::Reg,
        defs::EXT2_FT_DIR => DirEntryType::Dir,
        defs::EXT2_FT_CHRDEV => DirEntryType::Chr,
        defs::EXT2_FT_BLKDEV => DirEntryType::Blk,
        defs::EXT2_FT_FIFO => DirEntryType::Fifo,
        defs::EXT2_FT_SOCK => DirEntryType::Sock,
        defs::EXT2_FT_SYMLINK => DirEntryType::Lnk,
        _ => DirEntryType::Unknown,
    }
}

struct DirOps;

#[vtable]
impl FileOperations for DirOps {
    type FileSystem = Ext2Fs;

    /// `ext2_readdir`: positions are byte offsets in the directory.
    fn read_dir(file: &File<Ext2Fs>, emitter: &mut DirEmitter) -> Result {
        let dir = file.inode();
        let s = dir.super_block().data();
        let bs = u64::from(s.block_size);
        let size = dir.size().max(0) as u64;
        let has_filetype = s.has_filetype();
        let pos = u64::try_from(emitter.pos()).map_err(|_| EINVAL)?;
        if pos > size.saturating_sub(rec_len_for(1) as u64) {
            return Ok(());
        }
        let mut n = pos / bs;
        let mut offset = (pos % bs) as usize;
        while n < dir_blocks(dir) {
            let bh = dir_block(dir, n)?;
            let data = bh.data();
            // Resume at the first record at or after `offset` (`ext2_validate_entry`).
            let mut p = 0;
            while p < offset {
                let e = entry_at(data, p);
                p += e.rec_len;
            }
            if p != offset {
                emitter.set_pos((n * bs + p as u64) as i64);
            }
            while p < bs as usize {
                let e = entry_at(data, p);
                if e.ino != 0 {
                    let t = dirent_type(has_filetype, e.file_type);
                    if !emitter.emit(e.rec_len as i64, e.name, e.ino.into(), t) {
                        return Ok(());
                    }
                } else {
                    emitter.set_pos(emitter.pos() + e.rec_len as i64);
                }
                p += e.rec_len;
            }
            n += 1;
            offset = 0;
        }
        Ok(())
    }
}

// SPDX-License-Identifier: GPL-2.0

//! Directories: `ext2_dir_entry_2` records, their checks and readdir (`fs/ext2/dir.c`).

use crate::defs::{self, byte, le16, le32};
use crate::superblock::Ext2Fs;
use kernel::fs::address_space::{Folio, MappedBytes};
use kernel::fs::file::{self, DirEmitter, DirEntryType, File, FileOperations};
use kernel::fs::inode::INode;
use kernel::prelude::*;
use kernel::sync::aref::ARef;

pub(crate) const DIR_FOPS: file::Ops<Ext2Fs> = file::Ops::new::<DirOps>();

/// Size of the fixed part of a directory entry.
const DIR_ENTRY_HEADER: usize = 8;

/// Minimal record length for a name of `len` bytes (`EXT2_DIR_REC_LEN`).
pub(crate) fn rec_len_for(len: u8) -> usize {
    // `len` is below 256: the sum is below 267.
    #[allow(clippy::arithmetic_side_effects)]
    let n = usize::from(len) + DIR_ENTRY_HEADER + 3;
    n & !3
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

/// Page size: directories are read through their page cache, a page at a time, as in C.
const PAGE: usize = kernel::page::PAGE_SIZE;
const PAGE_SHIFT: u64 = kernel::page::PAGE_SHIFT as u64;
const PAGE_MASK: u64 = PAGE as u64 - 1;

/// Logs a directory check failure and returns `EIO`.
fn bad_dir(dir: &INode<Ext2Fs>, what: core::fmt::Arguments<'_>) -> Error {
    pr_err!(
        "error: ext2_check_folio: {} in directory #{}\n",
        what,
        dir.ino()
    );
    EIO
}

/// Checks the records of a directory page (`ext2_check_folio`).
///
/// The arithmetic cannot overflow: `pos` is a page offset below the directory size (less than
/// 2^63) and `pos + PAGE` is compared first; `offs` stays at most `limit` (at most `PAGE`) plus a
/// `rec_len` (at most 2^16), `chunk` is the block size (at least 1024), and `rec_len` is at least
/// `rec_len_for(1)` where `offs + rec_len - 1` is computed.
#[allow(clippy::arithmetic_side_effects)]
fn check_page(dir: &INode<Ext2Fs>, pos: u64, d: &[u8]) -> Result {
    let s = dir.super_block().data();
    let chunk = s.block_size as usize;
    let size = dir.size().max(0) as u64;
    let mut limit = PAGE;
    if size < pos + PAGE as u64 {
        limit = (size - pos) as usize;
        if limit & (chunk - 1) != 0 {
            return Err(bad_dir(
                dir,
                format_args!("size of directory is not a multiple of chunk size"),
            ));
        }
        if limit == 0 {
            return Ok(());
        }
    }
    let mut offs = 0;
    while offs + rec_len_for(1) <= limit {
        let rec_len = rec_len_from_disk(le16(d, offs + 4));
        let name_len = byte(d, offs + 6);
        let ino = le32(d, offs);
        let err = if rec_len < rec_len_for(1) {
            Some("rec_len is smaller than minimal")
        } else if rec_len & 3 != 0 {
            Some("unaligned directory entry")
        } else if rec_len < rec_len_for(name_len) {
            Some("rec_len is too small for name_len")
        } else if ((offs + rec_len - 1) ^ offs) & !(chunk - 1) != 0 {
            Some("directory entry across blocks")
        } else if ino > s.inodes_count {
            Some("inode out of bounds")
        } else {
            None
        };
        if let Some(e) = err {
            return Err(bad_dir(
                dir,
                format_args!(
                    "bad entry: {} - offset={}, inode={}, rec_len={}, name_len={}",
                    e,
                    pos + offs as u64,
                    ino,
                    rec_len,
                    name_len
                ),
            ));
        }
        offs += rec_len;
    }
    if offs != limit {
        return Err(bad_dir(
            dir,
            format_args!(
                "entry spans the page boundary - offset={}",
                pos + offs as u64
            ),
        ));
    }
    Ok(())
}

/// Returns a buffer for [`dir_page`].
pub(crate) fn page_buf() -> Result<KVec<u8>> {
    Ok(KVec::from_elem(0u8, PAGE, GFP_KERNEL)?)
}

/// Copies page `n` of directory `dir`, `folio`, into `buf` (of [`page_buf`]), checking the page
/// once (`ext2_get_folio`).
///
/// Entries are parsed from this copy, never from the page cache itself, which may change while
/// it is read (`Folio::read`); the parsers check every bound anyway.
fn copy_checked(dir: &INode<Ext2Fs>, n: u64, folio: &Folio<Ext2Fs>, buf: &mut [u8]) -> Result {
    if folio.size() != PAGE || buf.len() != PAGE {
        return Err(EIO);
    }
    folio.read(0, buf)?;
    if !folio.test_checked() {
        check_page(dir, n.saturating_mul(PAGE as u64), buf)?;
        folio.set_checked();
    }
    Ok(())
}

/// Copies page `n` of directory `dir` into `buf` (of [`page_buf`]), checked once
/// ([`copy_checked`]). Readdir reads whole pages this way: one copy per page costs less than a
/// copy per entry.
pub(crate) fn dir_page(dir: &INode<Ext2Fs>, n: u64, buf: &mut [u8]) -> Result {
    let folio = dir.read_mapping_folio(n)?;
    copy_checked(dir, n, &folio, buf)
}

/// Returns page `n` of directory `dir`, checked (on a copy, [`copy_checked`]) if it was not yet,
/// for reading in place with [`Folio::with_mapped`], [`header_at`] and [`name_matches`]: a
/// lookup compares one name per entry, so copying the page would cost more than the search.
pub(crate) fn dir_folio(dir: &INode<Ext2Fs>, n: u64) -> Result<ARef<Folio<Ext2Fs>>> {
    let folio = dir.read_mapping_folio(n)?;
    if folio.size() != PAGE {
        return Err(EIO);
    }
    if !folio.test_checked() {
        copy_checked(dir, n, &folio, &mut page_buf()?)?;
    }
    Ok(folio)
}

/// The fixed part of the entry at byte `offs` of a mapped directory page: inode, `rec_len`,
/// name length and file type. Fails with `EIO` if it is not within the page.
#[inline]
pub(crate) fn header_at(page: &MappedBytes<'_>, offs: usize) -> Result<(u32, usize, usize, u8)> {
    let h = page.array::<DIR_ENTRY_HEADER>(offs).map_err(|_| EIO)?;
    Ok((
        u32::from_le_bytes([h[0], h[1], h[2], h[3]]),
        rec_len_from_disk(u16::from_le_bytes([h[4], h[5]])),
        usize::from(h[6]),
        h[7],
    ))
}

/// Returns whether the entry at byte `offs` of a mapped directory page, whose name is
/// `name_len` bytes long, is named `name`.
#[inline]
pub(crate) fn name_matches(
    page: &MappedBytes<'_>,
    offs: usize,
    name_len: usize,
    name: &[u8],
) -> bool {
    name_len == name.len() && page.matches(offs.saturating_add(DIR_ENTRY_HEADER), name)
}

/// Number of bytes of page `n` that are in the directory (`ext2_last_byte`).
pub(crate) fn last_byte(dir: &INode<Ext2Fs>, n: u64) -> usize {
    let size = dir.size().max(0) as u64;
    (size.saturating_sub(n.saturating_mul(PAGE as u64))).min(PAGE as u64) as usize
}

/// Returns the entry at byte `offs` of a checked directory block.
#[inline]
pub(crate) fn entry_at(data: &[u8], offs: usize) -> DirEntry<'_> {
    let name_len = usize::from(byte(data, offs.saturating_add(6)));
    let name = offs.saturating_add(DIR_ENTRY_HEADER);
    DirEntry {
        ino: le32(data, offs),
        rec_len: rec_len_from_disk(le16(data, offs.saturating_add(4))),
        file_type: byte(data, offs.saturating_add(7)),
        name: data.get(name..name.saturating_add(name_len)).unwrap_or(&[]),
    }
}

/// Number of pages of directory `dir` (`dir_pages`).
pub(crate) fn dir_pages(dir: &INode<Ext2Fs>) -> u64 {
    (dir.size().max(0) as u64).div_ceil(PAGE as u64)
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

    fn ioctl(file: &File<Ext2Fs>, cmd: u32, arg: usize) -> Result<i32> {
        crate::ioctl::ioctl(file, cmd, arg)
    }

    /// `ext2_readdir`: positions are byte offsets in the directory.
    fn read_dir(file: &File<Ext2Fs>, emitter: &mut DirEmitter) -> Result {
        let dir = file.inode();
        let s = dir.super_block().data();
        let chunk = s.block_size as usize;
        let size = dir.size().max(0) as u64;
        let has_filetype = s.has_filetype();
        let pos = u64::try_from(emitter.pos()).map_err(|_| EINVAL)?;
        // `pos > i_size - EXT2_DIR_REC_LEN(1)`, signed as in C: a directory smaller than one
        // entry lists nothing (its pages are not read, so not checked either).
        let min = rec_len_for(1) as u64;
        if size < min || pos > size.saturating_sub(min) {
            return Ok(());
        }
        let mut n = pos >> PAGE_SHIFT;
        let mut offset = (pos & PAGE_MASK) as usize;
        let mut buf = page_buf()?;
        while n < dir_pages(dir) {
            match dir_page(dir, n, &mut buf) {
                Ok(()) => {}
                Err(e) => {
                    pr_err!("error: ext2_readdir: bad page in #{}\n", dir.ino());
                    emitter.set_pos(
                        emitter
                            .pos()
                            .saturating_add(PAGE.saturating_sub(offset) as i64),
                    );
                    return Err(e);
                }
            }
            let last = last_byte(dir, n);
            let d = &buf[..];
            let done = (|| -> Result<bool> {
                // Resume at the first record at or after `offset` (`ext2_validate_entry`).
                let mut p = offset & !chunk.saturating_sub(1);
                while p < offset {
                    let rl = entry_at(d, p).rec_len;
                    if rl == 0 {
                        break;
                    }
                    p = p.saturating_add(rl);
                }
                // `offset_in_page`: an offset inside the last record of a page wraps to the
                // start of the page, which C then lists again.
                let mut p = p & PAGE.saturating_sub(1);
                if p != offset {
                    emitter.set_pos((n << PAGE_SHIFT).saturating_add(p as u64) as i64);
                }
                while p.saturating_add(rec_len_for(1)) <= last {
                    let e = entry_at(d, p);
                    if e.rec_len == 0 {
                        pr_err!("error: ext2_readdir: zero-length directory entry\n");
                        return Err(EIO);
                    }
                    if e.ino != 0 {
                        let t = dirent_type(has_filetype, e.file_type);
                        if !emitter.emit(e.rec_len as i64, e.name, e.ino.into(), t) {
                            return Ok(true);
                        }
                    } else {
                        emitter.set_pos(emitter.pos().saturating_add(e.rec_len as i64));
                    }
                    p = p.saturating_add(e.rec_len);
                }
                Ok(false)
            })()?;
            if done {
                return Ok(());
            }
            n = n.saturating_add(1);
            offset = 0;
        }
        Ok(())
    }
}

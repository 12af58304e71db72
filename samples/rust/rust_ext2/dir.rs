// SPDX-License-Identifier: GPL-2.0

//! Directories: `ext2_dir_entry_2` records, their checks and readdir (`fs/ext2/dir.c`).

use crate::ext2::{self, DiskDirEntry, Ext2Fs};
use crate::inode::Mapper;
use crate::superblock::ext2_error;
use kernel::fs::address_space::{Folio, MappedBytes, WriteFolio};
use kernel::fs::file::{DirEmitter, DirEntryType, File, FileOperations, Fsync};
use kernel::fs::inode::{mode, INode, LockedINode};
use kernel::fs::ondisk::{Le16, Le32};
use kernel::prelude::*;
use kernel::sync::aref::ARef;
use kernel::sync::atomic::Relaxed;

/// Size of the fixed part of a directory entry.
const DIR_ENTRY_HEADER: usize = core::mem::size_of::<DiskDirEntry>();

/// Minimal record length for a name of `len` bytes (`EXT2_DIR_REC_LEN`).
pub(crate) fn rec_len_for(len: u8) -> usize {
    // `len` is below 256: the sum is below 267.
    #[allow(clippy::arithmetic_side_effects)]
    let n = usize::from(len) + DIR_ENTRY_HEADER + 3;
    n & !3
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
    ext2_error!(
        dir.super_block(),
        "ext2_check_folio: {} in directory #{}",
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
fn check_page(dir: &INode<Ext2Fs>, pos: u64, page: &MappedBytes<'_>) -> Result {
    let s = dir.super_block().data();
    let chunk = s.block_size as usize;
    let size = dir_size(dir);
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
        let EntryHeader {
            ino,
            rec_len,
            name_len,
            ..
        } = header_at(page, offs)?;
        let err = if rec_len < rec_len_for(1) {
            Some("rec_len is smaller than minimal")
        } else if rec_len & 3 != 0 {
            Some("unaligned directory entry")
        } else if rec_len < rec_len_for(name_len as u8) {
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

/// Checks page `n` of directory `dir`, `folio`, once (`ext2_get_folio`, `PG_checked`), in place
/// as C does. Its readers bound every value they read anyway: once there are writers, the page
/// may change after it was checked.
fn check_once(dir: &INode<Ext2Fs>, n: u64, folio: &Folio<Ext2Fs>) -> Result {
    if folio.test_checked() {
        return Ok(());
    }
    // Pages are read one at a time; only a one-page folio is marked checked, and it stays one
    // page while it is in the page cache.
    if folio.size() != PAGE {
        return Err(EIO);
    }
    folio.with_mapped(0, |page| {
        check_page(dir, n.saturating_mul(PAGE as u64), page)
    })??;
    folio.set_checked();
    Ok(())
}

/// Returns page `n` of directory `dir`, checked ([`check_once`]), for reading in place with
/// [`Folio::with_mapped`], [`header_at`], [`name_matches`] and
/// [`DirEmitter::emit_mapped`](kernel::fs::file::DirEmitter::emit_mapped).
pub(crate) fn dir_folio(dir: &INode<Ext2Fs>, n: u64) -> Result<ARef<Folio<Ext2Fs>>> {
    let folio = dir.read_mapping_folio(n)?;
    check_once(dir, n, &folio)?;
    Ok(folio)
}

/// The fixed part of a directory entry, decoded.
pub(crate) struct EntryHeader {
    /// The inode number, 0 for an unused entry.
    pub(crate) ino: u32,
    /// The length of the record (`ext2_rec_len_from_disk`).
    pub(crate) rec_len: usize,
    /// The length of the name.
    pub(crate) name_len: usize,
    /// The file type (`EXT2_FT_*`), if the file system records it.
    pub(crate) file_type: u8,
}

/// The fixed part of the entry at byte `offs` of a mapped directory page. Fails with `EIO` if it
/// is not within the page.
#[inline]
pub(crate) fn header_at(page: &MappedBytes<'_>, offs: usize) -> Result<EntryHeader> {
    let de = page.read_record::<DiskDirEntry>(offs).map_err(|_| EIO)?;
    Ok(EntryHeader {
        ino: de.inode.get(),
        rec_len: rec_len_from_disk(de.rec_len.get()),
        name_len: de.name_len.into(),
        file_type: de.file_type,
    })
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

/// The size of directory `dir`. Readers take it once: the size changes only under the inode
/// lock, which lookups and readdir hold shared.
pub(crate) fn dir_size(dir: &INode<Ext2Fs>) -> u64 {
    dir.size().max(0) as u64
}

/// Number of bytes of page `n` that are in a directory of `size` bytes (`ext2_last_byte`).
pub(crate) fn last_byte(size: u64, n: u64) -> usize {
    (size.saturating_sub(n.saturating_mul(PAGE as u64))).min(PAGE as u64) as usize
}

/// Number of pages of a directory of `size` bytes (`dir_pages`).
pub(crate) fn dir_pages(size: u64) -> u64 {
    size.div_ceil(PAGE as u64)
}

/// Encodes `rec_len` (`ext2_rec_len_to_disk`): with 64 KiB pages, 65536 is stored as 65535.
fn rec_len_to_disk(len: usize) -> Le16 {
    if PAGE >= 1 << 16 && len == 1 << 16 {
        Le16::new(0xffff)
    } else {
        Le16::new(len as u16)
    }
}

/// The on-disk file type of an inode of `mode` (`ext2_set_de_type`, `fs_umode_to_ftype`), or 0
/// if the file system does not record types.
fn de_type(has_filetype: bool, mode: u16) -> u8 {
    if !has_filetype {
        return 0;
    }
    match mode & mode::S_IFMT {
        mode::S_IFREG => ext2::EXT2_FT_REG_FILE,
        mode::S_IFDIR => ext2::EXT2_FT_DIR,
        mode::S_IFCHR => ext2::EXT2_FT_CHRDEV,
        mode::S_IFBLK => ext2::EXT2_FT_BLKDEV,
        mode::S_IFIFO => ext2::EXT2_FT_FIFO,
        mode::S_IFSOCK => ext2::EXT2_FT_SOCK,
        mode::S_IFLNK => ext2::EXT2_FT_SYMLINK,
        _ => 0,
    }
}

/// What a change of a directory ends with (`ext2_handle_dirsync`, which 7.3 runs after every
/// change): its page cache written and waited for, then the inode.
fn handle_dirsync(dir: &INode<Ext2Fs>) -> Result {
    dir.write_and_wait()?;
    dir.sync_metadata(true)
}

/// The times and state of a directory whose entries changed (`ext2_add_link`,
/// `ext2_delete_entry`): modification and change times now, dirty, then synced.
fn dir_changed(dir: &mut LockedINode<'_, Ext2Fs>) -> Result {
    dir.set_mtime_ctime_now();
    clear_btree(dir);
    dir.mark_dirty();
    handle_dirsync(dir)
}

/// Clears the hashed-index flag of a directory that changed (C's `i_flags &= ~EXT2_BTREE_FL`):
/// its index, if it had one, is stale. The flags change under the `i_rwsem` (`dir`).
fn clear_btree(dir: &mut LockedINode<'_, Ext2Fs>) {
    let flags = &dir.data().flags;
    flags.store(flags.load(Relaxed) & !ext2::fl::BTREE, Relaxed);
}

/// Where a new entry goes in a directory page (`ext2_add_link`'s scan).
enum Slot {
    /// At the directory's end: a new chunk (`We hit i_size`).
    End(usize),
    /// An unused entry at this offset with this `rec_len`.
    Free(usize, usize),
    /// After the entry at this offset with this `rec_len`, whose name takes the given length.
    Split(usize, usize, usize),
}

/// Adds an entry `name` for inode `ino` of `mode` to directory `dir` (`ext2_add_link`): the
/// first unused entry or entry with room enough after its name, else a new chunk at the end,
/// written in place in the page cache and committed; `EEXIST` if the name is there.
pub(crate) fn add_link(
    dir: &mut LockedINode<'_, Ext2Fs>,
    name: &[u8],
    ino: u32,
    mode: u16,
) -> Result {
    let s = dir.super_block().data();
    let chunk = s.block_size as usize;
    let name_len = u8::try_from(name.len()).map_err(|_| ENAMETOOLONG)?;
    let reclen = rec_len_for(name_len);
    let size = dir_size(dir);
    let npages = dir_pages(size);
    // Up to one page past the last: a directory of whole pages grows into a new one.
    for n in 0..=npages {
        let folio = dir_folio(dir, n)?;
        let last = last_byte(size, n);
        let slot = folio.with_mapped(0, |page| -> Result<Option<Slot>> {
            let limit = PAGE.saturating_sub(reclen);
            let mut p = 0usize;
            while p <= limit {
                if p == last {
                    return Ok(Some(Slot::End(p)));
                }
                let h = header_at(page, p)?;
                if h.rec_len == 0 {
                    ext2_error!(
                        dir.super_block(),
                        "ext2_add_link: zero-length directory entry"
                    );
                    return Err(EIO);
                }
                if h.ino != 0 && name_matches(page, p, h.name_len, name) {
                    return Err(EEXIST);
                }
                let used = rec_len_for(h.name_len as u8);
                if h.ino == 0 && h.rec_len >= reclen {
                    return Ok(Some(Slot::Free(p, h.rec_len)));
                }
                if h.rec_len >= used.saturating_add(reclen) {
                    return Ok(Some(Slot::Split(p, h.rec_len, used)));
                }
                p = p.saturating_add(h.rec_len);
            }
            Ok(None)
        })??;
        let Some(slot) = slot else {
            continue;
        };
        let (at, rec_len, used) = match slot {
            Slot::End(at) => (at, chunk, None),
            Slot::Free(at, rec_len) => (at, rec_len, None),
            Slot::Split(at, rec_len, used) => (at, rec_len, Some(used)),
        };
        // Below 2^64 / PAGE pages (the size is an `i64`): no overflow.
        let base = n.saturating_mul(PAGE as u64);
        let pos = i64::try_from(base.saturating_add(at as u64))?;
        let mut wf = WriteFolio::prepare::<Mapper>(dir, folio, pos, rec_len)?;
        let (de_at, de_len) = match used {
            Some(used) => {
                // The entry keeps its name, and the new one takes the rest of its record.
                let rl = rec_len_to_disk(used);
                wf.write_record(at.saturating_add(4), &rl)?;
                (at.saturating_add(used), rec_len.saturating_sub(used))
            }
            None => (at, rec_len),
        };
        let de = DiskDirEntry {
            inode: Le32::new(ino),
            rec_len: rec_len_to_disk(de_len),
            name_len,
            file_type: de_type(s.has_filetype(), mode),
        };
        wf.write_record(de_at, &de)?;
        wf.write(de_at.saturating_add(DIR_ENTRY_HEADER), name)?;
        wf.commit()?;
        return dir_changed(dir);
    }
    // C BUGs: the page past the last always has room.
    Err(EIO)
}

/// Removes the entry at byte `offs` of page `n` of directory `dir` (`ext2_delete_entry`): the
/// previous entry of its chunk takes its record, or, the first of its chunk, it is marked
/// unused.
pub(crate) fn delete_entry(dir: &mut LockedINode<'_, Ext2Fs>, n: u64, offs: usize) -> Result {
    let chunk = dir.super_block().data().block_size as usize;
    let folio = dir_folio(dir, n)?;
    let (from, to) = folio.with_mapped(0, |page| -> Result<(usize, usize)> {
        let h = header_at(page, offs)?;
        let to = offs.saturating_add(h.rec_len);
        let mut from = offs & !chunk.saturating_sub(1);
        let mut p = from;
        let mut prev = None;
        while p < offs {
            let h = header_at(page, p)?;
            if h.rec_len == 0 {
                ext2_error!(
                    dir.super_block(),
                    "ext2_delete_entry: zero-length directory entry"
                );
                return Err(EIO);
            }
            prev = Some(p);
            p = p.saturating_add(h.rec_len);
        }
        if let Some(prev) = prev {
            from = prev;
        }
        Ok((from, to))
    })??;
    let pos = i64::try_from(n.saturating_mul(PAGE as u64).saturating_add(from as u64))?;
    let len = to.checked_sub(from).ok_or(EIO)?;
    let mut wf = WriteFolio::prepare::<Mapper>(dir, folio, pos, len)?;
    if from != offs {
        wf.write_record(from.saturating_add(4), &rec_len_to_disk(len))?;
    }
    wf.write_record(offs, &Le32::new(0))?;
    wf.commit()?;
    dir_changed(dir)
}

/// Writes the first chunk of new directory `inode` (`ext2_make_empty`): `.` for itself and
/// `..` for `parent`, taking the rest of the chunk, then syncs it as any change.
pub(crate) fn make_empty(inode: &mut LockedINode<'_, Ext2Fs>, parent: u32) -> Result {
    let s = inode.super_block().data();
    let chunk = s.block_size as usize;
    let ino = u32::try_from(inode.ino())?;
    let ftype = de_type(s.has_filetype(), mode::S_IFDIR);
    let folio = dir_folio(inode, 0)?;
    let mut wf = WriteFolio::prepare::<Mapper>(inode, folio, 0, chunk)?;
    let zeros = [0u8; 256];
    let mut at = 0;
    while at < chunk {
        let n = chunk.saturating_sub(at).min(zeros.len());
        wf.write(at, &zeros[..n])?;
        at = at.saturating_add(n);
    }
    let one = rec_len_for(1);
    let dot = DiskDirEntry {
        inode: Le32::new(ino),
        rec_len: rec_len_to_disk(one),
        name_len: 1,
        file_type: ftype,
    };
    wf.write_record(0, &dot)?;
    wf.write(DIR_ENTRY_HEADER, b".\0\0\0")?;
    let dotdot = DiskDirEntry {
        inode: Le32::new(parent),
        rec_len: rec_len_to_disk(chunk.saturating_sub(one)),
        name_len: 2,
        file_type: ftype,
    };
    wf.write_record(one, &dotdot)?;
    wf.write(one.saturating_add(DIR_ENTRY_HEADER), b"..\0\0")?;
    wf.commit()?;
    handle_dirsync(inode)
}

/// Whether directory `inode` has no entry but `.` and `..` (`ext2_empty_dir`); a page that
/// cannot be read, or a zero-length entry (reported), counts as not empty, as in C.
pub(crate) fn empty_dir(inode: &INode<Ext2Fs>) -> bool {
    let size = dir_size(inode);
    let ino = inode.ino();
    for n in 0..dir_pages(size) {
        let Ok(folio) = dir_folio(inode, n) else {
            return false;
        };
        let last = last_byte(size, n);
        let empty = folio.with_mapped(0, |page| -> Result<bool> {
            let mut p = 0usize;
            while p.saturating_add(rec_len_for(1)) <= last {
                let h = header_at(page, p)?;
                if h.rec_len == 0 {
                    ext2_error!(
                        inode.super_block(),
                        "ext2_empty_dir: zero-length directory entry"
                    );
                    return Ok(false);
                }
                if h.ino != 0 {
                    // `.` with this directory's number, or `..`.
                    let name_at = p.saturating_add(DIR_ENTRY_HEADER);
                    if !page.matches(name_at, b".") || h.name_len > 2 {
                        return Ok(false);
                    }
                    if h.name_len < 2 {
                        if u64::from(h.ino) != ino {
                            return Ok(false);
                        }
                    } else if !page.matches(name_at.saturating_add(1), b".") {
                        return Ok(false);
                    }
                }
                p = p.saturating_add(h.rec_len);
            }
            Ok(true)
        });
        if !matches!(empty, Ok(Ok(true))) {
            return false;
        }
    }
    true
}

/// Points the entry at byte `offs` of page `n` of directory `dir` to inode `ino` of `mode`
/// (`ext2_set_link`): a rename's target entry (the directory's times updated) or a moved
/// directory's `..`.
pub(crate) fn set_link(
    dir: &mut LockedINode<'_, Ext2Fs>,
    n: u64,
    offs: usize,
    ino: u32,
    mode: u16,
    update_times: bool,
) -> Result {
    let has_filetype = dir.super_block().data().has_filetype();
    let folio = dir_folio(dir, n)?;
    let rec_len = folio.with_mapped(0, |page| header_at(page, offs).map(|h| h.rec_len))??;
    let pos = i64::try_from(n.saturating_mul(PAGE as u64).saturating_add(offs as u64))?;
    let mut wf = WriteFolio::prepare::<Mapper>(dir, folio, pos, rec_len)?;
    wf.write_record(offs, &Le32::new(ino))?;
    // `file_type`, after `inode`, `rec_len` and `name_len`.
    wf.write(offs.saturating_add(7), &[de_type(has_filetype, mode)])?;
    wf.commit()?;
    if update_times {
        dir.set_mtime_ctime_now();
    }
    clear_btree(dir);
    dir.mark_dirty();
    handle_dirsync(dir)
}

/// Where the `..` entry of directory `dir` is (`ext2_dotdot`): page 0, after the first entry.
pub(crate) fn dotdot(dir: &INode<Ext2Fs>) -> Result<usize> {
    let folio = dir_folio(dir, 0)?;
    folio.with_mapped(0, |page| header_at(page, 0).map(|h| h.rec_len))?
}

/// Converts an on-disk file type to a `d_type` (`ext2_filetype_table`).
fn dirent_type(has_filetype: bool, t: u8) -> DirEntryType {
    if !has_filetype {
        return DirEntryType::Unknown;
    }
    match t {
        ext2::EXT2_FT_REG_FILE => DirEntryType::Reg,
        ext2::EXT2_FT_DIR => DirEntryType::Dir,
        ext2::EXT2_FT_CHRDEV => DirEntryType::Chr,
        ext2::EXT2_FT_BLKDEV => DirEntryType::Blk,
        ext2::EXT2_FT_FIFO => DirEntryType::Fifo,
        ext2::EXT2_FT_SOCK => DirEntryType::Sock,
        ext2::EXT2_FT_SYMLINK => DirEntryType::Lnk,
        _ => DirEntryType::Unknown,
    }
}

pub(crate) struct DirOps;

#[vtable]
impl FileOperations for DirOps {
    type FileSystem = Ext2Fs;
    const FSYNC: Fsync = Fsync::Simple;
    const LEASES: bool = true;

    fn ioctl(file: &File<Ext2Fs>, cmd: u32, arg: usize) -> Result<i32> {
        crate::ioctl::ioctl(file, cmd, arg)
    }

    fn compat_ioctl(file: &File<Ext2Fs>, cmd: u32, arg: usize) -> Result<i32> {
        crate::ioctl::compat_ioctl(file, cmd, arg)
    }

    /// `ext2_readdir`: positions are byte offsets in the directory.
    fn read_dir(file: &File<Ext2Fs>, emitter: &mut DirEmitter) -> Result {
        let dir = file.inode();
        let s = dir.super_block().data();
        let chunk = s.block_size as usize;
        let size = dir_size(dir);
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
        while n < dir_pages(size) {
            let folio = match dir_folio(dir, n) {
                Ok(folio) => folio,
                Err(e) => {
                    ext2_error!(
                        dir.super_block(),
                        "ext2_readdir: bad page in #{}",
                        dir.ino()
                    );
                    emitter.set_pos(
                        emitter
                            .pos()
                            .saturating_add(PAGE.saturating_sub(offset) as i64),
                    );
                    return Err(e);
                }
            };
            let last = last_byte(size, n);
            // The page is read in place: each header with `header_at`, each name by the emitter.
            let done = folio.with_mapped(0, |page| -> Result<bool> {
                // Resume at the first record at or after `offset` (`ext2_validate_entry`).
                let mut p = offset & !chunk.saturating_sub(1);
                while p < offset {
                    match header_at(page, p) {
                        Ok(h) if h.rec_len != 0 => p = p.saturating_add(h.rec_len),
                        _ => break,
                    }
                }
                // `offset_in_page`: an offset inside the last record of a page wraps to the
                // start of the page, which C then lists again.
                let mut p = p & PAGE.saturating_sub(1);
                if p != offset {
                    emitter.set_pos((n << PAGE_SHIFT).saturating_add(p as u64) as i64);
                }
                while p.saturating_add(rec_len_for(1)) <= last {
                    let EntryHeader {
                        ino,
                        rec_len,
                        name_len,
                        file_type,
                    } = header_at(page, p)?;
                    if rec_len == 0 {
                        ext2_error!(
                            dir.super_block(),
                            "ext2_readdir: zero-length directory entry"
                        );
                        return Err(EIO);
                    }
                    if ino != 0 {
                        let t = dirent_type(has_filetype, file_type);
                        let name = p.saturating_add(DIR_ENTRY_HEADER);
                        let emitted = emitter
                            .emit_mapped(rec_len as i64, page, name, name_len, ino.into(), t)
                            .map_err(|_| EIO)?;
                        if !emitted {
                            return Ok(true);
                        }
                    } else {
                        emitter.set_pos(emitter.pos().saturating_add(rec_len as i64));
                    }
                    p = p.saturating_add(rec_len);
                }
                Ok(false)
            })??;
            if done {
                return Ok(());
            }
            n = n.saturating_add(1);
            offset = 0;
        }
        Ok(())
    }
}

#[kunit_tests(rust_ext2_dir)]
mod tests {
    use super::*;

    /// `EXT2_DIR_REC_LEN`: 8 bytes of header and the name, rounded up to 4.
    #[test]
    fn rec_len_as_c() {
        assert_eq!(rec_len_for(1), 12);
        assert_eq!(rec_len_for(4), 12);
        assert_eq!(rec_len_for(5), 16);
        assert_eq!(rec_len_for(255), 264);
    }

    /// `ext2_rec_len_from_disk`: only 64 KiB pages read 65535 as 65536.
    #[test]
    fn rec_len_from_disk_as_c() {
        assert_eq!(rec_len_from_disk(12), 12);
        let max = if PAGE >= 1 << 16 { 1 << 16 } else { 0xffff };
        assert_eq!(rec_len_from_disk(0xffff), max);
    }
}

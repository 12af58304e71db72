// SPDX-License-Identifier: GPL-2.0

//! Inodes: reading them from the inode table and mapping their blocks (`fs/ext2/inode.c`).

use crate::ext2::{self, DiskInode, Ext2Fs, Ext2Inode, Ext2InodeWriter, Ext2Sb, IData};
use crate::superblock::ext2_error;
use crate::{dir, namei, symlink, xattr};
use kernel::fs::address_space::{
    self, AddressSpaceOperations, AllocRun, BlockAllocator, BlockMapper, BlockRun, LockedFolio,
    WriteFolio,
};
use kernel::fs::buffer;
use kernel::fs::dentry::DEntry;
use kernel::fs::file::File;
use kernel::fs::inode::{
    self, high2low_gid, high2low_uid, mode, statx_attr, AclWalk, Attr, Dev, Evicting, Fiemap,
    FileAttr, FileType, Flags, INode, INodeOperations, Kstat, LockedINode, NewFileAttr, NewINode,
    Timespec, UncountedINode, WritebackControl,
};
use kernel::fs::iomap;
use kernel::fs::ondisk::{Le16, Le32};
use kernel::fs::posix_acl::{self, Acl};
use kernel::fs::sb::SuperBlock;
use kernel::prelude::*;
use kernel::sync::aref::ARef;
use kernel::sync::atomic::{Atomic, Relaxed};
use kernel::transmute::{AsBytes, FromBytes};

/// Inode operations of regular files (`ext2_file_inode_operations`).
pub(crate) struct FileOps;

#[vtable]
impl INodeOperations for FileOps {
    type FileSystem = Ext2Fs;

    fn listxattr(dentry: &DEntry<Ext2Fs>, buf: &mut [u8]) -> Result<usize> {
        xattr::list(dentry, buf)
    }

    fn getattr(inode: &INode<Ext2Fs>, stat: &mut Kstat<'_>) -> Result {
        getattr(inode, stat)
    }

    fn fileattr_get(dentry: &DEntry<Ext2Fs>, fa: &mut FileAttr<'_>) -> Result {
        fileattr_get(dentry, fa)
    }

    fn fileattr_set(
        dentry: &DEntry<Ext2Fs>,
        inode: &mut LockedINode<'_, Ext2Fs>,
        fa: &NewFileAttr<'_>,
    ) -> Result {
        fileattr_set(dentry, inode, fa)
    }

    /// `ext2_fiemap`: the length is clamped to the size (at least 1: `iomap_fiemap` refuses
    /// 0), so that holes past it are not walked block by block.
    /// `ext2_fiemap` (the binding clamps the length to the size, as it does).
    fn fiemap(inode: &INode<Ext2Fs>, fi: &mut Fiemap<'_>, start: u64, len: u64) -> Result {
        iomap::fiemap::<Mapper>(inode, fi, start, len)
    }

    fn setattr(
        dentry: &DEntry<Ext2Fs>,
        inode: &mut LockedINode<'_, Ext2Fs>,
        attr: &mut Attr,
    ) -> Result {
        setattr(dentry, inode, attr)
    }

    fn get_inode_acl(walk: AclWalk<'_, Ext2Fs>, ty: posix_acl::AclType) -> Result<Option<Acl>> {
        crate::acl::get_acl(walk, ty)
    }

    fn set_acl(
        dentry: &DEntry<Ext2Fs>,
        inode: &mut LockedINode<'_, Ext2Fs>,
        acl: Option<&Acl>,
        ty: posix_acl::AclType,
    ) -> Result {
        crate::acl::set_acl(dentry, inode, acl, ty)
    }
}

/// Inode operations of devices, fifos and sockets (`ext2_special_inode_operations`).
struct SpecialOps;

#[vtable]
impl INodeOperations for SpecialOps {
    type FileSystem = Ext2Fs;

    fn listxattr(dentry: &DEntry<Ext2Fs>, buf: &mut [u8]) -> Result<usize> {
        xattr::list(dentry, buf)
    }

    fn getattr(inode: &INode<Ext2Fs>, stat: &mut Kstat<'_>) -> Result {
        getattr(inode, stat)
    }

    fn setattr(
        dentry: &DEntry<Ext2Fs>,
        inode: &mut LockedINode<'_, Ext2Fs>,
        attr: &mut Attr,
    ) -> Result {
        setattr(dentry, inode, attr)
    }

    fn get_inode_acl(walk: AclWalk<'_, Ext2Fs>, ty: posix_acl::AclType) -> Result<Option<Acl>> {
        crate::acl::get_acl(walk, ty)
    }

    fn set_acl(
        dentry: &DEntry<Ext2Fs>,
        inode: &mut LockedINode<'_, Ext2Fs>,
        acl: Option<&Acl>,
        ty: posix_acl::AclType,
    ) -> Result {
        crate::acl::set_acl(dentry, inode, acl, ty)
    }
}

/// The user-visible on-disk flags as `statx` attributes (`ext2_getattr`).
pub(crate) fn getattr(inode: &INode<Ext2Fs>, stat: &mut Kstat<'_>) -> Result {
    let flags = inode.data().flags.load(Relaxed) & ext2::fl::USER_VISIBLE;
    // Tested flag by flag, as C does (this runs for every `stat`).
    let attr = |fl: u32, attr: u64| if flags & fl != 0 { attr } else { 0 };
    stat.add_attributes(
        attr(ext2::fl::APPEND, statx_attr::APPEND)
            | attr(ext2::fl::COMPR, statx_attr::COMPRESSED)
            | attr(ext2::fl::IMMUTABLE, statx_attr::IMMUTABLE)
            | attr(ext2::fl::NODUMP, statx_attr::NODUMP),
        statx_attr::APPEND
            | statx_attr::COMPRESSED
            | statx_attr::ENCRYPTED
            | statx_attr::IMMUTABLE
            | statx_attr::NODUMP,
    );
    Ok(())
}

/// The user-visible on-disk flags for `FS_IOC_GETFLAGS`/`FS_IOC_FSGETXATTR`
/// (`ext2_fileattr_get`).
pub(crate) fn fileattr_get(dentry: &DEntry<Ext2Fs>, fa: &mut FileAttr<'_>) -> Result {
    let inode = dentry.inode().ok_or(ENOENT)?;
    fa.fill_flags(inode.data().flags.load(Relaxed) & ext2::fl::USER_VISIBLE);
    Ok(())
}

/// `ext2_fileattr_set`: the flags users may change replaced by those asked for (extended
/// attributes that flags cannot express are `EOPNOTSUPP`), the VFS flags that follow set, the
/// change time stamped.
pub(crate) fn fileattr_set(
    _dentry: &DEntry<Ext2Fs>,
    inode: &mut LockedINode<'_, Ext2Fs>,
    fa: &NewFileAttr<'_>,
) -> Result {
    if fa.has_fsx() {
        return Err(EOPNOTSUPP);
    }
    let ei = inode.data();
    let old = ei.flags.load(Relaxed);
    let flags = (old & !ext2::fl::USER_MODIFIABLE) | (fa.flags() & ext2::fl::USER_MODIFIABLE);
    ei.flags.store(flags, Relaxed);
    inode.set_flags(vfs_flags(flags));
    inode.set_ctime(Timespec::now());
    inode.mark_dirty();
    Ok(())
}

/// `ext2_setattr`, but for size changes, which come with block freeing (`ext2_setsize`): the
/// change checked, copied into the inode and the inode marked dirty for `write_inode`.
pub(crate) fn setattr(
    dentry: &DEntry<Ext2Fs>,
    inode: &mut LockedINode<'_, Ext2Fs>,
    attr: &mut Attr,
) -> Result {
    attr.prepare(dentry)?;
    if let Some(size) = attr.size().filter(|size| *size != inode.size()) {
        setsize(inode, size)?;
    }
    inode.setattr_copy(attr);
    // `posix_acl_chmod`: the access ACL's entries follow the new mode.
    if attr.mode().is_some() {
        inode.acl_chmod(dentry)?;
    }
    inode.mark_dirty();
    Ok(())
}

/// `ext2_setsize`: the tail of the new last block zeroed in the page cache, the size set and
/// the page cache beyond it dropped, then the blocks beyond it freed, under the invalidate lock.
fn setsize(inode: &mut LockedINode<'_, Ext2Fs>, size: i64) -> Result {
    let ei = inode.data();
    let fmt = ei.mode & mode::S_IFMT;
    if !(fmt == mode::S_IFREG || fmt == mode::S_IFDIR || fmt == mode::S_IFLNK)
        || ei.is_fast_symlink()
    {
        return Err(EINVAL);
    }
    if ei.flags.load(Relaxed) & (ext2::fl::APPEND | ext2::fl::IMMUTABLE) != 0 {
        return Err(EPERM);
    }
    inode.dio_wait();
    address_space::block_truncate_page::<Mapper>(inode, size)?;
    {
        let mut guard = inode.lock_invalidate();
        guard.truncate_setsize(size)?;
        truncate_blocks(&guard, size);
    }
    inode.set_mtime_ctime_now();
    inode.mark_dirty();
    if inode.needs_sync() {
        // C ignores the result too.
        let _ = inode.sync_metadata(true);
    }
    Ok(())
}

/// An array of block numbers: `i_data` or an indirect block.
#[derive(Clone, Copy)]
enum Arr<'a> {
    INode(&'a IData),
    Block(&'a buffer::Head),
}

impl<'a> Arr<'a> {
    /// The array of level `i` of a chain: `i_data`, or the indirect block read for it.
    fn at(data: &'a IData, bhs: &'a [Option<ARef<buffer::Head>>; 4], i: usize) -> Self {
        match bhs.get(i) {
            Some(Some(bh)) => Arr::Block(bh),
            _ => Arr::INode(data),
        }
    }

    /// Entries `from..to` as they are now.
    fn snapshot(&self, from: usize, to: usize) -> Result<KVec<u32>> {
        let n = to.checked_sub(from).ok_or(EINVAL)?;
        let mut v = KVec::with_capacity(n, GFP_KERNEL)?;
        match self {
            Arr::INode(d) => {
                for i in from..to {
                    v.push(d.block(i), GFP_KERNEL)?;
                }
            }
            Arr::Block(bh) => {
                let mut raw = KVec::from_elem(Le32::default(), n, GFP_KERNEL)?;
                bh.read(from.saturating_mul(4), raw.as_mut_slice().as_bytes_mut())?;
                for e in raw.iter() {
                    v.push(e.get(), GFP_KERNEL)?;
                }
            }
        }
        Ok(v)
    }

    fn get(&self, i: usize) -> Result<u32> {
        match self {
            Arr::INode(d) => Ok(d.block(i)),
            Arr::Block(bh) => {
                let mut e = Le32::default();
                bh.read(i.saturating_mul(4), e.as_bytes_mut())?;
                Ok(e.get())
            }
        }
    }

    fn set(&self, i: usize, v: u32) {
        match self {
            Arr::INode(d) => d.set_block(i, v),
            Arr::Block(bh) => {
                let _ = bh.write_record(i.saturating_mul(4), &Le32::new(v));
            }
        }
    }
}

/// `ext2_free_data`: frees the data blocks of entries `from..to` of `arr`, clearing them, in
/// runs of contiguous blocks.
fn free_data(inode: &UncountedINode<Ext2Fs>, arr: Arr<'_>, from: usize, to: usize) {
    let Ok(entries) = arr.snapshot(from, to) else {
        return;
    };
    let (mut start, mut count) = (0u32, 0u32);
    for (i, &nr) in entries.iter().enumerate() {
        if nr == 0 {
            continue;
        }
        arr.set(from.saturating_add(i), 0);
        if count > 0 && start.wrapping_add(count) == nr {
            count = count.saturating_add(1);
            continue;
        }
        if count > 0 {
            crate::balloc::free_blocks(inode, start, count);
            inode.mark_dirty();
        }
        (start, count) = (nr, 1);
    }
    if count > 0 {
        crate::balloc::free_blocks(inode, start, count);
        inode.mark_dirty();
    }
}

/// `ext2_free_branches`: frees the subtrees of `depth` levels of indirect blocks under entries
/// `from..to` of `arr`, clearing them.
fn free_branches(
    inode: &UncountedINode<Ext2Fs>,
    arr: Arr<'_>,
    from: usize,
    to: usize,
    depth: usize,
) {
    let Some(depth) = depth.checked_sub(1) else {
        return free_data(inode, arr, from, to);
    };
    let Ok(entries) = arr.snapshot(from, to) else {
        return;
    };
    for (i, &nr) in entries.iter().enumerate() {
        if nr != 0 {
            arr.set(from.saturating_add(i), 0);
            free_tree(inode, nr, depth);
        }
    }
}

/// Frees indirect block `nr` (detached) and the `depth` levels of branches under it.
fn free_tree(inode: &UncountedINode<Ext2Fs>, nr: u32, depth: usize) {
    let sb = inode.super_block();
    let ptrs = (sb.data().block_size / 4) as usize;
    let Ok(bh) = sb.bread(nr.into()) else {
        // A read failure: reported, and the slot stays cleared (C: "should be rare").
        ext2_error!(sb, "Read failure, inode={}, block={}", inode.ino(), nr);
        return;
    };
    free_branches(inode, Arr::Block(&bh), 0, ptrs, depth);
    buffer::Head::forget(bh);
    crate::balloc::free_blocks(inode, nr, 1);
    inode.mark_dirty();
}

/// `__ext2_truncate_blocks`: frees the blocks of `inode` from offset `offset` (rounded up to
/// a block) on, and the indirect blocks that map only them. The caller checked that the inode
/// maps blocks (a regular file, directory or slow symlink: `setsize`) and holds the inode's
/// `i_rwsem` and invalidate lock, or evicts it; the inode's `truncate_mutex`, taken here,
/// serialises it with allocations (writeback allocates for shared mappings below the size).
#[allow(clippy::arithmetic_side_effects)]
fn truncate_blocks(inode: &UncountedINode<Ext2Fs>, offset: i64) {
    let mut info = Ext2InodeWriter::of(inode).truncate_mutex.lock();
    let sb = inode.super_block();
    let s = sb.data();
    let data = &inode.data().data;
    // `offset` is at most `s_maxbytes` (`setattr_prepare`), below 2^63 - 2^16: the sum does
    // not overflow; the quotient is at most 2^53.
    let iblock = (offset.max(0) as u64 + u64::from(s.block_size) - 1) >> s.blocksize_bits;
    let ptrs_bits = u32::from(s.blocksize_bits) - 2;
    let ptrs = 1usize << ptrs_bits;
    let Some((offsets, n)) = block_to_path(iblock, ptrs_bits) else {
        return;
    };
    let i_data = Arr::INode(data);
    let nd = ext2::EXT2_NDIR_BLOCKS;
    if n == 1 {
        free_data(inode, i_data, offsets[0], nd);
    } else {
        // `ext2_find_shared`: the chain of indirect blocks down to the first block to free.
        // Trailing zero offsets mean whole subtrees go: the chain stops above them.
        let mut k = n;
        while k > 1 && offsets[k - 1] == 0 {
            k -= 1;
        }
        // chain[i]: the array holding entry `offsets[i]` (None: i_data), its offset, the
        // block number it holds; the walk stops at the first hole.
        let mut bhs: [Option<ARef<buffer::Head>>; 4] = [None, None, None, None];
        let mut keys = [0u32; 4];
        let mut pos = offsets;
        keys[0] = data.block(offsets[0]);
        let mut partial = k - 1;
        for i in 1..k {
            if keys[i - 1] == 0 {
                partial = i - 1;
                break;
            }
            let Ok(bh) = sb.bread(keys[i - 1].into()) else {
                partial = i - 1;
                break;
            };
            keys[i] = Arr::Block(&bh).get(offsets[i]).unwrap_or(0);
            bhs[i] = Some(bh);
        }
        // Both only under this inode's locks: nothing allocates meanwhile.
        let mut top = 0u32;
        let mut p = partial;
        while p > 0 {
            let Ok(before) = Arr::at(data, &bhs, p).snapshot(0, pos[p]) else {
                break;
            };
            if before.iter().any(|&e| e != 0) {
                break;
            }
            p -= 1;
        }
        if p == k - 1 && p > 0 {
            // The rest of the leaf block goes, the block stays: free from the entry on.
            pos[p] -= 1;
        } else {
            top = Arr::at(data, &bhs, p).get(pos[p]).unwrap_or(0);
            Arr::at(data, &bhs, p).set(pos[p], 0);
        }
        for b in bhs.iter_mut().take(partial + 1).skip(p + 1) {
            *b = None;
        }
        let partial = p;
        if top != 0 {
            if partial == 0 {
                inode.mark_dirty();
            } else if let Some(bh) = &bhs[partial] {
                let _ = bh.mark_dirty_inode(inode);
            }
            free_top(inode, top, n - 1 - partial);
        }
        // Clear the ends of the indirect blocks on the kept branch.
        for i in (1..=partial).rev() {
            if let Some(bh) = &bhs[i] {
                free_branches(inode, Arr::Block(bh), pos[i] + 1, ptrs, n - 1 - i);
                let _ = bh.mark_dirty_inode(inode);
            }
        }
    }
    // The remaining whole subtrees.
    let first = if n == 1 { nd } else { offsets[0] + 1 };
    for (slot, depth) in [(nd, 1), (nd + 1, 2), (nd + 2, 3)] {
        if slot < first {
            continue;
        }
        let nr = data.block(slot);
        if nr != 0 {
            data.set_block(slot, 0);
            inode.mark_dirty();
            free_top(inode, nr, depth);
        }
    }
    if let Some(rsv) = info.rsv.as_mut() {
        crate::balloc::discard_reservation(s, rsv);
    }
}

/// `ext2_discard_reservation` under the inode's `truncate_mutex`: the last writer closed the
/// file, or it is evicted.
pub(crate) fn discard_reservation(inode: &UncountedINode<Ext2Fs>) {
    let mut info = Ext2InodeWriter::of(inode).truncate_mutex.lock();
    if let Some(rsv) = info.rsv.as_mut() {
        crate::balloc::discard_reservation(inode.super_block().data(), rsv);
    }
}

/// Frees the subtree of `depth` levels of indirect blocks rooted at block `nr` (already
/// detached): `ext2_free_branches(inode, &nr, &nr + 1, depth)`.
fn free_top(inode: &UncountedINode<Ext2Fs>, nr: u32, depth: usize) {
    match depth.checked_sub(1) {
        None => {
            crate::balloc::free_blocks(inode, nr, 1);
            inode.mark_dirty();
        }
        Some(depth) => free_tree(inode, nr, depth),
    }
}

/// `ext2_write_inode`: the inode's fields into its place in the inode table, the buffer marked
/// dirty ([`sync_inode_metadata`] writes it for a data-integrity write).
pub(crate) fn write_inode(inode: &UncountedINode<Ext2Fs>, _wbc: &WritebackControl) -> Result {
    let sb = inode.super_block();
    let s = sb.data();
    let ei = inode.data();
    let ino = inode.ino();
    let (bh, off) = inode_location(sb, ino).map_err(|_| EIO)?;
    // A new inode's fields that the inode does not track are zero, in all of its place.
    let new = ei.state_new.load(Relaxed);
    if new {
        let zeros = [0u8; 256];
        let mut at = 0usize;
        while at < s.inode_size as usize {
            let n = (s.inode_size as usize).saturating_sub(at).min(zeros.len());
            bh.write(off.saturating_add(at), &zeros[..n])?;
            at = at.saturating_add(n);
        }
    }
    let mut bytes = [0u8; ext2::EXT2_GOOD_OLD_INODE_SIZE as usize];
    bh.read(off, &mut bytes)?;
    // `i_faddr`, `i_frag`, `i_fsize` and, but for regular files, `i_dir_acl` stay as read (C
    // writes back what it read; zeros for a new inode).
    let mut raw = DiskInode::from_bytes_copy(&bytes).ok_or(EIO)?;
    let dtime = ei.dtime.load(Relaxed);
    let mode = inode.mode();
    raw.i_mode = Le16::new(mode);
    let (uid, gid) = (inode.uid(), inode.gid());
    if !s.test_opt(ext2::mnt::NO_UID32) {
        // The low and high 16 bits; a deleted inode's high bits are cleared, as C does for
        // old kernels that reuse inodes.
        raw.i_uid = Le16::new(uid as u16);
        raw.i_gid = Le16::new(gid as u16);
        let (uh, gh) = if dtime == 0 {
            ((uid >> 16) as u16, (gid >> 16) as u16)
        } else {
            (0, 0)
        };
        raw.l_i_uid_high = Le16::new(uh);
        raw.l_i_gid_high = Le16::new(gh);
    } else {
        raw.i_uid = Le16::new(high2low_uid(uid));
        raw.i_gid = Le16::new(high2low_gid(gid));
        raw.l_i_uid_high = Le16::new(0);
        raw.l_i_gid_high = Le16::new(0);
    }
    // `cpu_to_le16`/`cpu_to_le32` of C's wider values: the low bits.
    raw.i_links_count = Le16::new(inode.nlink() as u16);
    let size = inode.size();
    raw.i_size = Le32::new(size as u32);
    raw.i_atime = Le32::new(inode.atime().secs as u32);
    raw.i_ctime = Le32::new(inode.ctime().secs as u32);
    raw.i_mtime = Le32::new(inode.mtime().secs as u32);
    raw.i_blocks = Le32::new(inode.blocks() as u32);
    raw.i_dtime = Le32::new(dtime);
    raw.i_flags = Le32::new(ei.flags.load(Relaxed));
    raw.i_file_acl = Le32::new(ei.file_acl.load(Relaxed));
    let fmt = mode & mode::S_IFMT;
    if fmt == mode::S_IFREG {
        raw.i_size_high = Le32::new((size >> 32) as u32);
        if size > 0x7fff_ffff {
            crate::superblock::large_file(s)?;
        }
    }
    raw.i_generation = Le32::new(inode.generation());
    if fmt == mode::S_IFCHR || fmt == mode::S_IFBLK {
        // C re-encodes `i_rdev`: the old encoding where it fits.
        let dev = device(&ei.data);
        match dev.to_old() {
            Some(old) => {
                raw.i_block[0] = Le32::new(old.into());
                raw.i_block[1] = Le32::new(0);
            }
            None => {
                raw.i_block[0] = Le32::new(0);
                raw.i_block[1] = Le32::new(dev.to_new());
                raw.i_block[2] = Le32::new(0);
            }
        }
    } else {
        // Block numbers, or a fast symlink's target as it was on disk.
        raw.i_block = ei.data.to_disk();
    }
    bh.write_record(off, &raw)?;
    bh.mark_dirty()?;
    if new {
        ei.state_new.store(false, Relaxed);
    }
    Ok(())
}

/// `ext2_sync_inode_metadata`: after [`write_inode`] in a data-integrity writeback (`fsync`),
/// the inode's indirect blocks (its metadata buffers) and its inode table block are written and
/// waited for.
pub(crate) fn sync_inode_metadata(inode: &UncountedINode<Ext2Fs>) -> Result {
    let sb = inode.super_block();
    let ino = inode.ino();
    let (bh, _) = inode_location(sb, ino).map_err(|_| EIO)?;
    if let Err(e) = inode.sync_metadata_buffers() {
        ext2_error!(sb, "Error syncing inode metadata ino={}", ino);
        return Err(e);
    }
    if bh.sync().is_err() {
        ext2_error!(sb, "IO error syncing inode {}", ino);
        return Err(EIO);
    }
    Ok(())
}

/// `ext2_evict_inode`: an inode with links left has its indirect blocks written; an unlinked
/// one gets its deletion time written, its blocks and xattr block freed, and, once cleared, its
/// number.
pub(crate) fn evict_inode(evicting: &mut Evicting<'_, Ext2Fs>) {
    let inode = evicting.inode();
    if !evicting.unlinked() {
        let _ = inode.sync_metadata_buffers();
        discard_reservation(inode);
        return;
    }
    let sb = inode.super_block();
    let _intwrite = sb.start_intwrite();
    let ei = inode.data();
    // `ktime_get_real_seconds`, stored as C's 32-bit field.
    ei.dtime.store(Timespec::now().secs as u32, Relaxed);
    evicting.mark_dirty();
    let _ = evicting.sync_metadata(inode.needs_sync());
    evicting.set_size(0);
    let fmt = ei.mode & mode::S_IFMT;
    let maps_blocks = (fmt == mode::S_IFREG || fmt == mode::S_IFDIR || fmt == mode::S_IFLNK)
        && !ei.is_fast_symlink();
    if inode.blocks() != 0 && maps_blocks {
        truncate_blocks(inode, 0);
    }
    xattr::delete_inode(inode);
    evicting.clear();
    discard_reservation(inode);
    crate::ialloc::free_inode(inode);
}

/// The device number of a device inode, from its `i_block` (`ext2_iget`).
fn device(data: &IData) -> Dev {
    match data.block(0) {
        0 => Dev::from_new(data.block(1)),
        old => Dev::from_old(old as u16),
    }
}

/// Finds inode `ino` in its group's inode table (`ext2_get_inode`): the buffer of its block
/// and its offset there.
fn inode_location(sb: &SuperBlock<Ext2Fs>, ino: u64) -> Result<(ARef<buffer::Head>, usize)> {
    let s = sb.data();
    // `ino` is at least 1 (the root, or `first_ino`, which `fill_super` checked), the
    // divisions are by numbers `fill_super` checked to be non-zero, and `offset` is below
    // `inodes_per_group * inode_size` < 2^48.
    let index = ino.checked_sub(1).ok_or(EINVAL)?;
    let ipg = u64::from(s.inodes_per_group);
    let group = index.checked_div(ipg).ok_or(EINVAL)? as usize;
    let gd = s.groups.get(group).ok_or(EIO)?;
    let offset = index
        .checked_rem(ipg)
        .ok_or(EINVAL)?
        .saturating_mul(u64::from(s.inode_size));
    let block = u64::from(gd.inode_table).saturating_add(offset >> s.blocksize_bits);
    let bh = sb.bread(block)?;
    let off = (offset & u64::from(s.block_size).saturating_sub(1)) as usize;
    Ok((bh, off))
}

pub(crate) fn vfs_flags(flags: u32) -> Flags {
    let vfs = |fl: u32, vfs: Flags| if flags & fl != 0 { vfs } else { Flags::NONE };
    vfs(ext2::fl::SYNC, Flags::SYNC)
        | vfs(ext2::fl::APPEND, Flags::APPEND)
        | vfs(ext2::fl::IMMUTABLE, Flags::IMMUTABLE)
        | vfs(ext2::fl::NOATIME, Flags::NOATIME)
        | vfs(ext2::fl::DIRSYNC, Flags::DIRSYNC)
}

#[vtable]
impl AddressSpaceOperations for FileOps {
    type FileSystem = Ext2Fs;

    fn read_folio(_file: Option<&File<Ext2Fs>>, folio: &mut LockedFolio<'_, Ext2Fs>) -> Result {
        address_space::mpage_read_folio::<Mapper>(folio)
    }

    fn readahead(ractl: &mut address_space::ReadaheadControl<'_, Ext2Fs>) {
        address_space::mpage_readahead::<Mapper>(ractl)
    }

    /// `ext2_bmap`.
    fn bmap(inode: &INode<Ext2Fs>, block: u64) -> u64 {
        address_space::generic_block_bmap::<Mapper>(inode, block)
    }

    /// `ext2_writepages`. The page cache is dirtied by writes (`write_begin` allocated the
    /// blocks) and truncates (the rest of the block they keep), whose blocks are mapped.
    fn writepages(inode: &UncountedINode<Ext2Fs>, wbc: &mut WritebackControl) -> Result {
        address_space::mpage_writepages_alloc::<Mapper>(inode, wbc)
    }

    /// `ext2_write_begin`.
    fn write_begin<'a>(
        _file: Option<&File<Ext2Fs>>,
        inode: &mut LockedINode<'a, Ext2Fs>,
        pos: i64,
        len: usize,
    ) -> Result<WriteFolio<'a, Ext2Fs>> {
        let ret = address_space::block_write_begin::<Mapper>(inode, pos, len);
        if ret.is_err() {
            write_failed(inode, pos.saturating_add(len as i64));
        }
        ret
    }

    /// `ext2_write_end`.
    fn write_end<'a>(
        _file: Option<&File<Ext2Fs>>,
        inode: &mut LockedINode<'a, Ext2Fs>,
        folio: WriteFolio<'a, Ext2Fs>,
        pos: i64,
        len: usize,
        copied: usize,
    ) -> Result<usize> {
        let n = folio.generic_write_end(copied);
        if n < len {
            write_failed(inode, pos.saturating_add(len as i64));
        }
        Ok(n)
    }
}

/// `ext2_write_failed`: the blocks a failed or short write allocated past the size are freed.
fn write_failed(inode: &mut LockedINode<'_, Ext2Fs>, to: i64) {
    let size = inode.size();
    if to > size {
        let mut guard = inode.lock_invalidate();
        let _ = guard.truncate_pagecache(size);
        truncate_blocks(&guard, size);
    }
}

impl BlockAllocator for Mapper {
    fn alloc_blocks(inode: &UncountedINode<Ext2Fs>, iblock: u64, max: usize) -> Result<AllocRun> {
        alloc_blocks(inode, iblock, max)
    }

    fn write_failed(inode: &mut LockedINode<'_, Ext2Fs>, to: i64) {
        write_failed(inode, to)
    }
}

/// `ext2_find_near`: the goal for a block whose entry is `off` in `arr` (at level `level` of
/// the chain, in indirect block `ind` if not `i_data`): the block of the nearest entry before
/// it, else the indirect block, else a place in the inode's group chosen by the process id
/// (`colour`).
fn find_near(inode: &UncountedINode<Ext2Fs>, arr: Arr<'_>, off: usize, ind: Option<u64>) -> u64 {
    if let Ok(before) = arr.snapshot(0, off) {
        if let Some(&b) = before.iter().rev().find(|&&b| b != 0) {
            return b.into();
        }
    }
    if let Some(ind) = ind {
        return ind;
    }
    let s = inode.super_block().data();
    let start = crate::balloc::group_range(s, inode.data().block_group).0;
    let pid = u64::from(kernel::current!().pid().unsigned_abs());
    start.saturating_add((pid % 16).saturating_mul(u64::from(s.blocks_per_group / 16)))
}

/// Maps logical block `iblock` of `inode`, allocating it and the indirect blocks that lead to
/// it if it is a hole (`ext2_get_blocks` with `create`): at most `max` blocks, up to the end of
/// the array that maps the first (`ext2_blks_to_allocate`), goal-directed (`ext2_find_goal`),
/// the new indirect blocks zeroed and filled before they are linked (`ext2_alloc_branch`), the
/// branch linked last (`ext2_splice_branch`), so that lock-free readers see a hole or the whole
/// branch. The inode's `truncate_mutex` serialises it with other allocations (writeback of
/// shared mappings allocates too, with no lock of the inode) and with truncate.
#[allow(clippy::arithmetic_side_effects)]
fn alloc_blocks(inode: &UncountedINode<Ext2Fs>, iblock: u64, max: usize) -> Result<AllocRun> {
    let mut chain = Chain::default();
    if let Some(run) = walk(inode, iblock, max, Some(&mut chain))? {
        return Ok(AllocRun { run, new: false });
    }
    let mut info = Ext2InodeWriter::of(inode).truncate_mutex.lock();
    let sb = inode.super_block();
    let s = sb.data();
    let data = &inode.data().data;
    if !matches!(data, IData::Blocks(_)) {
        return Err(EIO);
    }
    // `blocksize_bits` is 10 to 16: `ptrs_bits` 8 to 14. Offsets are below `ptrs`, `depth` 1
    // to 4, `partial` below `depth`, `num` at most `count`, which is at most `final - off`.
    let ptrs_bits = u32::from(s.blocksize_bits) - 2;
    let (offsets, depth) = block_to_path(iblock, ptrs_bits).ok_or(EIO)?;
    let last = if depth == 1 {
        ext2::EXT2_NDIR_BLOCKS
    } else {
        1 << ptrs_bits
    };
    let to_boundary = last - 1 - offsets[depth - 1];
    // `verify_chain`: the entries the walk read without the mutex are still there, the hole
    // included, so no truncate or other allocation changed the chain meanwhile; else, as C,
    // `ext2_get_branch` again, down to the first missing entry.
    let verified = chain.partial.filter(|&partial| {
        (0..=partial).all(|i| {
            let now = match &chain.bhs[i] {
                Some(bh) if i > 0 => Arr::Block(bh).get(offsets[i]).ok(),
                None if i == 0 => Some(data.block(offsets[0])),
                _ => None,
            };
            now == Some(chain.keys[i])
        })
    });
    let (mut bhs, mut partial, mut key) = match verified {
        Some(partial) => (core::mem::take(&mut chain.bhs), partial, 0),
        None => ([None, None, None, None], 0, data.block(offsets[0])),
    };
    while key != 0 && partial + 1 < depth {
        let bh = sb.bread(key.into())?;
        partial += 1;
        key = Arr::Block(&bh).get(offsets[partial])?;
        bhs[partial] = Some(bh);
    }
    if key != 0 {
        // Mapped meanwhile by another allocation (C's second `ext2_get_branch`, under the
        // mutex, finds the whole chain).
        let run = map_blocks(inode, iblock, max)?.ok_or(EIO)?;
        return Ok(AllocRun { run, new: false });
    }
    let arr = Arr::at(data, &bhs, partial);
    let off = offsets[partial];
    let ei = inode.data();
    let is_reg = ei.is_reg();
    // `ext2_init_block_alloc_info`, with the first allocation of a regular file.
    if is_reg && info.rsv.is_none() {
        let goal_size = if sb.data().test_opt(ext2::mnt::RESERVATION) {
            crate::balloc::DEFAULT_RESERVE_BLOCKS
        } else {
            0
        };
        info.rsv = Some(crate::balloc::Rsv {
            goal_size,
            ..Default::default()
        });
    }
    // `ext2_find_goal`.
    let phys = info.last_alloc_physical;
    let goal = if is_reg && phys != 0 && iblock == info.last_alloc_logical.wrapping_add(1) {
        u64::from(phys) + 1
    } else {
        let ind = bhs[partial].as_ref().map(|bh| bh.block());
        find_near(inode, arr, off, ind)
    };
    let indirect = depth - partial - 1;
    // `ext2_blks_to_allocate`.
    let max = max.max(1);
    let count = if indirect > 0 {
        max.min(to_boundary + 1)
    } else {
        let mut count = 1;
        while count < max && count <= to_boundary && arr.get(off + count)? == 0 {
            count += 1;
        }
        count
    };
    let (new, num) = alloc_new_blocks(inode, goal, indirect, count as u32, info.rsv.as_mut())?;
    if let Err(e) = alloc_branch(inode, &offsets[partial..depth], &new, indirect, num) {
        for &b in new.iter().take(indirect) {
            crate::balloc::free_blocks(inode, b, 1);
        }
        crate::balloc::free_blocks(inode, new[indirect], num);
        return Err(e);
    }
    // `ext2_splice_branch`: the top of the new branch (and, without a new indirect block, the
    // other data blocks) into the existing array, last.
    arr.set(off, new[0]);
    if indirect == 0 {
        for i in 1..num {
            arr.set(off + i as usize, new[0] + i);
        }
    }
    if is_reg {
        info.last_alloc_logical = iblock + u64::from(num) - 1;
        info.last_alloc_physical = new[indirect] + num - 1;
    }
    if let Some(bh) = &bhs[partial] {
        bh.mark_dirty_inode(inode)?;
    }
    inode.set_ctime_now();
    inode.mark_dirty();
    Ok(AllocRun {
        run: BlockRun {
            block: new[indirect].into(),
            count: num as usize,
            boundary: num as usize > to_boundary,
        },
        new: true,
    })
}

/// `ext2_alloc_blocks`: `indirect` indirect blocks and up to `count` data blocks from `goal`,
/// allocated until at least one data block is. Returns the indirect blocks then the first data
/// block, and the number of data blocks (contiguous from it).
#[allow(clippy::arithmetic_side_effects)]
fn alloc_new_blocks(
    inode: &UncountedINode<Ext2Fs>,
    goal: u64,
    indirect: usize,
    count: u32,
    mut rsv: Option<&mut crate::balloc::Rsv>,
) -> Result<([u32; 4], u32)> {
    let mut new = [0u32; 4];
    // At most 3 indirect blocks and `count` data blocks.
    let mut target = count + indirect as u32;
    let mut index = 0;
    loop {
        let (mut block, mut got) =
            match crate::balloc::new_blocks(inode, goal, target, rsv.as_deref_mut()) {
                Ok(r) => r,
                Err(e) => {
                    for &b in new.iter().take(index) {
                        crate::balloc::free_blocks(inode, b, 1);
                    }
                    if index > 0 {
                        inode.mark_dirty();
                    }
                    return Err(e);
                }
            };
        target -= got;
        while index < indirect && got > 0 {
            new[index] = block;
            index += 1;
            block += 1;
            got -= 1;
        }
        if got > 0 {
            new[index] = block;
            return Ok((new, got));
        }
    }
}

/// `ext2_alloc_branch`'s buffers: new indirect block `new[n - 1]` gets entry `offsets[n]` =
/// `new[n]` for each level, and the last one the `num` data blocks from `new[indirect]`; each
/// zeroed, filled and marked up to date under its lock, then dirty. On failure the buffers made
/// are forgotten; the caller frees the blocks.
#[allow(clippy::arithmetic_side_effects)]
fn alloc_branch(
    inode: &UncountedINode<Ext2Fs>,
    offsets: &[usize],
    new: &[u32; 4],
    indirect: usize,
    num: u32,
) -> Result {
    let sb = inode.super_block();
    let mut made = KVec::with_capacity(indirect, GFP_KERNEL)?;
    for n in 1..=indirect {
        let fill = || -> Result<ARef<buffer::Head>> {
            let off = *offsets.get(n).ok_or(EIO)?;
            let bh = sb.getblk(new[n - 1].into())?;
            {
                let locked = bh.lock();
                locked.zero();
                let entries = if n == indirect { num } else { 1 };
                for i in 0..entries {
                    locked.write_record((off + i as usize) * 4, &Le32::new(new[n] + i))?;
                }
                locked.set_uptodate();
            }
            bh.mark_dirty_inode(inode)?;
            Ok(bh)
        };
        match fill() {
            Ok(bh) => made.push(bh, GFP_KERNEL)?,
            Err(e) => {
                for bh in made.drain_all() {
                    buffer::Head::forget(bh);
                }
                return Err(e);
            }
        }
    }
    Ok(())
}

/// Block mapper for reads (`ext2_get_block` without `create`): `ext2_iomap_ops` for FIEMAP and
/// direct I/O.
pub(crate) struct Mapper;

impl BlockMapper for Mapper {
    type FileSystem = Ext2Fs;

    fn map_blocks(
        inode: &UncountedINode<Ext2Fs>,
        iblock: u64,
        max: usize,
    ) -> Result<Option<BlockRun>> {
        map_blocks(inode, iblock, max)
    }
}

/// Returns whether `block` is a valid data block number of the file system.
fn block_valid(s: &Ext2Sb, block: u32) -> bool {
    block >= s.first_data_block && block < s.blocks_count
}

/// Returns whether `block` may hold file data, as `ext2_data_block_valid` (count 1): after the
/// first data block, inside the file system, and not block 1 (`s_sb_block`, the superblock
/// location in 1 KiB units, which C compares with block numbers of any size).
fn data_block_valid(s: &Ext2Sb, block: u32) -> bool {
    const SB_BLOCK: u32 = 1;
    block > s.first_data_block && block < s.blocks_count && block != SB_BLOCK
}

/// Fails with `EIO` (and logs it) if `block`, mapped by `inode`, is not a data block number.
fn check_block(inode: &UncountedINode<Ext2Fs>, block: u32) -> Result {
    if block_valid(inode.super_block().data(), block) {
        return Ok(());
    }
    pr_err!(
        "error: inode {}: block {} out of range\n",
        inode.ino(),
        block
    );
    Err(EIO)
}

/// How many entries of an indirect block [`map_blocks`] copies at a time.
const WINDOW: usize = 64;

/// Returns the offsets from `i_block` down to the entry that maps logical block `iblock`, and
/// their number (`ext2_block_to_path`), for blocks of `1 << ptrs_bits` entries; `None` beyond
/// what the triple indirect block maps.
#[allow(clippy::arithmetic_side_effects)]
fn block_to_path(iblock: u64, ptrs_bits: u32) -> Option<([usize; 4], usize)> {
    let ptrs = 1u64 << ptrs_bits;
    let direct = ext2::EXT2_NDIR_BLOCKS as u64;
    let mut path = [0usize; 4];
    let mut i = iblock;
    if i < direct {
        path[0] = i as usize;
        return Some((path, 1));
    }
    i -= direct;
    if i < ptrs {
        path[0] = ext2::EXT2_NDIR_BLOCKS;
        path[1] = i as usize;
        return Some((path, 2));
    }
    i -= ptrs;
    if i < ptrs * ptrs {
        path[0] = ext2::EXT2_NDIR_BLOCKS + 1;
        path[1] = (i >> ptrs_bits) as usize;
        path[2] = (i & (ptrs - 1)) as usize;
        return Some((path, 3));
    }
    i -= ptrs * ptrs;
    if (i >> (2 * ptrs_bits)) >= ptrs {
        return None;
    }
    path[0] = ext2::EXT2_NDIR_BLOCKS + 2;
    path[1] = (i >> (2 * ptrs_bits)) as usize;
    path[2] = ((i >> ptrs_bits) & (ptrs - 1)) as usize;
    path[3] = (i & (ptrs - 1)) as usize;
    Some((path, 4))
}

/// Maps logical block `iblock` of `inode` (`ext2_block_to_path` + `ext2_get_branch`).
///
/// Returns `None` for holes, or the device block, the number of contiguous device blocks (at
/// most `max`) that the following logical blocks map to, and whether the run reaches the end of
/// its block array.
///
/// The arithmetic cannot overflow: `blocksize_bits` is 10 to 16 (checked by `fill_super`), so
/// `ptrs_bits` is 8 to 14, `ptrs` at most 2^14 and `ptrs * ptrs` at most 2^28; every subtraction
/// from `i` follows the comparison that keeps it non-negative, shifts are by less than 64 bits,
/// `off + n` is at most `EXT2_NDIR_BLOCKS` or `ptrs` (at most 2^14), `off * 4` below 2^16 and
/// `level` is below `depth` (at least 1); in an indirect block `base <= off + n < ptrs`, `n < max`
/// where `max - n` is computed, and `have` (at most `WINDOW`) is the number of entries read from
/// `base` on.
pub(crate) fn map_blocks(
    inode: &UncountedINode<Ext2Fs>,
    iblock: u64,
    max: usize,
) -> Result<Option<BlockRun>> {
    walk(inode, iblock, max, None)
}

/// The chain of entries a lock-free walk read down to a hole (the `Indirect` chain of
/// `ext2_get_branch`): the indirect blocks read (`bhs[i]` holds the entry of level `i`, level 0
/// being `i_data`), the entries read (`keys`), and the level of the first zero (`partial`), if
/// the walk ended at one.
#[derive(Default)]
struct Chain {
    bhs: [Option<ARef<buffer::Head>>; 4],
    keys: [u32; 4],
    partial: Option<usize>,
}

/// [`map_blocks`], recording in `chain` the entries it read down to a hole, for an allocation
/// to check under the inode's `truncate_mutex` instead of walking again (`verify_chain`).
#[allow(clippy::arithmetic_side_effects)]
fn walk(
    inode: &UncountedINode<Ext2Fs>,
    iblock: u64,
    max: usize,
    mut chain: Option<&mut Chain>,
) -> Result<Option<BlockRun>> {
    let sb = inode.super_block();
    let s = sb.data();
    let data = &inode.data().data;
    let ptrs_bits = u32::from(s.blocksize_bits) - 2;
    let ptrs = 1u64 << ptrs_bits;

    // The path of offsets from i_block down to the leaf array.
    let Some((path, depth)) = block_to_path(iblock, ptrs_bits) else {
        // Beyond the triple indirect block: nothing can be mapped there.
        return Ok(None);
    };

    // As `ext2_get_blocks`: the run ends at the last entry of `i_block`'s direct blocks or of
    // the leaf indirect block (`blocks_to_boundary`), where the next block is mapped through an
    // indirect block that may have to be read; reaching it is the boundary.
    if depth == 1 {
        let off = path[0];
        let b = data.block(off);
        if b == 0 {
            if let Some(c) = chain {
                c.partial = Some(0);
            }
            return Ok(None);
        }
        check_block(inode, b)?;
        let mut n = 1;
        while n < max
            && off + n < ext2::EXT2_NDIR_BLOCKS
            && data.block(off + n) == b.wrapping_add(n as u32)
        {
            n += 1;
        }
        return Ok(Some(BlockRun {
            block: b.into(),
            count: n,
            boundary: off + n == ext2::EXT2_NDIR_BLOCKS,
        }));
    }

    let mut b = data.block(path[0]);
    if let Some(c) = chain.as_deref_mut() {
        c.keys[0] = b;
    }
    for (level, &off) in path.iter().enumerate().take(depth).skip(1) {
        if b == 0 {
            if let Some(c) = chain {
                c.partial = Some(level - 1);
            }
            return Ok(None);
        }
        check_block(inode, b)?;
        let bh = sb.bread(b.into())?;
        // Only the entries needed are copied out of the buffer (`buffer::Head::read`): the one at
        // `off` and, at the leaf level, the run that follows it, `WINDOW` entries at a time.
        let mut entry = Le32::default();
        bh.read(off * 4, entry.as_bytes_mut()).map_err(|_| EIO)?;
        let next = entry.get();
        if let Some(c) = chain.as_deref_mut() {
            c.keys[level] = next;
            if next == 0 || level < depth - 1 {
                c.bhs[level] = Some(bh.clone());
            }
        }
        if level < depth - 1 {
            b = next;
            continue;
        }
        if next == 0 {
            if let Some(c) = chain {
                c.partial = Some(level);
            }
            return Ok(None);
        }
        check_block(inode, next)?;
        let ptrs = ptrs as usize;
        let mut win = [Le32::default(); WINDOW];
        let (mut base, mut have) = (off + 1, 0);
        let mut n = 1;
        while n < max && off + n < ptrs {
            if off + n - base == have {
                base = off + n;
                // Only as many entries as the run may still take.
                have = (ptrs - base).min(WINDOW).min(max - n);
                let win = win.get_mut(..have).ok_or(EIO)?;
                bh.read(base * 4, win.as_bytes_mut()).map_err(|_| EIO)?;
            }
            if win.get(off + n - base).map(|e| e.get()) != Some(next.wrapping_add(n as u32)) {
                break;
            }
            n += 1;
        }
        return Ok(Some(BlockRun {
            block: next.into(),
            count: n,
            boundary: off + n == ptrs,
        }));
    }
    Ok(None)
}

/// Returns inode `ino`, reading it from the inode table if it is not cached (`ext2_iget`).
/// Sets the operations of an inode of type `fmt` (`fast`: a symbolic link with its target in
/// `i_block`), as `ext2_iget` and the creating calls of `namei.c` set them.
pub(crate) fn set_ops(new: &mut NewINode<Ext2Fs>, fmt: u16, fast: bool) {
    match fmt {
        mode::S_IFREG => {
            new.set_inode_ops::<FileOps>()
                .set_file_ops::<crate::file::FileFops>()
                .set_aops::<FileOps>();
        }
        mode::S_IFDIR => {
            new.set_inode_ops::<namei::DirOps>()
                .set_file_ops::<dir::DirOps>()
                .set_aops::<FileOps>();
        }
        mode::S_IFLNK if fast => {
            new.set_inode_ops::<symlink::FastSymlink>();
        }
        mode::S_IFLNK => {
            new.set_inode_ops::<symlink::SlowSymlink>()
                .set_aops::<FileOps>();
        }
        _ => {
            new.set_inode_ops::<SpecialOps>();
        }
    }
}

pub(crate) fn iget(sb: &SuperBlock<Ext2Fs>, ino: u64) -> Result<ARef<INode<Ext2Fs>>> {
    let s = sb.data();
    if (ino != ext2::EXT2_ROOT_INO && ino < u64::from(s.first_ino)) || ino > s.inodes_count.into() {
        ext2_error!(sb, "bad inode number: {}", ino);
        return Err(EINVAL);
    }
    sb.iget(ino, |new| read_inode(sb, ino, new))
}

/// Reads inode `ino` from its group's inode table into the new inode (`ext2_iget`'s body).
fn read_inode(
    sb: &SuperBlock<Ext2Fs>,
    ino: u64,
    new: &mut NewINode<Ext2Fs>,
) -> Result<inode::INodeParams<Ext2Fs>> {
    let s = sb.data();

    let (bh, off) = inode_location(sb, ino)?;
    let mut bytes = [0u8; ext2::EXT2_GOOD_OLD_INODE_SIZE as usize];
    bh.read(off, &mut bytes).map_err(|_| EIO)?;
    let raw = DiskInode::from_bytes(&bytes).ok_or(EIO)?;

    let mode = raw.i_mode.get();
    // With `nouid32` (or `EXT2_DEFM_UID16`) the high 16 bits are ignored.
    let uid32 = !s.test_opt(ext2::mnt::NO_UID32);
    let high = |h: Le16| match uid32 {
        true => u32::from(h.get()) << 16,
        false => 0,
    };
    let uid = u32::from(raw.i_uid.get()) | high(raw.l_i_uid_high);
    let gid = u32::from(raw.i_gid.get()) | high(raw.l_i_gid_high);
    let nlink = u32::from(raw.i_links_count.get());
    let dtime = raw.i_dtime.get();
    if nlink == 0 {
        if mode == 0 || dtime != 0 {
            // A deleted inode.
            return Err(ESTALE);
        }
        ext2_error!(
            sb,
            "inode {} has zero i_nlink with mode 0{:o} and no dtime, filesystem may be corrupt",
            ino,
            mode
        );
        return Err(EUCLEAN);
    }
    let file_acl = raw.i_file_acl.get();
    if file_acl != 0 && !data_block_valid(s, file_acl) {
        ext2_error!(sb, "bad extended attribute block {}", file_acl);
        return Err(EUCLEAN);
    }
    let fmt = mode & mode::S_IFMT;
    let mut size = i64::from(raw.i_size.get());
    if fmt == mode::S_IFREG {
        size |= i64::from(raw.i_size_high.get()) << 32;
    }
    if size < 0 {
        pr_err!("error: inode {} has a negative size\n", ino);
        return Err(EUCLEAN);
    }
    let blocks = raw.i_blocks.get();
    // Signed 32-bit seconds, as C's `(signed)le32_to_cpu(...)`.
    let time = |t: Le32| Timespec {
        secs: i64::from(t.get() as i32),
        nsecs: 0,
    };
    let (atime, ctime, mtime) = (time(raw.i_atime), time(raw.i_ctime), time(raw.i_mtime));
    let generation = raw.i_generation.get();
    let flags = raw.i_flags.get();

    // The operations of each kind of inode, as `ext2_iget` sets them.
    // `i_data` as block numbers; a fast symlink keeps its bytes instead (`link`).
    let i_data = IData::Blocks(raw.i_block.map(|b| Atomic::new(b.get())));
    let mut link = None;
    let fast =
        fmt == mode::S_IFLNK && ext2::Ext2Inode::fast_symlink(blocks, file_acl, s.block_size);
    let typ = match fmt {
        mode::S_IFREG => FileType::Reg,
        mode::S_IFDIR => FileType::Dir,
        mode::S_IFLNK => {
            if fast {
                // Fast symlink: the target is in i_block, which keeps its bytes as on disk
                // with a NUL at the size (or at its last byte), as C's `nd_terminate_link`
                // (and `write_inode` writes them back so).
                let len = (size as usize).min(4 * ext2::EXT2_N_BLOCKS - 1);
                let mut bytes = [0u8; 4 * ext2::EXT2_N_BLOCKS];
                bytes.copy_from_slice(raw.i_block.as_bytes());
                if let Some(c) = bytes.get_mut(len) {
                    *c = 0;
                }
                link = Some(bytes);
            }
            FileType::Lnk
        }
        mode::S_IFCHR => FileType::Chr(device(&i_data)),
        mode::S_IFBLK => FileType::Blk(device(&i_data)),
        mode::S_IFIFO => FileType::Fifo,
        mode::S_IFSOCK => FileType::Sock,
        _ => {
            pr_err!("error: inode {} has bad mode 0{:o}\n", ino, mode);
            return Err(EUCLEAN);
        }
    };
    set_ops(new, fmt, fast);
    drop(bh);

    Ok(inode::INodeParams {
        typ,
        mode: mode & 0o7777,
        size,
        blocks: blocks.into(),
        nlink,
        uid,
        gid,
        ctime,
        mtime,
        atime,
        generation,
        flags: vfs_flags(flags),
        value: Ext2Inode {
            data: link.map_or(i_data, IData::Link),
            file_acl: Atomic::new(file_acl),
            blocks,
            mode,
            flags: Atomic::new(flags),
            dir_start_lookup: Atomic::new(0),
            // `ino` is at least 1 and `inodes_per_group` not 0 (`iget`, `fill_super`).
            block_group: ino
                .saturating_sub(1)
                .checked_div(s.inodes_per_group.into())
                .unwrap_or(0) as u32,
            dtime: Atomic::new(dtime),
            state_new: Atomic::new(false),
        },
    })
}

#[kunit_tests(rust_ext2_inode)]
mod tests {
    use super::*;

    /// The paths at each boundary of the direct, indirect, double and triple indirect blocks,
    /// for 1 KiB blocks (256 entries per block) and 4 KiB blocks (1024).
    #[test]
    fn block_paths() {
        for bits in [8u32, 10] {
            let p = 1u64 << bits;
            let n = p as usize;
            let d = ext2::EXT2_NDIR_BLOCKS;
            let cases = [
                (0, Some(([0, 0, 0, 0], 1))),
                (11, Some(([11, 0, 0, 0], 1))),
                (12, Some(([d, 0, 0, 0], 2))),
                (12 + p - 1, Some(([d, n - 1, 0, 0], 2))),
                (12 + p, Some(([d + 1, 0, 0, 0], 3))),
                (12 + p + p * p - 1, Some(([d + 1, n - 1, n - 1, 0], 3))),
                (12 + p + p * p, Some(([d + 2, 0, 0, 0], 4))),
                (
                    12 + p + p * p + p * p * p - 1,
                    Some(([d + 2, n - 1, n - 1, n - 1], 4)),
                ),
                (12 + p + p * p + p * p * p, None),
                (u64::MAX, None),
            ];
            for (iblock, want) in cases {
                assert_eq!(block_to_path(iblock, bits), want);
            }
        }
    }
}

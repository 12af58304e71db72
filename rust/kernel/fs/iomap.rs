// SPDX-License-Identifier: GPL-2.0

//! iomap for readers: the block mapping of a [`BlockMapper`] as `struct iomap_ops`, for `FIEMAP`
//! ([`fiemap`]) and direct I/O reads ([`DirectIo`]).
//!
//! Every mapping is read-only: a write asks for `EROFS`. Without `CONFIG_FS_IOMAP` the kernel
//! has no iomap, and both fail with `EOPNOTSUPP`.
// patch: diow
//!
//! Direct writes map with a [`BlockAllocator`] ([`DirectIo::new_writing`]), as
//! `ext2_dio_write_iter` does.
// patch: end
//!
//! C header: [`include/linux/iomap.h`](srctree/include/linux/iomap.h)

use super::{address_space::BlockMapper, inode::INode, inode::INodeOperations, FileSystem};
// patch: diow
use super::address_space::{AllocRun, BlockAllocator};
use super::inode::{LockedINode, UncountedINode};
// patch: end
use crate::bindings;
use crate::error::Result;
use crate::prelude::*;
use core::marker::PhantomData;

/// The `struct iomap_ops` of a [`BlockMapper`]: each mapping is the run of contiguous blocks the
/// mapper returns (`IOMAP_MAPPED`, `IOMAP_F_MERGED`), or one block of hole (`IOMAP_HOLE`), as
/// `ext2_iomap_begin` does. Built at compile time; its callback maps any inode of
/// `M::FileSystem`.
struct BlockMapperIomap<M>(PhantomData<M>);

impl<M: BlockMapper> BlockMapperIomap<M> {
    const VTABLE: bindings::iomap_ops = bindings::iomap_ops {
        iomap_begin: Some(Self::begin_callback),
        iomap_end: None,
        iomap_next: None,
    };

    /// # Safety
    ///
    /// `iomap_begin`: `inode` is a referenced inode of `M::FileSystem` (the table is
    /// only used for its inodes), `iomap` is valid for write.
    unsafe extern "C" fn begin_callback(
        inode: *mut bindings::inode,
        offset: bindings::loff_t,
        length: bindings::loff_t,
        flags: c_uint,
        iomap: *mut bindings::iomap,
        _srcmap: *mut bindings::iomap,
    ) -> c_int {
        if flags & bindings::IOMAP_WRITE != 0 {
            return EROFS.to_errno();
        }
        // SAFETY: See the safety section.
        let (bits, bdev, first, max) = match unsafe { request(inode, offset, length) } {
            Ok(r) => r,
            Err(e) => return e.to_errno(),
        };
        // SAFETY: See the safety section.
        let inode = unsafe { INode::<M::FileSystem>::from_raw(inode) };
        let mapped = match M::map_blocks(inode, first, max) {
            Ok(m) => m,
            Err(e) => return e.to_errno(),
        };
        // SAFETY: `iomap` is valid for write.
        match unsafe { fill(&mut *iomap, first, max, bits, bdev, mapped) } {
            Ok(()) => 0,
            Err(e) => e.to_errno(),
        }
    }

    /// Returns the table.
    #[inline]
    const fn build() -> &'static bindings::iomap_ops {
        &Self::VTABLE
    }
}
// patch: diow

/// The `struct iomap_ops` of direct writes mapped by a [`BlockAllocator`], as `ext2_iomap_ops`
/// maps them: below the size only blocks that are mapped already are written (a hole there
/// sends the write to the page cache, `ENOTBLK`: filling it directly would let racing readers see
/// the block's stale contents before the data lands); from the size on, blocks are allocated,
/// and new ones are `IOMAP_F_NEW` (iomap zeroes what the write does not cover). A mapping of
/// which nothing was written also sends the rest to the page cache, and after a short one the
/// blocks allocated past the size are freed ([`BlockAllocator::write_failed`]).
struct AllocatorIomap<A>(PhantomData<A>);

impl<A: BlockAllocator> AllocatorIomap<A> {
    const VTABLE: bindings::iomap_ops = bindings::iomap_ops {
        iomap_begin: Some(Self::begin_callback),
        iomap_end: Some(Self::end_callback),
        iomap_next: None,
    };

    /// # Safety
    ///
    /// `iomap_begin` of a direct write of [`DirectIo::write`]: `inode` is a referenced inode of
    /// `A::FileSystem` whose `i_rwsem` the caller holds exclusively, `iomap` is valid for write.
    unsafe extern "C" fn begin_callback(
        inode: *mut bindings::inode,
        offset: bindings::loff_t,
        length: bindings::loff_t,
        flags: c_uint,
        iomap: *mut bindings::iomap,
        srcmap: *mut bindings::iomap,
    ) -> c_int {
        if flags & bindings::IOMAP_WRITE == 0 {
            // SAFETY: The requirements of the read table's callback are a subset of ours.
            return unsafe {
                BlockMapperIomap::<A>::begin_callback(inode, offset, length, flags, iomap, srcmap)
            };
        }
        // SAFETY: See the safety section.
        let (bits, bdev, first, max) = match unsafe { request(inode, offset, length) } {
            Ok(r) => r,
            Err(e) => return e.to_errno(),
        };
        // SAFETY: See the safety section.
        let inode = unsafe { UncountedINode::<A::FileSystem>::from_raw(inode) };
        // Blocks are created from the size on only (`DIO_SKIP_HOLES`). The size is stable: the
        // writer holds the `i_rwsem`.
        let create = (first << bits) >= inode.size() as u64;
        let mapped = if create {
            A::alloc_blocks(inode, first, max).map(|AllocRun { run, new }| Some((run, new)))
        } else {
            A::map_blocks(inode, first, max).map(|m| m.map(|run| (run, false)))
        };
        let (run, new) = match mapped {
            Ok(Some(m)) => m,
            // A hole below the size: to the page cache.
            Ok(None) => return ENOTBLK.to_errno(),
            Err(e) => return e.to_errno(),
        };
        // SAFETY: `iomap` is valid for write.
        let iomap = unsafe { &mut *iomap };
        if let Err(e) = fill(iomap, first, max, bits, bdev, Some(run)) {
            return e.to_errno();
        }
        if new {
            iomap.flags |= bindings::IOMAP_F_NEW as u16;
        }
        0
    }

    /// # Safety
    ///
    /// `iomap_end` after [`Self::begin_callback`], with the same guarantees.
    unsafe extern "C" fn end_callback(
        inode: *mut bindings::inode,
        offset: bindings::loff_t,
        length: bindings::loff_t,
        written: isize,
        flags: c_uint,
        iomap: *mut bindings::iomap,
    ) -> c_int {
        let write = flags & bindings::IOMAP_WRITE != 0;
        if write && flags & bindings::IOMAP_DIRECT != 0 && written == 0 {
            // Nothing written (an error): the blocks allocated serve the page cache's write.
            return ENOTBLK.to_errno();
        }
        // SAFETY: `iomap` is valid (safety requirements).
        let mapped = unsafe { (*iomap).type_ } == bindings::IOMAP_MAPPED as u16;
        if write && mapped && (written as i64) < length {
            // SAFETY: `inode` is referenced, of `A::FileSystem`, and its `i_rwsem` held
            // exclusively by the writer for the call (safety requirements).
            let mut locked = unsafe { LockedINode::new(INode::from_raw(inode)) };
            A::write_failed(&mut locked, offset.saturating_add(length));
        }
        0
    }

    /// Returns the table.
    #[inline]
    const fn build() -> &'static bindings::iomap_ops {
        &Self::VTABLE
    }

    /// # Safety
    ///
    /// `inode` is a referenced inode of `A::FileSystem` whose `i_rwsem` the caller holds
    /// exclusively.
    unsafe fn write_failed(inode: *mut bindings::inode, to: i64) {
        // SAFETY: See the safety section.
        let mut locked = unsafe { LockedINode::new(INode::<A::FileSystem>::from_raw(inode)) };
        A::write_failed(&mut locked, to);
    }
}

/// `end_io` of direct writes (`ext2_dio_write_end_io`): a write that ended past the size sets
/// it. Such writes are synchronous ([`DirectIo::write`] asks for `IOMAP_DIO_FORCE_WAIT`), so this
/// runs under the writer's `i_rwsem`, before `iomap_dio_rw` drops the page cache there.
///
/// # Safety
///
/// `iocb` is the valid request of a direct write of [`DirectIo::write`].
#[cfg(CONFIG_FS_IOMAP)]
unsafe extern "C" fn dio_write_end_io(
    iocb: *mut bindings::kiocb,
    size: isize,
    error: c_int,
    _flags: c_uint,
) -> c_int {
    if error != 0 {
        return error;
    }
    // SAFETY: `iocb` is valid; its file holds a reference to the inode. A write past the size
    // holds the `i_rwsem` (see above); one within it changes nothing.
    unsafe {
        let inode = (*(*(*iocb).ki_filp).f_mapping).host;
        let pos = (*iocb).ki_pos.saturating_add(size as i64);
        if pos > bindings::i_size_read(inode) {
            bindings::i_size_write(inode, pos);
            bindings::mark_inode_dirty(inode);
        }
    }
    0
}

#[cfg(CONFIG_FS_IOMAP)]
const DIO_WRITE_OPS: bindings::iomap_dio_ops = bindings::iomap_dio_ops {
    end_io: Some(dio_write_end_io),
    submit_io: None,
    bio_set: core::ptr::null_mut(),
};
// patch: end

/// The block size (in bits), the device, the first block and the number of blocks of the
/// `length` bytes from `offset` that iomap asks to map (`EINVAL` for negative ones).
///
/// # Safety
///
/// `inode` must be a valid inode.
unsafe fn request(
    inode: *mut bindings::inode,
    offset: bindings::loff_t,
    length: bindings::loff_t,
) -> Result<(u32, *mut bindings::block_device, u64, usize)> {
    // SAFETY: The inode is valid; `i_blkbits` and `i_sb` are set for its life.
    let (bits, bdev) = unsafe { (u32::from((*inode).i_blkbits), (*(*inode).i_sb).s_bdev) };
    let (Ok(offset), Ok(length)) = (u64::try_from(offset), u64::try_from(length)) else {
        return Err(EINVAL);
    };
    let max = usize::try_from(length.div_ceil(1 << bits).max(1)).unwrap_or(usize::MAX);
    Ok((bits, bdev, offset >> bits, max))
}

/// Describes in `iomap` the run that logical block `first` maps to (at most `max` blocks of
/// `1 << bits` bytes on `bdev`), or one block of hole.
fn fill(
    iomap: &mut bindings::iomap,
    first: u64,
    max: usize,
    bits: u32,
    bdev: *mut bindings::block_device,
    mapped: Option<super::address_space::BlockRun>,
) -> Result {
    iomap.flags = 0;
    iomap.offset = (first << bits) as bindings::loff_t;
    iomap.bdev = bdev;
    match mapped {
        None => {
            iomap.type_ = bindings::IOMAP_HOLE as u16;
            // `IOMAP_NULL_ADDR`
            iomap.addr = u64::MAX;
            iomap.length = 1 << bits;
        }
        // Data on a device the superblock does not have (`sb::Backing::Independent`): direct
        // I/O would build bios for a NULL block device.
        Some(_) if bdev.is_null() => return Err(EIO),
        Some(run) => {
            let count = run.count.clamp(1, max) as u64;
            iomap.type_ = bindings::IOMAP_MAPPED as u16;
            iomap.addr = run.block.checked_mul(1 << bits).ok_or(EIO)?;
            // `count <= max`: at most `length` rounded up to a block, below 2^64.
            iomap.length = count << bits;
            iomap.flags |= bindings::IOMAP_F_MERGED as u16;
        }
    }
    Ok(())
}

/// Reports the extents of `inode` in `start..start + len`, mapped by `M` (`iomap_fiemap`), under
/// the inode lock, as `ext2_fiemap` does: the caller must not hold it.
///
/// `len` is clamped to the size of the file (at least one byte: `iomap_fiemap` refuses a zero
/// length), as `ext2_fiemap` does: a mapper that reports holes a block at a time would otherwise
/// let any user who can open a file keep the inode locked for up to 2^51 iterations.
pub fn fiemap<M: BlockMapper>(
    inode: &INode<M::FileSystem>,
    fi: &mut Fiemap<'_>,
    start: u64,
    len: u64,
) -> Result {
    #[cfg(not(CONFIG_FS_IOMAP))]
    {
        let _ = (inode, fi, start, len);
        Err(crate::error::code::EOPNOTSUPP)
    }
    #[cfg(CONFIG_FS_IOMAP)]
    {
        // SAFETY: The inode is valid and `fi` is valid for the call (type invariants); the
        // table maps inodes of `T`. The lock is taken and released here.
        let r = unsafe {
            bindings::inode_lock(inode.as_ptr());
            // Under the lock: the size a writer sets is the size the walk sees.
            let len = len.min(inode.size().max(1) as u64);
            let r = bindings::iomap_fiemap(
                inode.as_ptr(),
                fi.as_ptr(),
                start,
                len,
                BlockMapperIomap::<M>::build(),
            );
            bindings::inode_unlock(inode.as_ptr());
            r
        };
        crate::error::to_result(r)
    }
}

/// Direct I/O reads (`O_DIRECT`) through iomap, for
/// [`FileOperations::DIRECT_IO`](super::file::FileOperations::DIRECT_IO): files of tables that
/// have it can be opened with `O_DIRECT` (`FMODE_CAN_ODIRECT`), and their direct reads go to
/// `iomap_dio_rw` under the shared inode lock, as `ext2_dio_read_iter` does; other reads go
/// through the page cache.
#[derive(Copy, Clone)]
///
/// # Invariants
///
/// The tables are static, and their callbacks map any inode of `T`.
// patch: diow
/// `write` is NULL and `write_failed` `None`, or both are those of one [`BlockAllocator`] for `T`.
// patch: end
pub struct DirectIo<T: FileSystem> {
    read: *const bindings::iomap_ops,
    // patch: diow
    write: *const bindings::iomap_ops,
    write_failed: Option<unsafe fn(*mut bindings::inode, i64)>,
    // patch: end
    _p: PhantomData<T>,
}

impl<T: FileSystem> DirectIo<T> {
    /// Direct reads mapped by `M`.
    #[inline]
    pub const fn new<M: BlockMapper<FileSystem = T>>() -> Self {
        // INVARIANT: The table is static and maps any inode of `M::FileSystem`, i.e. `T`.
        Self {
            read: BlockMapperIomap::<M>::build(),
            // patch: diow
            write: core::ptr::null(),
            write_failed: None,
            // patch: end
            _p: PhantomData,
        }
    }
    // patch: diow

    /// Direct reads mapped by `A`, and direct writes (`O_DIRECT`) that `A` maps and allocates
    /// for, as `ext2_dio_write_iter` writes them: under the exclusive inode lock, after the
    /// checks of `generic_write_checks` and `kiocb_modified`; writes past the size or not
    /// aligned to blocks wait for their I/O (`IOMAP_DIO_FORCE_WAIT`, so the size is set under
    /// the lock); what iomap leaves (a hole below the size, an error with nothing written) is
    /// written through the page cache, written to the device and dropped from the page cache
    /// there.
    #[inline]
    pub const fn new_writing<A: BlockAllocator<FileSystem = T>>() -> Self {
        // INVARIANT: The tables are static and map any inode of `A::FileSystem`, i.e. `T`, with
        // the same allocator.
        Self {
            read: BlockMapperIomap::<A>::build(),
            write: AllocatorIomap::<A>::build(),
            write_failed: Some(AllocatorIomap::<A>::write_failed),
            _p: PhantomData,
        }
    }

    /// Returns whether direct writes go to the device (else through the page cache).
    #[inline]
    pub(crate) fn writes(&self) -> bool {
        self.write_failed.is_some()
    }

    /// Writes `from` at `iocb` with direct I/O (see [`DirectIo::new_writing`]).
    ///
    /// # Safety
    ///
    /// `iocb` and `from` must be valid for the call, `iocb` a direct write on a file of an inode
    /// of `T`, and [`DirectIo::writes`] true.
    pub(crate) unsafe fn write(
        &self,
        iocb: *mut bindings::kiocb,
        from: *mut bindings::iov_iter,
    ) -> isize {
        #[cfg(not(CONFIG_FS_IOMAP))]
        {
            let _ = (iocb, from);
            crate::error::code::EOPNOTSUPP.to_errno() as isize
        }
        #[cfg(CONFIG_FS_IOMAP)]
        // SAFETY: The arguments are valid (safety requirements); the inode of the file is
        // referenced by it and locked exclusively around the calls, as `write_failed`, the
        // tables and `generic_perform_write` (with the address space's `write_begin`) ask.
        unsafe {
            let mapping = (*(*iocb).ki_filp).f_mapping;
            let inode = (*mapping).host;
            let offset = (*iocb).ki_pos;
            let count = bindings::iov_iter_count(from) as i64;
            bindings::inode_lock(inode);
            let mut ret = bindings::generic_write_checks(iocb, from);
            if ret > 0 {
                ret = bindings::kiocb_modified(iocb) as isize;
            }
            if ret == 0 && bindings::iov_iter_count(from) != 0 {
                let blocksize = (*(*inode).i_sb).s_blocksize;
                let pos = (*iocb).ki_pos;
                let end = pos.saturating_add(bindings::iov_iter_count(from) as i64);
                let unaligned = (pos as u64 | bindings::iov_iter_alignment(from) as u64)
                    & (blocksize as u64 - 1)
                    != 0;
                let flags = if end > bindings::i_size_read(inode) || unaligned {
                    bindings::IOMAP_DIO_FORCE_WAIT
                } else {
                    0
                };
                ret = bindings::iomap_dio_rw(
                    iocb,
                    from,
                    self.write,
                    &DIO_WRITE_OPS,
                    flags,
                    core::ptr::null_mut(),
                    0,
                );
                if ret == ENOTBLK.to_errno() as isize {
                    ret = 0;
                }
                if ret < 0 && ret != EIOCBQUEUED.to_errno() as isize {
                    if let Some(failed) = self.write_failed {
                        failed(inode, offset.saturating_add(count));
                    }
                }
                if ret >= 0 && bindings::iov_iter_count(from) != 0 {
                    ret = Self::write_buffered(iocb, from, mapping, ret);
                }
            }
            bindings::inode_unlock(inode);
            ret
        }
    }

    /// The rest of a direct write that iomap left, through the page cache, written to the
    /// device and dropped from the page cache; `done` bytes were written directly.
    ///
    /// # Safety
    ///
    /// As [`DirectIo::write`], with the inode lock held.
    #[cfg(CONFIG_FS_IOMAP)]
    unsafe fn write_buffered(
        iocb: *mut bindings::kiocb,
        from: *mut bindings::iov_iter,
        mapping: *mut bindings::address_space,
        done: isize,
    ) -> isize {
        // SAFETY: See the safety section; the flag is cleared as C's fallback clears it.
        unsafe {
            (*iocb).ki_flags &= !(bindings::IOCB_DIRECT as c_int);
            let pos = (*iocb).ki_pos;
            let status = bindings::generic_perform_write(iocb, from);
            if status < 0 {
                return status;
            }
            let ret = done.saturating_add(status);
            let end = pos.saturating_add(status as i64).saturating_sub(1);
            let r = bindings::filemap_write_and_wait_range(mapping, pos, end);
            if r != 0 {
                return r as isize;
            }
            let shift = crate::page::PAGE_SHIFT;
            bindings::invalidate_mapping_pages(
                mapping,
                (pos >> shift) as usize,
                (end.max(0) >> shift) as usize,
            );
            if ret > 0 {
                bindings::generic_write_sync(iocb, ret)
            } else {
                ret
            }
        }
    }
    // patch: end

    /// Reads `to` from `iocb` with direct I/O.
    ///
    /// # Safety
    ///
    /// `iocb` and `to` must be valid for the call, `iocb` on a file of an inode of `T`.
    pub(crate) unsafe fn read(
        &self,
        iocb: *mut bindings::kiocb,
        to: *mut bindings::iov_iter,
    ) -> isize {
        #[cfg(not(CONFIG_FS_IOMAP))]
        {
            let _ = (iocb, to);
            crate::error::code::EOPNOTSUPP.to_errno() as isize
        }
        #[cfg(CONFIG_FS_IOMAP)]
        // SAFETY: The arguments are valid (safety requirements); the inode of the file is
        // referenced by it, and locked shared around the call as readers lock it.
        unsafe {
            let inode = (*(*(*iocb).ki_filp).f_mapping).host;
            bindings::inode_lock_shared(inode);
            let r = bindings::iomap_dio_rw(
                iocb,
                to,
                self.read,
                core::ptr::null(),
                0,
                core::ptr::null_mut(),
                0,
            );
            bindings::inode_unlock_shared(inode);
            r
        }
    }
}

/// The extents being reported by `FIEMAP` (`struct fiemap_extent_info`), for
/// [`INodeOperations::fiemap`].
///
/// # Invariants
///
/// The pointer is valid for `'a`, used only through this object.
pub struct Fiemap<'a>(
    *mut bindings::fiemap_extent_info,
    PhantomData<&'a mut bindings::fiemap_extent_info>,
);

impl Fiemap<'_> {
    /// # Safety
    ///
    /// `fi` must be valid for `'a` and used only through the returned object.
    #[inline]
    pub(crate) unsafe fn from_raw<'a>(fi: *mut bindings::fiemap_extent_info) -> Fiemap<'a> {
        // INVARIANT: The safety requirements are the invariants.
        Fiemap(fi, PhantomData)
    }

    #[inline]
    pub(crate) fn as_ptr(&mut self) -> *mut bindings::fiemap_extent_info {
        self.0
    }
}

/// # Safety
///
/// `fiemap` of `struct inode_operations`: `inode_ptr` is a referenced inode of `T`
/// and `fi` a valid `fiemap_extent_info`, both for the duration of the call.
pub(crate) unsafe extern "C" fn fiemap_callback<
    T: FileSystem,
    U: INodeOperations<FileSystem = T> + ?Sized,
>(
    inode_ptr: *mut bindings::inode,
    fi: *mut bindings::fiemap_extent_info,
    start: u64,
    len: u64,
) -> c_int {
    // SAFETY: The C API gives a referenced inode of this fs (it has this table).
    let inode = unsafe { INode::<T>::from_raw(inode_ptr) };
    // SAFETY: `fi` is valid for the call and used only through `fi`.
    let mut fi = unsafe { Fiemap::from_raw(fi) };
    match U::fiemap(inode, &mut fi, start, len) {
        Err(e) => e.to_errno(),
        Ok(()) => 0,
    }
}

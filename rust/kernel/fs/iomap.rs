// SPDX-License-Identifier: GPL-2.0

//! iomap for readers: the block mapping of a [`BlockMapper`] as `struct iomap_ops`, for `FIEMAP`
//! ([`fiemap`]) and direct I/O reads ([`DirectIo`]).
//!
//! Every mapping is read-only: a write asks for `EROFS`. Without `CONFIG_FS_IOMAP` the kernel
//! has no iomap, and both fail with `EOPNOTSUPP`.
//!
//! C header: [`include/linux/iomap.h`](srctree/include/linux/iomap.h)

use super::{address_space::BlockMapper, inode::INode, inode::INodeOperations, FileSystem};
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
        let inode = unsafe { INode::<M::FileSystem>::from_raw(inode) };
        // SAFETY: The inode is valid; `i_blkbits` and `i_sb` are set for its life.
        let (bits, bdev) = unsafe {
            let i = &*inode.as_ptr();
            (u32::from(i.i_blkbits), (*i.i_sb).s_bdev)
        };
        let (Ok(offset), Ok(length)) = (u64::try_from(offset), u64::try_from(length)) else {
            return EINVAL.to_errno();
        };
        let first = offset >> bits;
        let max = length.div_ceil(1 << bits).max(1);
        let max = usize::try_from(max).unwrap_or(usize::MAX);
        let mapped = match M::map_blocks(inode, first, max) {
            Ok(m) => m,
            Err(e) => return e.to_errno(),
        };
        // SAFETY: `iomap` is valid for write.
        let iomap = unsafe { &mut *iomap };
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
            // Data on a device the superblock does not have (`sb::Backing::Independent`):
            // direct I/O would build bios for a NULL block device.
            Some(_) if bdev.is_null() => return EIO.to_errno(),
            Some(run) => {
                let count = run.count.clamp(1, max) as u64;
                iomap.type_ = bindings::IOMAP_MAPPED as u16;
                let Some(addr) = run.block.checked_mul(1 << bits) else {
                    return EIO.to_errno();
                };
                iomap.addr = addr;
                // `count <= max`: at most `length` rounded up to a block, below 2^64.
                iomap.length = count << bits;
                iomap.flags |= bindings::IOMAP_F_MERGED as u16;
            }
        }
        0
    }

    /// Returns the table.
    #[inline]
    const fn build() -> &'static bindings::iomap_ops {
        &Self::VTABLE
    }
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
/// The table is static, and its callback maps any inode of `T`.
pub struct DirectIo<T: FileSystem>(*const bindings::iomap_ops, PhantomData<T>);

impl<T: FileSystem> DirectIo<T> {
    /// Direct reads mapped by `M`.
    #[inline]
    pub const fn new<M: BlockMapper<FileSystem = T>>() -> Self {
        // INVARIANT: The table is static and maps any inode of `M::FileSystem`, i.e. `T`.
        Self(BlockMapperIomap::<M>::build(), PhantomData)
    }

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
                self.0,
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

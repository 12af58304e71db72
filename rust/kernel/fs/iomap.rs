// SPDX-License-Identifier: GPL-2.0

//! iomap for readers: the block mapping of a
//! [`BlockMapper`](super::address_space::BlockMapper) as `struct iomap_ops`
//! ([`Ops::new`]), for `FIEMAP` ([`fiemap`]) and direct I/O reads ([`DirectIo`]).
//!
//! Every mapping is read-only: a write asks for `EROFS`. Without `CONFIG_FS_IOMAP` the kernel
//! has no iomap, and both fail with `EOPNOTSUPP`.
//!
//! C header: [`include/linux/iomap.h`](srctree/include/linux/iomap.h)

use super::{inode::INode, inode::INodeOperations, FileSystem};
use crate::bindings;
use crate::error::Result;
use crate::prelude::*;
use core::marker::PhantomData;

/// An iomap operations table that maps the blocks of inodes of `T` for reading.
#[derive(Copy, Clone)]
pub struct Ops<T: FileSystem>(*const bindings::iomap_ops, PhantomData<T>);

impl<T: FileSystem> Ops<T> {
    /// # Safety
    ///
    /// `ops` must be a static table whose callbacks accept any inode of `T`.
    #[inline]
    pub(crate) const unsafe fn from_raw(ops: *const bindings::iomap_ops) -> Self {
        Self(ops, PhantomData)
    }

    #[inline]
    pub(crate) const fn as_ptr(&self) -> *const bindings::iomap_ops {
        self.0
    }
}

/// Reports the extents of `inode` in `start..start + len` with `ops` (`iomap_fiemap`), under
/// the inode lock, as `ext2_fiemap` does: the caller must not hold it.
///
/// `len` is clamped to the size of the file (at least one byte: `iomap_fiemap` refuses a zero
/// length), as `ext2_fiemap` does: a mapper that reports holes a block at a time would otherwise
/// let any user who can open a file keep the inode locked for up to 2^51 iterations.
pub fn fiemap<T: FileSystem>(
    inode: &INode<T>,
    fi: &mut Fiemap<'_>,
    start: u64,
    len: u64,
    ops: Ops<T>,
) -> Result {
    #[cfg(not(CONFIG_FS_IOMAP))]
    {
        let _ = (inode, fi, start, len, ops);
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
            let r = bindings::iomap_fiemap(inode.as_ptr(), fi.as_ptr(), start, len, ops.as_ptr());
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
pub struct DirectIo<T: FileSystem>(Ops<T>);

impl<T: FileSystem> DirectIo<T> {
    /// Direct reads mapped with `ops`.
    #[inline]
    pub const fn new(ops: Ops<T>) -> Self {
        Self(ops)
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
                self.0.as_ptr(),
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

// SPDX-License-Identifier: GPL-2.0

//! Inode attributes: the VFS inode flags, `getattr` and `fileattr_get`.
//!
//! C headers: [`include/linux/fs.h`](srctree/include/linux/fs.h),
//! [`include/linux/stat.h`](srctree/include/linux/stat.h),
//! [`include/linux/fileattr.h`](srctree/include/linux/fileattr.h)

use super::{INode, INodeOperations};
use crate::fs::{dentry::DEntry, FileSystem};
use crate::{bindings, prelude::*};
use core::marker::PhantomData;

/// VFS inode flags that a file system derives from its on-disk inode (`S_*` in `i_flags`).
///
/// They change what the VFS allows and does (`S_IMMUTABLE` and `S_APPEND` refuse writes,
/// `S_NOATIME` keeps the access time, ...). The other `S_*` flags belong to the VFS.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags(pub(super) u32);

impl Flags {
    /// No flag.
    pub const NONE: Self = Self(0);
    /// Writes are synchronous (`S_SYNC`).
    pub const SYNC: Self = Self(bindings::S_SYNC);
    /// Access times are not updated (`S_NOATIME`).
    pub const NOATIME: Self = Self(bindings::S_NOATIME);
    /// The file may only be appended to (`S_APPEND`).
    pub const APPEND: Self = Self(bindings::S_APPEND);
    /// The inode may not be changed (`S_IMMUTABLE`).
    pub const IMMUTABLE: Self = Self(bindings::S_IMMUTABLE);
    /// Directory changes are synchronous (`S_DIRSYNC`).
    pub const DIRSYNC: Self = Self(bindings::S_DIRSYNC);
    /// Every flag a file system may set.
    pub(super) const ALL: Self = Self(
        bindings::S_SYNC
            | bindings::S_NOATIME
            | bindings::S_APPEND
            | bindings::S_IMMUTABLE
            | bindings::S_DIRSYNC,
    );

    /// Returns whether every flag of `other` is set in `self`.
    #[inline]
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }
}

impl core::ops::BitOr for Flags {
    type Output = Self;
    #[inline]
    fn bitor(self, rhs: Self) -> Self {
        Self(self.0 | rhs.0)
    }
}

impl core::ops::BitOrAssign for Flags {
    #[inline]
    fn bitor_assign(&mut self, rhs: Self) {
        self.0 |= rhs.0;
    }
}

/// `statx` attribute bits (`STATX_ATTR_*`), for [`Kstat::add_attributes`].
pub mod statx_attr {
    use crate::bindings;

    /// The file is compressed by the file system (`STATX_ATTR_COMPRESSED`).
    pub const COMPRESSED: u64 = bindings::STATX_ATTR_COMPRESSED as u64;
    /// The file is immutable (`STATX_ATTR_IMMUTABLE`).
    pub const IMMUTABLE: u64 = bindings::STATX_ATTR_IMMUTABLE as u64;
    /// The file is append-only (`STATX_ATTR_APPEND`).
    pub const APPEND: u64 = bindings::STATX_ATTR_APPEND as u64;
    /// The file is not to be dumped (`STATX_ATTR_NODUMP`).
    pub const NODUMP: u64 = bindings::STATX_ATTR_NODUMP as u64;
    /// The file needs a key to be decrypted (`STATX_ATTR_ENCRYPTED`).
    pub const ENCRYPTED: u64 = bindings::STATX_ATTR_ENCRYPTED as u64;
}

/// What `stat`/`statx` reports about an inode (`struct kstat`), while
/// [`INodeOperations::getattr`] fills it in.
///
/// The binding fills the generic fields from the inode (`generic_fillattr`) once the method has
/// returned; the method adds what only the file system knows.
///
/// # Invariants
///
/// `stat` is valid for write for `'a`, and only this object writes to it.
pub struct Kstat<'a> {
    stat: *mut bindings::kstat,
    request_mask: u32,
    query_flags: u32,
    _p: PhantomData<&'a mut bindings::kstat>,
}

impl Kstat<'_> {
    /// The `STATX_*` fields the caller asked for.
    #[inline]
    pub fn request_mask(&self) -> u32 {
        self.request_mask
    }

    /// The `AT_STATX_*` synchronisation flags of the call.
    #[inline]
    pub fn query_flags(&self) -> u32 {
        self.query_flags
    }

    /// Reports the `statx_attr` bits in `attributes` as set, and those in `mask` as supported
    /// (`stx_attributes`, `stx_attributes_mask`).
    #[inline]
    pub fn add_attributes(&mut self, attributes: u64, mask: u64) {
        // SAFETY: `stat` is valid for write for `'a`, and only this object writes to it while
        // the method runs (type invariant).
        unsafe {
            (*self.stat).attributes |= attributes;
            (*self.stat).attributes_mask |= mask;
        }
    }
}

/// The flags of an inode, as `FS_IOC_GETFLAGS` and `FS_IOC_FSGETXATTR` report them
/// (`struct file_kattr`), while [`INodeOperations::fileattr_get`] fills it in.
///
/// # Invariants
///
/// The pointer is valid for write for `'a`.
pub struct FileAttr<'a>(
    *mut bindings::file_kattr,
    PhantomData<&'a mut bindings::file_kattr>,
);

impl FileAttr<'_> {
    /// Sets the flags from `FS_*_FL` bits, and the `FS_XFLAG_*` bits that correspond
    /// (`fileattr_fill_flags`).
    #[inline]
    pub fn fill_flags(&mut self, flags: u32) {
        // SAFETY: `self.0` is valid for write for `'a` (type invariant).
        unsafe { bindings::fileattr_fill_flags(self.0, flags) }
    }
}

/// # Safety
///
/// `getattr` of `struct inode_operations`: `path` is a valid path whose dentry is a
/// positive dentry of `T`, `stat` is valid for write, `idmap` is the mount's idmap.
pub(crate) unsafe extern "C" fn getattr_callback<
    T: FileSystem,
    U: INodeOperations<FileSystem = T> + ?Sized,
>(
    idmap: *mut bindings::mnt_idmap,
    path: *const bindings::path,
    stat: *mut bindings::kstat,
    request_mask: u32,
    query_flags: c_uint,
) -> c_int {
    // SAFETY: The C API guarantees that `path` is valid and its dentry positive, and
    // that the dentry (hence its inode) is referenced for the duration of the call.
    let inode_ptr = unsafe { (*(*path).dentry).d_inode };
    // SAFETY: The inode is an initialised inode of this file system (it has this
    // table), referenced for the duration of the call.
    let inode = unsafe { INode::<T>::from_raw(inode_ptr) };
    // INVARIANT: `stat` is valid for write during the call, and only `st` writes it
    // until the method returns.
    let mut st = Kstat {
        stat,
        request_mask,
        query_flags,
        _p: PhantomData,
    };
    match U::getattr(inode, &mut st) {
        Err(e) => e.to_errno(),
        Ok(()) => {
            // SAFETY: The arguments are the valid ones that the VFS gave us.
            unsafe { bindings::generic_fillattr(idmap, request_mask, inode_ptr, stat) };
            0
        }
    }
}

/// # Safety
///
/// `fileattr_get` of `struct inode_operations`: `dentry_ptr` is a valid, positive
/// dentry of `T` and `fa` is valid for write.
pub(crate) unsafe extern "C" fn fileattr_get_callback<
    T: FileSystem,
    U: INodeOperations<FileSystem = T> + ?Sized,
>(
    dentry_ptr: *mut bindings::dentry,
    fa: *mut bindings::file_kattr,
) -> c_int {
    // SAFETY: The C API guarantees that `dentry_ptr` is a valid dentry of this fs,
    // referenced for the duration of the call.
    let dentry = unsafe { DEntry::<T>::from_raw(dentry_ptr) };
    // INVARIANT: `fa` is valid for write during the call.
    let mut fa = FileAttr(fa, PhantomData);
    match U::fileattr_get(dentry, &mut fa) {
        Err(e) => e.to_errno(),
        Ok(()) => 0,
    }
}

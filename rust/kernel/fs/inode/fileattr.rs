// SPDX-License-Identifier: GPL-2.0

//! Changing an inode's flags: `fileattr_set` (`FS_IOC_SETFLAGS`, `FS_IOC_FSSETXATTR`) and the
//! VFS inode flags that follow from them.
//!
//! C header: [`include/linux/fileattr.h`](srctree/include/linux/fileattr.h)

use super::{Flags, INodeOperations, LockedINode};
use crate::error::from_result;
use crate::fs::{dentry::DEntry, FileSystem};
use crate::{bindings, prelude::*};
use core::marker::PhantomData;

/// The flags a caller asks an inode to get (`struct file_kattr`), as
/// [`INodeOperations::fileattr_set`] receives them: `vfs_fileattr_set` has checked the caller's
/// right to change them (owner, `CAP_LINUX_IMMUTABLE` for the immutable and append-only flags)
/// and that the flags of an immutable inode stay as they are.
///
/// # Invariants
///
/// The pointer is valid for read for `'a`.
pub struct NewFileAttr<'a>(
    *const bindings::file_kattr,
    PhantomData<&'a bindings::file_kattr>,
);

impl NewFileAttr<'_> {
    /// The `FS_*_FL` flags asked for (from `FS_IOC_SETFLAGS`, or translated from the
    /// `FS_XFLAG_*` ones of `FS_IOC_FSSETXATTR`).
    #[inline]
    pub fn flags(&self) -> u32 {
        // SAFETY: `self.0` is valid for read for `'a` (type invariant).
        unsafe { (*self.0).flags }
    }

    /// Whether attributes that `FS_*_FL` flags cannot express were asked for
    /// (`fileattr_has_fsx`: extended flags, extent size, project id), which file systems
    /// without them refuse.
    #[inline]
    pub fn has_fsx(&self) -> bool {
        // SAFETY: `self.0` is valid for read for `'a` (type invariant).
        unsafe { bindings::fileattr_has_fsx(self.0) }
    }
}

impl<'a, T: FileSystem> LockedINode<'a, T> {
    /// Sets the VFS inode flags (`inode_set_flags` of all of [`Flags`]), as a file system does
    /// after its own flags changed. The inode is not marked dirty.
    #[inline]
    pub fn set_flags(&mut self, flags: Flags) {
        // SAFETY: The inode is valid and its `i_rwsem` held exclusively (type invariants);
        // `inode_set_flags` changes `i_flags` atomically against other flag changes.
        unsafe { bindings::inode_set_flags(self.inode().as_ptr(), flags.0, Flags::ALL.0) };
    }
}

impl<'a, T: FileSystem> LockedINode<'a, T> {
    /// Sets the generation of the inode (`i_generation`, which file handles carry), as
    /// `FS_IOC_SETVERSION` does. The inode is not marked dirty.
    #[inline]
    pub fn set_generation(&mut self, generation: u32) {
        // SAFETY: The inode is valid and its `i_rwsem` held exclusively (type invariants),
        // under which writers change `i_generation` (readers read it once, `READ_ONCE`).
        unsafe {
            core::ptr::write_volatile(&raw mut (*self.inode().as_ptr()).i_generation, generation)
        };
    }
}

/// # Safety
///
/// `fileattr_set` of `struct inode_operations`: `dentry` is a valid, positive dentry of `T`
/// whose inode's `i_rwsem` is held exclusively (`vfs_fileattr_set`) and `fa` is valid for read,
/// both for the call.
pub(crate) unsafe extern "C" fn fileattr_set_callback<
    T: FileSystem,
    U: INodeOperations<FileSystem = T> + ?Sized,
>(
    _idmap: *mut bindings::mnt_idmap,
    dentry: *mut bindings::dentry,
    fa: *mut bindings::file_kattr,
) -> c_int {
    from_result(|| {
        // SAFETY: The VFS passes a valid dentry of this file system for the call.
        let dentry = unsafe { DEntry::<T>::from_raw(dentry) };
        let inode = dentry.inode().ok_or(ENOENT)?;
        // SAFETY: `vfs_fileattr_set` holds the inode's `i_rwsem` exclusively during the call.
        let mut locked = unsafe { LockedINode::new(inode) };
        // INVARIANT: `fa` is valid for read during the call.
        let fa = NewFileAttr(fa, PhantomData);
        U::fileattr_set(dentry, &mut locked, &fa)?;
        Ok(0)
    })
}

// SPDX-License-Identifier: GPL-2.0

//! Export operations: file handles, for NFS export and `open_by_handle_at(2)`.
//!
//! File systems that find inodes by 32-bit number and check them with a generation use the
//! handles of `generic_encode_ino32_fh` (`FILEID_INO32_GEN`, `FILEID_INO32_GEN_PARENT`), and
//! only say how to get an inode and a directory's parent ([`ExportOperations`]).
//!
//! C header: [`include/linux/exportfs.h`](srctree/include/linux/exportfs.h)

use super::{dentry::DEntry, inode::INode, sb::New, sb::SuperBlock, FileSystem};
use crate::bindings;
use crate::error::Result;
use crate::prelude::*;
use crate::sync::aref::ARef;
use core::{marker::PhantomData, ptr};

/// How a file system finds the inodes that file handles name: the Rust side of
/// `struct export_operations`, with the handle format of `generic_encode_ino32_fh`.
#[vtable]
pub trait ExportOperations {
    /// The file system whose inodes the handles name.
    type FileSystem: FileSystem;

    /// Returns inode `ino` if it exists and, unless `generation` is 0, has that generation
    /// (the `get_inode` of `generic_fh_to_dentry`). `ESTALE` if it does not.
    fn get_inode(
        sb: &SuperBlock<Self::FileSystem>,
        ino: u64,
        generation: u32,
    ) -> Result<ARef<INode<Self::FileSystem>>>;

    /// Returns the parent of directory `child` (`get_parent`): its `..`.
    fn get_parent(child: &DEntry<Self::FileSystem>) -> Result<ARef<INode<Self::FileSystem>>>;
}

type GetInode = unsafe extern "C" fn(*mut bindings::super_block, u64, u32) -> *mut bindings::inode;

/// The `struct export_operations` of an [`ExportOperations`] implementation `U` of file system
/// `T`, built at compile time.
pub(crate) struct ExportOperationsVTable<T: FileSystem, U: ?Sized>(
    PhantomData<T>,
    PhantomData<*const U>,
);

impl<T: FileSystem, U: ExportOperations<FileSystem = T> + ?Sized> ExportOperationsVTable<T, U> {
    const VTABLE: bindings::export_operations = bindings::export_operations {
        encode_fh: Some(Self::encode_fh_callback),
        fh_to_dentry: Some(Self::fh_to_dentry_callback),
        fh_to_parent: Some(Self::fh_to_parent_callback),
        get_parent: Some(Self::get_parent_callback),
        ..pin_init::zeroed()
    };

    /// # Safety
    ///
    /// `encode_fh` of `struct export_operations`: `inode` is a valid inode of `T`,
    /// `parent` NULL or its valid parent directory, `fh` valid for `*max_len` words.
    unsafe extern "C" fn encode_fh_callback(
        inode: *mut bindings::inode,
        fh: *mut u32,
        max_len: *mut c_int,
        parent: *mut bindings::inode,
    ) -> c_int {
        // `generic_encode_ino32_fh` stores 32-bit inode numbers: a larger one would be
        // truncated into a handle of another inode. Refuse it as C refuses handles it
        // cannot make (`FILEID_INVALID`: `name_to_handle_at` says `EOVERFLOW`).
        // SAFETY: `inode` is valid, `parent` NULL or valid (the C API); `i_ino` does not
        // change once the inode is hashed.
        let too_big = unsafe {
            (*inode).i_ino > u64::from(u32::MAX)
                || (!parent.is_null() && (*parent).i_ino > u64::from(u32::MAX))
        };
        if too_big {
            return bindings::fid_type_FILEID_INVALID as c_int;
        }
        // SAFETY: The arguments are valid as the C API passed them.
        unsafe { bindings::generic_encode_ino32_fh(inode, fh, max_len, parent) }
    }

    /// # Safety
    ///
    /// The `get_inode` of `generic_fh_to_dentry`/`generic_fh_to_parent`: `sb` is a
    /// mounted superblock of `T`.
    unsafe extern "C" fn get_inode_callback(
        sb: *mut bindings::super_block,
        ino: u64,
        generation: u32,
    ) -> *mut bindings::inode {
        // SAFETY: Handles are decoded on mounted superblocks of this file system
        // (`s_export_op` is this table), which are ready.
        let sb = unsafe { SuperBlock::<T>::from_raw(sb) };
        match U::get_inode(sb, ino, generation) {
            // An inode of another superblock (of the same type) would be attached to a dentry
            // of this one: a stale handle, as far as this superblock knows.
            Ok(inode) if !ptr::eq(inode.super_block(), sb) => ESTALE.to_ptr(),
            // The reference goes to `d_obtain_alias`.
            Ok(inode) => ARef::into_raw(inode).as_ptr().cast(),
            Err(e) => e.to_ptr(),
        }
    }

    /// # Safety
    ///
    /// `fh_to_dentry` of `struct export_operations`: `sb` is a mounted superblock of `T`
    /// and `fid` is valid for `fh_len` 32-bit words.
    unsafe extern "C" fn fh_to_dentry_callback(
        sb: *mut bindings::super_block,
        fid: *mut bindings::fid,
        fh_len: c_int,
        fh_type: c_int,
    ) -> *mut bindings::dentry {
        // SAFETY: `sb` is a mounted superblock of `T` and `fid` is valid for `fh_len`
        // words (this callback's contract), as `decode` requires.
        unsafe { Self::decode(bindings::generic_fh_to_dentry, sb, fid, fh_len, fh_type) }
    }

    /// # Safety
    ///
    /// `fh_to_parent` of `struct export_operations`: as `fh_to_dentry`.
    unsafe extern "C" fn fh_to_parent_callback(
        sb: *mut bindings::super_block,
        fid: *mut bindings::fid,
        fh_len: c_int,
        fh_type: c_int,
    ) -> *mut bindings::dentry {
        // SAFETY: `sb` is a mounted superblock of `T` and `fid` is valid for `fh_len`
        // words (this callback's contract), as `decode` requires.
        unsafe { Self::decode(bindings::generic_fh_to_parent, sb, fid, fh_len, fh_type) }
    }

    /// Decodes a handle with `generic_fh_to_dentry` or `generic_fh_to_parent`, which
    /// read `fid` only within `fh_len` and get inodes from `get_inode_callback`.
    ///
    /// # Safety
    ///
    /// `sb` is a mounted superblock of `T` and `fid` is valid for `fh_len` 32-bit words.
    unsafe fn decode(
        generic: unsafe extern "C" fn(
            *mut bindings::super_block,
            *mut bindings::fid,
            c_int,
            c_int,
            Option<GetInode>,
        ) -> *mut bindings::dentry,
        sb: *mut bindings::super_block,
        fid: *mut bindings::fid,
        fh_len: c_int,
        fh_type: c_int,
    ) -> *mut bindings::dentry {
        // SAFETY: The arguments are valid (safety requirements).
        unsafe { generic(sb, fid, fh_len, fh_type, Some(Self::get_inode_callback)) }
    }

    /// # Safety
    ///
    /// `get_parent` of `struct export_operations`: `child` is a valid, referenced
    /// dentry of a directory of `T`.
    unsafe extern "C" fn get_parent_callback(
        child: *mut bindings::dentry,
    ) -> *mut bindings::dentry {
        // SAFETY: The dentry is valid and referenced for the call, on a mounted
        // superblock of this file system.
        let child = unsafe { DEntry::<T>::from_raw(child) };
        let inode = match U::get_parent(child) {
            // A parent on another superblock would be attached to a dentry of this one.
            Ok(inode) if !ptr::eq(inode.super_block(), child.super_block()) => EIO.to_ptr(),
            Ok(inode) => ARef::into_raw(inode).as_ptr().cast(),
            Err(e) => e.to_ptr(),
        };
        // SAFETY: `d_obtain_alias` takes over the inode reference, or passes an error
        // pointer on.
        unsafe { bindings::d_obtain_alias(inode) }
    }

    /// Returns the table.
    #[inline]
    pub(crate) const fn build() -> &'static bindings::export_operations {
        &Self::VTABLE
    }
}

impl<T: FileSystem> SuperBlock<T, New> {
    /// Makes file handles name the inodes of this superblock as `U` says (`s_export_op`), for NFS
    /// export and `open_by_handle_at(2)`, as C file systems set it in `fill_super`. Without it,
    /// both are refused.
    #[inline]
    pub fn set_export_ops<U: ExportOperations<FileSystem = T>>(&mut self) -> &mut Self {
        // SAFETY: The superblock is being filled, so only this thread accesses it (type
        // invariant of `SuperBlock<T, New>`); the table is static.
        unsafe { (*self.as_ptr()).s_export_op = ExportOperationsVTable::<T, U>::build() };
        self
    }
}

// SPDX-License-Identifier: GPL-2.0

//! Directory entries.
//!
//! C headers: [`include/linux/dcache.h`](srctree/include/linux/dcache.h)

use super::registration::from_err_ptr;
use super::{inode::INode, sb::SuperBlock, FileSystem};
use crate::error::{code::*, Result};
use crate::sync::aref::{ARef, AlwaysRefCounted};
use crate::{bindings, ffi::c_uint, types::Opaque};
use core::{marker::PhantomData, mem::ManuallyDrop, ptr::NonNull};

/// A directory entry.
///
/// Wraps the kernel's `struct dentry`.
///
/// # Invariants
///
/// Instances of this type are always ref-counted (`dget`/`dput`) and belong to a superblock of
/// file system `T` that is ready.
#[repr(transparent)]
pub struct DEntry<T: FileSystem>(Opaque<bindings::dentry>, PhantomData<T>);

// SAFETY: The type invariants guarantee that `DEntry` is always ref-counted.
unsafe impl<T: FileSystem> AlwaysRefCounted for DEntry<T> {
    #[inline]
    fn inc_ref(&self) {
        // SAFETY: The existence of a shared reference means that the refcount is nonzero.
        unsafe { bindings::dget(self.as_ptr()) };
    }

    #[inline]
    unsafe fn dec_ref(obj: NonNull<Self>) {
        // SAFETY: The safety requirements guarantee that the refcount is nonzero.
        unsafe { bindings::dput(obj.cast().as_ptr()) }
    }
}

impl<T: FileSystem> DEntry<T> {
    /// Creates a dentry reference from a raw pointer.
    ///
    /// # Safety
    ///
    /// `ptr` must be a valid dentry of file system `T` (ready superblock) during `'a`.
    #[inline]
    pub(crate) unsafe fn from_raw<'a>(ptr: *mut bindings::dentry) -> &'a Self {
        // SAFETY: The cast is okay because `DEntry` is `repr(transparent)` over `struct dentry`,
        // which the caller guarantees to be valid for `'a`.
        unsafe { &*ptr.cast::<Self>() }
    }

    /// Returns the raw `struct dentry` pointer.
    #[inline]
    pub(crate) fn as_ptr(&self) -> *mut bindings::dentry {
        self.0.get()
    }

    /// Returns the superblock of the dentry.
    #[inline]
    pub fn super_block(&self) -> &SuperBlock<T> {
        // SAFETY: `d_sb` is immutable and outlives the dentry; it is ready by the invariants.
        unsafe { SuperBlock::from_raw((*self.as_ptr()).d_sb) }
    }

    /// Returns the inode of the dentry, if it is positive.
    #[inline]
    pub fn inode(&self) -> Option<&INode<T>> {
        // SAFETY: The dentry is valid; a positive dentry's inode lives as long as the dentry's
        // reference, and the inodes of a ready superblock of `T` are initialised.
        unsafe {
            let inode = (*self.as_ptr()).d_inode;
            (!inode.is_null()).then(|| INode::from_raw(inode))
        }
    }
}

/// Returns the name of `dentry` (`d_name`).
///
/// # Safety
///
/// `dentry` must be valid for `'a` and its name stable for `'a` (its parent's `i_rwsem` held,
/// for instance: a rename needs it).
#[inline]
pub(crate) unsafe fn name_of<'a>(dentry: *mut bindings::dentry) -> &'a [u8] {
    let mut len: c_uint = 0;
    // SAFETY: The dentry is valid (caller); the helper returns its name and length, which stay
    // valid and unchanged for `'a` (caller).
    unsafe {
        let name = bindings::dentry_name(dentry, &mut len);
        core::slice::from_raw_parts(name, len as usize)
    }
}

/// A dentry that is being looked up: it is not hashed yet and has no inode.
///
/// It is spliced into the dentry tree by [`Unhashed::splice_alias`].
pub struct Unhashed<'a, T: FileSystem> {
    dentry: *mut bindings::dentry,
    _p: PhantomData<&'a DEntry<T>>,
}

impl<'a, T: FileSystem> Unhashed<'a, T> {
    /// Creates an unhashed dentry from a raw pointer.
    ///
    /// # Safety
    ///
    /// `ptr` must be a valid dentry being looked up in a directory of file system `T`.
    #[inline]
    pub(crate) unsafe fn from_raw(ptr: *mut bindings::dentry) -> Self {
        Self {
            dentry: ptr,
            _p: PhantomData,
        }
    }

    /// Returns the name being looked up.
    #[inline]
    pub fn name(&self) -> &'a [u8] {
        // SAFETY: The name of a dentry being looked up is stable (the parent is locked), and the
        // dentry lives for `'a`.
        unsafe { name_of(self.dentry) }
    }

    /// Connects the dentry to `inode` (or makes it negative if `None`) (`d_splice_alias`).
    ///
    /// Returns the dentry to use instead of this one if the inode already had one (e.g. a
    /// directory found through another path), or `None` to use this one. Fails with `EIO`,
    /// releasing the inode, if the inode belongs to another superblock (of the same type): the
    /// dentry would outlive it there.
    #[inline]
    pub fn splice_alias(self, inode: Option<ARef<INode<T>>>) -> Result<Option<ARef<DEntry<T>>>> {
        if let Some(i) = &inode {
            // SAFETY: The dentry is valid; `d_sb` never changes.
            if i.super_block().as_ptr() != unsafe { (*self.dentry).d_sb } {
                return Err(EIO);
            }
        }
        let inode_ptr = inode.map_or(core::ptr::null_mut(), |i| {
            ARef::into_raw(i).as_ptr().cast::<bindings::inode>()
        });
        // SAFETY: The dentry is valid and unhashed. `d_splice_alias` takes over the inode
        // reference (if any), even on failure.
        let ret = from_err_ptr(unsafe { bindings::d_splice_alias(inode_ptr, self.dentry) })?;
        // SAFETY: A non-NULL returned dentry comes with a reference that we now own, and
        // belongs to the same superblock.
        Ok(NonNull::new(ret).map(|d| unsafe { ARef::from_raw(d.cast()) }))
    }
}

/// The root dentry of a superblock, returned by [`FileSystem::init_root`].
///
/// # Invariants
///
/// The pointer is a valid root dentry with a reference owned by this value.
pub struct Root<T: FileSystem>(NonNull<bindings::dentry>, PhantomData<T>);

impl<T: FileSystem> Root<T> {
    /// Creates the root dentry of `inode`'s superblock (`d_make_root`). The mount fails with
    /// `EINVAL` if [`FileSystem::init_root`] returns the root
    /// of another superblock.
    #[inline]
    pub fn try_new(inode: ARef<INode<T>>) -> Result<Self> {
        // SAFETY: `d_make_root` takes over the reference to the valid inode, even on failure.
        let d = unsafe { bindings::d_make_root(ARef::into_raw(inode).as_ptr().cast()) };
        // INVARIANT: `d_make_root` returns a referenced root dentry or NULL.
        Ok(Self(NonNull::new(d).ok_or(ENOMEM)?, PhantomData))
    }

    /// Returns the superblock of the root dentry.
    #[inline]
    pub(crate) fn sb_ptr(&self) -> *mut bindings::super_block {
        // SAFETY: The dentry is valid (type invariant); `d_sb` never changes.
        unsafe { (*self.0.as_ptr()).d_sb }
    }

    /// Gives up the dentry reference, returning the raw pointer.
    #[inline]
    pub(crate) fn into_raw(self) -> *mut bindings::dentry {
        ManuallyDrop::new(self).0.as_ptr()
    }
}

impl<T: FileSystem> Drop for Root<T> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: By the type invariants we own a reference to this dentry.
        unsafe { bindings::dput(self.0.as_ptr()) };
    }
}

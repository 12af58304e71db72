// SPDX-License-Identifier: GPL-2.0

//! Writing inodes: their attributes as writeback reads them, the `i_rwsem` token under which
//! they change, `setattr` and dirtying.
//!
//! C headers: [`include/linux/fs.h`](srctree/include/linux/fs.h)

use super::{DEntry, FileSystem, INode, INodeOperations, Timespec, UncountedINode};
use crate::error::{from_result, to_result, Result};
use crate::{bindings, prelude::*, types::Opaque};
use core::{marker::PhantomData, ops::Deref, ptr};

impl<T: FileSystem> UncountedINode<T> {
    /// Returns the mode: the file type and permission bits (`i_mode`).
    #[inline]
    pub fn mode(&self) -> u16 {
        // SAFETY: The inode is valid. `i_mode` changes under the inode lock (`setattr`); a
        // volatile read (READ_ONCE, as writeback's lockless reads) sees either value.
        unsafe { ptr::read_volatile(&raw const (*self.as_ptr()).i_mode) }
    }

    /// Returns the owner's user id in the initial user namespace (`i_uid_read`).
    #[inline]
    pub fn uid(&self) -> u32 {
        // SAFETY: The inode is valid; `i_uid_read` is the kernel's lockless read.
        unsafe { bindings::i_uid_read(self.as_ptr()) }
    }

    /// Returns the owner's group id in the initial user namespace (`i_gid_read`).
    #[inline]
    pub fn gid(&self) -> u32 {
        // SAFETY: The inode is valid; `i_gid_read` is the kernel's lockless read.
        unsafe { bindings::i_gid_read(self.as_ptr()) }
    }

    /// Returns the number of links to the inode (`i_nlink`).
    #[inline]
    pub fn nlink(&self) -> u32 {
        // SAFETY: The inode is valid; the helper reads `i_nlink` with READ_ONCE.
        unsafe { bindings::inode_nlink(self.as_ptr()) }
    }

    /// Returns the number of 512-byte blocks the inode uses (`i_blocks`).
    #[inline]
    pub fn blocks(&self) -> u64 {
        // SAFETY: The inode is valid. `i_blocks` changes under `i_lock`; a volatile read sees
        // either value, as C writeback's plain read.
        unsafe { ptr::read_volatile(&raw const (*self.as_ptr()).i_blocks) }
    }

    /// Returns the time of last access (`inode_get_atime`).
    #[inline]
    pub fn atime(&self) -> Timespec {
        // SAFETY: The inode is valid; the fields are read as `inode_get_atime_*` do (READ_ONCE).
        unsafe {
            self.time(
                &raw const (*self.as_ptr()).i_atime_sec,
                &raw const (*self.as_ptr()).i_atime_nsec,
            )
        }
    }

    /// Returns the time of last modification (`inode_get_mtime`).
    #[inline]
    pub fn mtime(&self) -> Timespec {
        // SAFETY: As in `atime`.
        unsafe {
            self.time(
                &raw const (*self.as_ptr()).i_mtime_sec,
                &raw const (*self.as_ptr()).i_mtime_nsec,
            )
        }
    }

    /// Returns the time of last status change (`inode_get_ctime`).
    #[inline]
    pub fn ctime(&self) -> Timespec {
        // SAFETY: As in `atime`.
        unsafe {
            self.time(
                &raw const (*self.as_ptr()).i_ctime_sec,
                &raw const (*self.as_ptr()).i_ctime_nsec,
            )
        }
    }

    /// # Safety
    ///
    /// `secs` and `nsecs` point to a timestamp's fields in this inode.
    #[inline]
    unsafe fn time(&self, secs: *const i64, nsecs: *const u32) -> Timespec {
        // SAFETY: The caller guarantees the pointers are to fields of this valid inode; writers
        // use WRITE_ONCE, readers READ_ONCE (volatile): each field is read whole.
        unsafe {
            Timespec {
                secs: ptr::read_volatile(secs),
                nsecs: ptr::read_volatile(nsecs),
            }
        }
    }
}

impl<T: FileSystem> UncountedINode<T> {
    /// Marks the inode dirty (`mark_inode_dirty`): writeback will write it with
    /// [`SuperOperations::write_inode`](crate::fs::sb::SuperOperations::write_inode).
    #[inline]
    pub fn mark_dirty(&self) {
        // SAFETY: The inode is valid and initialised; `mark_inode_dirty` takes the locks it
        // needs, and leaves unhashed inodes and inodes being freed off the writeback lists.
        unsafe { bindings::mark_inode_dirty(self.as_ptr()) }
    }
}

/// An inode whose `i_rwsem` is held exclusively, as the VFS holds it around `setattr`: its
/// attributes may be changed through this token.
///
/// The bindings make one where the VFS holds the lock and lend it (`&mut`) for the call, so it
/// cannot outlive the lock.
///
/// # Invariants
///
/// `i_rwsem` of the inode is held exclusively for `'a`.
pub struct LockedINode<'a, T: FileSystem>(&'a INode<T>);

impl<'a, T: FileSystem> LockedINode<'a, T> {
    /// # Safety
    ///
    /// The inode's `i_rwsem` must be held exclusively for `'a`.
    #[inline]
    pub(crate) unsafe fn new(inode: &'a INode<T>) -> Self {
        // INVARIANT: The caller guarantees the lock is held.
        Self(inode)
    }

    /// Copies the attributes of `attr` other than the size into the inode (`setattr_copy`):
    /// owner, group, times and mode (clearing the set-group-id bit where the caller may not
    /// keep it), as most file systems do after checking them with [`Attr::prepare`].
    #[inline]
    pub fn setattr_copy(&mut self, attr: &Attr) {
        // SAFETY: The inode is valid and its `i_rwsem` held exclusively (type invariants), which
        // `setattr_copy` asks for; `attr` is valid. The bindings' file systems do not support
        // idmapped mounts, so the initial idmapping is the one to use.
        unsafe {
            bindings::setattr_copy(
                &raw mut bindings::nop_mnt_idmap,
                self.0.as_ptr(),
                attr.0.get(),
            )
        }
    }
}

impl<T: FileSystem> Deref for LockedINode<'_, T> {
    type Target = INode<T>;

    #[inline]
    fn deref(&self) -> &INode<T> {
        self.0
    }
}

/// The attributes `setattr` is asked to change (`struct iattr`).
///
/// # Invariants
///
/// The `iattr` is valid for the lifetime of the reference.
#[repr(transparent)]
pub struct Attr(Opaque<bindings::iattr>);

impl Attr {
    /// # Safety
    ///
    /// `ptr` must be a valid `iattr`, not used by anyone else for `'a`.
    #[inline]
    unsafe fn from_raw_mut<'a>(ptr: *mut bindings::iattr) -> &'a mut Self {
        // SAFETY: `Attr` is `repr(transparent)` over `iattr`, valid for `'a` (caller).
        unsafe { &mut *ptr.cast::<Self>() }
    }

    /// Returns the `ATTR_*` bits of what is to change (`ia_valid`).
    #[inline]
    pub fn valid(&self) -> u32 {
        // SAFETY: The `iattr` is valid (type invariants).
        unsafe { (*self.0.get()).ia_valid }
    }

    /// Returns the new mode if the mode is to change (`ATTR_MODE`).
    #[inline]
    pub fn mode(&self) -> Option<u16> {
        if self.valid() & bindings::ATTR_MODE == 0 {
            return None;
        }
        // SAFETY: The `iattr` is valid (type invariants).
        Some(unsafe { (*self.0.get()).ia_mode })
    }

    /// Returns the new size if the size is to change (`ATTR_SIZE`).
    #[inline]
    pub fn size(&self) -> Option<i64> {
        if self.valid() & bindings::ATTR_SIZE == 0 {
            return None;
        }
        // SAFETY: The `iattr` is valid (type invariants).
        Some(unsafe { (*self.0.get()).ia_size })
    }

    /// Checks that the caller may make the change to `dentry`'s inode (`setattr_prepare`):
    /// ownership, permissions, immutable and append-only files, the size limit.
    #[inline]
    pub fn prepare<T: FileSystem>(&mut self, dentry: &DEntry<T>) -> Result {
        // SAFETY: The dentry and the `iattr` are valid; the bindings' file systems use the
        // initial idmapping (no `FS_ALLOW_IDMAP`).
        to_result(unsafe {
            bindings::setattr_prepare(
                &raw mut bindings::nop_mnt_idmap,
                dentry.as_ptr(),
                self.0.get(),
            )
        })
    }
}

/// # Safety
///
/// `setattr` of `struct inode_operations`: `dentry` is a positive dentry of file system `T` whose
/// inode's `i_rwsem` is held exclusively (`notify_change`), `iattr` is valid, both for the call.
pub(crate) unsafe extern "C" fn setattr_callback<
    T: FileSystem,
    U: INodeOperations<FileSystem = T> + ?Sized,
>(
    _idmap: *mut bindings::mnt_idmap,
    dentry: *mut bindings::dentry,
    iattr: *mut bindings::iattr,
) -> c_int {
    from_result(|| {
        // SAFETY: The VFS passes a valid dentry of this file system for the call.
        let dentry = unsafe { DEntry::<T>::from_raw(dentry) };
        let inode = dentry.inode().ok_or(EINVAL)?;
        // SAFETY: `notify_change` holds the inode's `i_rwsem` exclusively during the call.
        let mut locked = unsafe { LockedINode::new(inode) };
        // SAFETY: `iattr` is valid and ours for the call.
        let attr = unsafe { Attr::from_raw_mut(iattr) };
        U::setattr(dentry, &mut locked, attr)?;
        Ok(0)
    })
}

/// What a write of an inode asks for (`struct writeback_control`).
///
/// # Invariants
///
/// The `writeback_control` is valid for the lifetime of the reference.
#[repr(transparent)]
pub struct WritebackControl(Opaque<bindings::writeback_control>, PhantomData<()>);

impl WritebackControl {
    /// # Safety
    ///
    /// `ptr` must be a valid `writeback_control` for `'a`.
    #[inline]
    pub(crate) unsafe fn from_raw<'a>(ptr: *mut bindings::writeback_control) -> &'a Self {
        // SAFETY: `WritebackControl` is `repr(transparent)` over it, valid for `'a` (caller).
        unsafe { &*ptr.cast::<Self>() }
    }

    // patch: trunc
    /// # Safety
    ///
    /// `ptr` must be a valid `writeback_control`, not used by anyone else for `'a`.
    #[inline]
    pub(crate) unsafe fn from_raw_mut<'a>(ptr: *mut bindings::writeback_control) -> &'a mut Self {
        // SAFETY: `WritebackControl` is `repr(transparent)` over it, valid and ours for `'a`
        // (caller).
        unsafe { &mut *ptr.cast::<Self>() }
    }

    /// Returns the raw pointer, for the writers that take it.
    #[inline]
    pub(crate) fn as_ptr(&self) -> *mut bindings::writeback_control {
        self.0.get()
    }
    // patch: end

    /// Returns whether this is a data-integrity write (`WB_SYNC_ALL`): the inode must be on the
    /// device, or its write at least submitted and waited for, when the call returns.
    #[inline]
    pub fn sync_all(&self) -> bool {
        // SAFETY: The `writeback_control` is valid (type invariants).
        unsafe { (*self.0.get()).sync_mode == bindings::writeback_sync_modes_WB_SYNC_ALL }
    }
}

// patch: trunc
impl<T: FileSystem> UncountedINode<T> {
    /// Returns whether changes to the inode must reach the disk before the call that made them
    /// returns (`inode_needs_sync`: the `sync` mount option, the inode's sync flag, or the
    /// `dirsync` ones for a directory).
    #[inline]
    pub fn needs_sync(&self) -> bool {
        // SAFETY: The inode is valid; the flags are read once.
        unsafe { bindings::inode_needs_sync(self.as_ptr()) != 0 }
    }

    /// Subtracts `bytes` from the space the inode uses (`inode_sub_bytes`: `i_blocks` and
    /// `i_bytes`, under `i_lock`), for blocks the file system freed. The inode is not marked
    /// dirty.
    #[inline]
    pub fn sub_bytes(&self, bytes: u64) {
        // SAFETY: The inode is valid; `inode_sub_bytes` takes `i_lock`. A count that would go
        // below zero wraps, as in C, without other harm.
        unsafe { bindings::inode_sub_bytes(self.as_ptr(), bytes as i64) }
    }
}

impl<T: FileSystem> INode<T> {
    /// Waits for the direct I/O in flight on the inode to finish (`inode_dio_wait`), as a
    /// truncate does before it frees blocks that I/O may use. May sleep.
    #[inline]
    pub fn dio_wait(&self) {
        // SAFETY: The inode is valid (we hold a reference).
        unsafe { bindings::inode_dio_wait(self.as_ptr()) }
    }

    /// Writes the inode (not its data) and waits for it if `wait` (`sync_inode_metadata`): the
    /// file system's [`write_inode`](crate::fs::sb::SuperOperations::write_inode) with a
    /// data-integrity write. May sleep.
    #[inline]
    pub fn sync_metadata(&self, wait: bool) -> Result {
        // SAFETY: The inode is valid and referenced.
        to_result(unsafe { bindings::sync_inode_metadata(self.as_ptr(), wait.into()) })
    }
}

impl<'a, T: FileSystem> LockedINode<'a, T> {
    /// Sets the modification and change times to now (`inode_set_ctime_current`,
    /// `inode_set_mtime_to_ts`), as a truncate or a write does. The inode is not marked dirty.
    #[inline]
    pub fn set_mtime_ctime_now(&mut self) {
        // SAFETY: The inode is valid and its `i_rwsem` held exclusively (type invariants),
        // under which the times change.
        unsafe {
            let now = bindings::inode_set_ctime_current(self.0.as_ptr());
            bindings::inode_set_mtime_to_ts(self.0.as_ptr(), now);
        }
    }

    /// Takes the inode's invalidate lock exclusively (`filemap_invalidate_lock`), which keeps
    /// page faults and reads from filling the page cache while it is truncated, until the guard
    /// is dropped. May sleep.
    #[inline]
    pub fn lock_invalidate(&mut self) -> InvalidateGuard<'_, 'a, T> {
        // SAFETY: The inode is valid and so is its mapping.
        unsafe { bindings::filemap_invalidate_lock((*self.0.as_ptr()).i_mapping) };
        // INVARIANT: The lock is taken, by this guard.
        InvalidateGuard(self)
    }
}

/// An inode whose `i_rwsem` and invalidate lock are held exclusively (see
/// [`LockedINode::lock_invalidate`]): its size may change. Unlocked when dropped.
///
/// # Invariants
///
/// The inode's `mapping->invalidate_lock` is held exclusively by this guard.
pub struct InvalidateGuard<'b, 'a, T: FileSystem>(&'b mut LockedINode<'a, T>);

impl<T: FileSystem> InvalidateGuard<'_, '_, T> {
    /// Sets the size of the inode to `size` and removes the page cache beyond it
    /// (`truncate_setsize`), which a truncate does before it frees the blocks there. `EINVAL`
    /// for a negative size. May sleep.
    #[inline]
    pub fn truncate_setsize(&mut self, size: i64) -> Result {
        if size < 0 {
            return Err(EINVAL);
        }
        // SAFETY: The inode is valid and referenced; `truncate_setsize` asks for its `i_rwsem`
        // held exclusively (`LockedINode`'s invariant), and C's file systems hold the
        // invalidate lock too (this guard's).
        unsafe { bindings::truncate_setsize(self.0 .0.as_ptr(), size) };
        Ok(())
    }
}

impl<T: FileSystem> Deref for InvalidateGuard<'_, '_, T> {
    type Target = INode<T>;

    #[inline]
    fn deref(&self) -> &INode<T> {
        self.0 .0
    }
}

impl<T: FileSystem> Drop for InvalidateGuard<'_, '_, T> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: The lock is held by this guard (type invariants).
        unsafe { bindings::filemap_invalidate_unlock((*self.0 .0.as_ptr()).i_mapping) };
    }
}
// patch: end

// patch: write
impl<'a, T: FileSystem> LockedINode<'a, T> {
    /// Returns the inode, for as long as the lock is held.
    #[inline]
    pub(crate) fn inode(&self) -> &'a INode<T> {
        self.0
    }
}

impl<T: FileSystem> UncountedINode<T> {
    /// Sets the change time to now (`inode_set_ctime_current`), as a block allocation does
    /// (`ext2_splice_branch`), also in writeback, which holds no lock of the inode. The inode is
    /// not marked dirty.
    #[inline]
    pub fn set_ctime_now(&self) {
        // SAFETY: The inode is valid. Without the `i_rwsem` this store may race with other
        // updates of the times and with their readers: timestamps are the kernel's exception,
        // updated under no lock in C too (`touch_atime`; the block allocations of writeback),
        // and the bindings read them with READ_ONCE.
        unsafe { bindings::inode_set_ctime_current(self.as_ptr()) };
    }

    /// Adds `bytes` to the space the inode uses (`inode_add_bytes`: `i_blocks` and `i_bytes`,
    /// under `i_lock`), for blocks the file system allocated. The inode is not marked dirty.
    #[inline]
    pub fn add_bytes(&self, bytes: u64) {
        // SAFETY: The inode is valid; `inode_add_bytes` takes `i_lock`. A count that would
        // overflow wraps, as in C, without other harm.
        unsafe { bindings::inode_add_bytes(self.as_ptr(), bytes as i64) }
    }
}

impl<T: FileSystem> InvalidateGuard<'_, '_, T> {
    /// Removes the page cache from byte `from` on, without changing the size
    /// (`truncate_pagecache`), as a failed write that allocated past the size does before it
    /// frees those blocks. `EINVAL` for a negative `from`. May sleep.
    #[inline]
    pub fn truncate_pagecache(&mut self, from: i64) -> Result {
        if from < 0 {
            return Err(EINVAL);
        }
        // SAFETY: The inode is valid and referenced, its `i_rwsem` and invalidate lock held
        // exclusively (type invariants), as `truncate_pagecache` asks.
        unsafe { bindings::truncate_pagecache(self.0 .0.as_ptr(), from) };
        Ok(())
    }
}
// patch: end

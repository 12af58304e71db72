// SPDX-License-Identifier: GPL-2.0

//! Creating and removing files: new inodes (`new_inode`, `insert_inode_locked`), the negative
//! dentry that `create` must instantiate (`d_instantiate_new`), link counts, and the eviction of
//! inodes (`evict_inode`), where a file system frees the inodes that lost their last link.
//!
//! C headers: [`include/linux/fs.h`](srctree/include/linux/fs.h),
//! [`include/linux/dcache.h`](srctree/include/linux/dcache.h)

use super::{INode, INodeOperations, INodeParams, INodeWithData, LockedINode, NewINode};
use super::{Timespec, UncountedINode};
use crate::error::{from_result, to_result, Result};
use crate::fs::{dentry::DEntry, sb::SuperBlock, sb::SuperOperations, FileSystem};
use crate::sync::aref::ARef;
use crate::{bindings, prelude::*};
use core::{marker::PhantomData, mem::ManuallyDrop, ops::Deref, ptr, ptr::NonNull};

impl<T: FileSystem> SuperBlock<T> {
    /// Allocates an inode numbered `ino` for a file being created (`new_inode`, then
    /// `insert_inode_locked`): it is hashed and locked (`I_NEW`), so lookups of the number wait
    /// until it is set up. The file system chose `ino` (it owns it on disk); `EEXIST` if an
    /// inode with that number is in the cache, which on a consistent file system cannot be.
    ///
    /// The returned [`NewINode`] is set up as in [`SuperBlock::iget`] and then initialised
    /// with [`NewINode::init_created`]; dropped before that, it is marked bad and released
    /// (`iget_failed`). May sleep.
    pub fn new_inode(&self, ino: u64) -> Result<NewINode<T>> {
        // SAFETY: The superblock is valid; `new_inode` returns an inode of it (allocated by the
        // bindings' `alloc_inode`, with a reference we own) or NULL.
        let inode = NonNull::new(unsafe { bindings::new_inode(self.as_ptr()) }).ok_or(ENOMEM)?;
        let inode = inode.as_ptr();
        // SAFETY: The inode is new, unhashed and ours: no one else reads `i_ino` before it is
        // hashed by `insert_inode_locked`, which orders the store before lookups see it.
        unsafe { (*inode).i_ino = ino };
        // SAFETY: The inode is valid and unhashed.
        if unsafe { bindings::insert_inode_locked(inode) } < 0 {
            // SAFETY: The inode was not inserted, so it is not `I_NEW`; its data is not
            // initialised, so the bindings' eviction does not hand it to the file system.
            unsafe {
                bindings::make_bad_inode(inode);
                bindings::iput(inode);
            }
            return Err(EEXIST);
        }
        // SAFETY: We own the reference `new_inode` returned; the inode is of this superblock,
        // hence of `T`, and `I_NEW`, which only `NewINode` clears.
        Ok(NewINode::new(unsafe {
            ARef::from_raw(NonNull::new_unchecked(inode.cast()))
        }))
    }
}

impl<T: FileSystem> SuperBlock<T> {
    /// Holds off a freeze of the file system until the guard is dropped (`sb_start_intwrite`),
    /// as a file system does while it changes its metadata outside a system call, e.g. when it
    /// frees an evicted inode. May sleep (while the file system is frozen).
    #[inline]
    pub fn start_intwrite(&self) -> IntWriteGuard<'_> {
        // SAFETY: The superblock is valid.
        unsafe { bindings::sb_start_intwrite(self.as_ptr()) };
        // INVARIANT: Taken just now.
        IntWriteGuard(self.as_ptr(), PhantomData)
    }
}

impl<T: FileSystem> NewINode<T> {
    /// Sets the owner, group and mode of a new inode created in directory `dir` with `mode` as C
    /// file systems do (`inode_init_owner`: the caller's fs ids, or the directory's group if it
    /// is set-group-id, which a new directory inherits) and returns them as `(uid, gid, mode)`
    /// in the initial user namespace, for the [`INodeParams`] of
    /// [`NewINode::init_created`].
    pub fn init_owner(&mut self, dir: &INode<T>, mode: u16) -> (u32, u32, u16) {
        // SAFETY: The new inode is ours (`I_NEW`) and `dir` valid; the bindings' file systems
        // use the initial idmapping. The fields are read back from the inode we just wrote.
        unsafe {
            bindings::inode_init_owner(
                &raw mut bindings::nop_mnt_idmap,
                self.as_ptr(),
                dir.as_ptr(),
                mode,
            );
            (
                bindings::i_uid_read(self.as_ptr()),
                bindings::i_gid_read(self.as_ptr()),
                (*self.as_ptr()).i_mode,
            )
        }
    }

    /// Initialises a new inode from [`SuperBlock::new_inode`] with `params` and keeps it locked
    /// (`I_NEW`) until it is given a name with [`Negative::instantiate_new`]: the returned
    /// [`Created`] discards it when dropped. Fails as the initialisation in
    /// [`SuperBlock::iget`] does.
    pub fn init_created(mut self, params: INodeParams<T>) -> Result<Created<T>> {
        self.fill(params)?;
        let me = ManuallyDrop::new(self);
        // SAFETY: `me` is never used or dropped again, so the reference it owns is moved out
        // exactly once; the inode is initialised and still `I_NEW`.
        Ok(Created(unsafe { ptr::read(&me.0) }))
    }
}

/// A new, initialised inode that has no name yet, still locked (`I_NEW`): made by
/// [`NewINode::init_created`], given its name by [`Negative::instantiate_new`].
///
/// Dropped instead, it is discarded: its link count goes to zero and it is unlocked and
/// released (`clear_nlink`, `discard_new_inode`), so that its eviction frees what the file
/// system allocated for it (see [`SuperOperations::evict_inode`]).
///
/// # Invariants
///
/// The inode is initialised, hashed, `I_NEW`, and the reference is owned by this value.
pub struct Created<T: FileSystem>(ManuallyDrop<ARef<INode<T>>>);

impl<T: FileSystem> Created<T> {
    /// Gives up the inode's reference, still `I_NEW`, to the caller.
    pub(super) fn into_raw(self) -> *mut bindings::inode {
        let me = ManuallyDrop::new(self);
        me.0.as_ptr()
    }
}

impl<T: FileSystem> Deref for Created<T> {
    type Target = INode<T>;

    #[inline]
    fn deref(&self) -> &INode<T> {
        &self.0
    }
}

impl<T: FileSystem> Drop for Created<T> {
    fn drop(&mut self) {
        // SAFETY: By the type invariants the inode is new and we own a reference:
        // `discard_new_inode` unlocks it and drops the reference. It never had a name, so no
        // link counts it.
        unsafe {
            bindings::clear_nlink(self.0.as_ptr());
            bindings::discard_new_inode(self.0.as_ptr());
        }
    }
}

/// The negative dentry of a name being created in a locked directory (`create`): the call
/// succeeds only by giving it an inode ([`Negative::instantiate_new`]), which returns the
/// [`Instantiated`] proof that `create` returns.
pub struct Negative<'a, T: FileSystem> {
    pub(super) dentry: *mut bindings::dentry,
    _p: PhantomData<&'a DEntry<T>>,
}

impl<'a, T: FileSystem> Negative<'a, T> {
    /// # Safety
    ///
    /// `ptr` must be a valid negative dentry of a directory of `T` whose `i_rwsem` is held
    /// exclusively for `'a`, given to one call of the file system.
    #[inline]
    pub(super) unsafe fn from_raw(ptr: *mut bindings::dentry) -> Self {
        Self {
            dentry: ptr,
            _p: PhantomData,
        }
    }

    /// Returns the name being created.
    #[inline]
    pub fn name(&self) -> &'a [u8] {
        // SAFETY: The name of a dentry is stable while its parent is locked, and the dentry
        // lives for `'a`.
        unsafe { crate::fs::dentry::name_of(self.dentry) }
    }

    /// Gives the dentry its new inode and unlocks the inode (`d_instantiate_new`). `EIO` if
    /// the inode is of another superblock (it is discarded then).
    pub fn instantiate_new(self, inode: Created<T>) -> Result<Instantiated<'a>> {
        // SAFETY: The dentry is valid; `d_sb` never changes.
        if inode.super_block().as_ptr() != unsafe { (*self.dentry).d_sb } {
            return Err(EIO);
        }
        let inode = inode.into_raw();
        // SAFETY: The dentry is negative and ours for the call; the inode is new, initialised
        // and of the same superblock. `d_instantiate_new` takes over our reference and unlocks
        // the inode.
        unsafe { bindings::d_instantiate_new(self.dentry, inode) };
        Ok(Instantiated(PhantomData))
    }
}

/// The proof that the dentry of a `create` call was instantiated: only
/// [`Negative::instantiate_new`] makes one. Invariant in `'a`, so a proof cannot stand for
/// another call's dentry.
pub struct Instantiated<'a>(pub(super) PhantomData<fn(&'a ()) -> &'a ()>);

impl<'a, T: FileSystem> LockedINode<'a, T> {
    /// Drops one link of the inode and marks it dirty (`inode_dec_link_count`), as a removed
    /// name does. `ENOENT` if it has none left (a link count that a corrupt file system got
    /// wrong: C's `drop_nlink` would warn).
    #[inline]
    pub fn dec_link_count(&mut self) -> Result {
        if self.nlink() == 0 {
            return Err(ENOENT);
        }
        // SAFETY: The inode is valid and its `i_rwsem` held exclusively (type invariants),
        // under which the link count changes; it is not zero.
        unsafe {
            bindings::drop_nlink(self.inode().as_ptr());
            bindings::mark_inode_dirty(self.inode().as_ptr());
        }
        Ok(())
    }

    /// Sets the change time to `ts` (`inode_set_ctime_to_ts`), as the target of an `unlink`
    /// gets its directory's. The inode is not marked dirty.
    #[inline]
    pub fn set_ctime(&mut self, ts: Timespec) {
        let inode = self.inode().as_ptr();
        // SAFETY: The inode is valid and its `i_rwsem` held exclusively (type invariants),
        // under which the times change; it is cut to the file system's granularity as
        // `current_time` cuts it.
        unsafe { bindings::inode_set_ctime_to_ts(inode, ts.truncated(inode)) };
    }
}

impl<T: FileSystem> DEntry<T> {
    /// Returns the name of the dentry in directory `dir`, whose `i_rwsem` the caller holds
    /// (`dir` is the token): no rename can change it meanwhile. The name lives as long as the
    /// lock is held (the token's lifetime, `'b` at most), not only as long as the token is
    /// borrowed, so the directory can be changed through the token while the name is used.
    /// `EINVAL` if the dentry is not in `dir`.
    pub fn name_in<'b>(&'b self, dir: &LockedINode<'b, T>) -> Result<&'b [u8]> {
        let rcu = crate::sync::rcu::read_lock();
        // SAFETY: The dentry is valid; its parent changes only by a rename, which needs the
        // parent's `i_rwsem`: while `dir`'s is held a dentry in it stays there, and one read
        // as elsewhere is not in `dir` either way. Dentries are freed after an RCU grace
        // period, so the parent read is valid under `rcu`, even if the dentry moves meanwhile.
        let in_dir = unsafe {
            let parent = ptr::read_volatile(&raw const (*self.as_ptr()).d_parent);
            !parent.is_null()
                && ptr::read_volatile(&raw const (*parent).d_inode) == dir.inode().as_ptr()
        };
        drop(rcu);
        if !in_dir {
            return Err(EINVAL);
        }
        // SAFETY: The dentry is valid for `'b`, and its name stable while the parent's
        // `i_rwsem` is held (see above), which it is for `'b`.
        Ok(unsafe { crate::fs::dentry::name_of(self.as_ptr()) })
    }
}

impl<T: FileSystem> INode<T> {
    /// Writes the dirty page cache of the inode and waits for it (`filemap_write_and_wait`),
    /// as C's directory code does after each change (`ext2_handle_dirsync`). May sleep.
    #[inline]
    pub fn write_and_wait(&self) -> Result {
        // SAFETY: The inode is valid and referenced, and so is its mapping.
        to_result(unsafe { bindings::filemap_write_and_wait((*self.as_ptr()).i_mapping) })
    }
}

/// An inode being evicted (`evict_inode`): the last reference is gone and the VFS is freeing it
/// (`I_FREEING`), so no one else uses it; its page cache is already gone
/// (`truncate_inode_pages_final`). The file system writes or frees what it keeps for it, then
/// [`Evicting::clear`]s it (`clear_inode`); the bindings clear it after the call otherwise.
///
/// # Invariants
///
/// The inode is initialised and being evicted by the caller of the call it was lent to; `cleared`
/// says whether `clear_inode` was called on it.
pub struct Evicting<'a, T: FileSystem> {
    inode: &'a UncountedINode<T>,
    cleared: bool,
}

impl<'a, T: FileSystem> Evicting<'a, T> {
    /// Returns whether the inode has no link left, so the file system frees it
    /// (`!inode->i_nlink`).
    #[inline]
    pub fn unlinked(&self) -> bool {
        self.inode.nlink() == 0
    }

    /// Returns the inode, for the whole call: it stays readable after [`Evicting::clear`] (its
    /// memory lives until it is destroyed, after the call).
    #[inline]
    pub fn inode(&self) -> &'a UncountedINode<T> {
        self.inode
    }

    /// Marks the inode dirty (`mark_inode_dirty`), so that [`Evicting::sync_metadata`] writes it
    /// (the VFS does not queue inodes being evicted for writeback).
    #[inline]
    pub fn mark_dirty(&self) {
        if !self.cleared {
            self.inode.mark_dirty();
        }
    }

    /// Writes the inode (`sync_inode_metadata`), waiting if `wait`. Nothing once cleared.
    #[inline]
    pub fn sync_metadata(&self, wait: bool) -> Result {
        if self.cleared {
            return Ok(());
        }
        // SAFETY: The inode is valid and being evicted by our caller, which waits for its
        // writeback (`inode_wait_for_writeback`) before `evict_inode`; the VFS's own writeback
        // skips inodes that are `I_FREEING`, so this is the only write.
        to_result(unsafe { bindings::sync_inode_metadata(self.inode.as_ptr(), wait.into()) })
    }

    /// Sets the size of the inode (`i_size_write`), as a file system truncating an unlinked
    /// inode does before it frees its blocks.
    #[inline]
    pub fn set_size(&self, size: i64) {
        // SAFETY: The inode is valid and no one else uses it (type invariants).
        unsafe { bindings::i_size_write(self.inode.as_ptr(), size) };
    }

    /// Ends the inode's life in the VFS (`clear_inode`): after this it is not written again.
    /// Its metadata buffer list is emptied first (`mmb_invalidate`: the buffers stay dirty for
    /// the device's writeback). Does nothing the second time.
    #[inline]
    pub fn clear(&mut self) {
        if self.cleared {
            return;
        }
        self.cleared = true;
        let inode = self.inode.as_ptr();
        // SAFETY: The inode is being evicted (type invariants): its pages are gone and it is
        // cleared once. Its list is the one `alloc_inode_callback` initialised.
        unsafe {
            #[cfg(CONFIG_BUFFER_HEAD)]
            bindings::mmb_invalidate(INodeWithData::<T>::mmb(inode));
            bindings::clear_inode(inode);
        }
    }
}

impl<T: FileSystem> Deref for Evicting<'_, T> {
    type Target = UncountedINode<T>;

    #[inline]
    fn deref(&self) -> &UncountedINode<T> {
        self.inode
    }
}

/// A freeze of the file system held off (see [`SuperBlock::start_intwrite`]).
///
/// # Invariants
///
/// `sb_start_intwrite` was called on the superblock, which lives for `'a`.
pub struct IntWriteGuard<'a>(*mut bindings::super_block, PhantomData<&'a ()>);

impl Drop for IntWriteGuard<'_> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: Taken by this guard (type invariants).
        unsafe { bindings::sb_end_intwrite(self.0) };
    }
}

/// Returns a random number (`get_random_u32`), as C file systems seed the generation numbers
/// of their new inodes with at mount (`s_next_generation`).
#[inline]
pub fn random_u32() -> u32 {
    // SAFETY: `get_random_u32` may be called from any context after boot.
    unsafe { bindings::get_random_u32() }
}

/// # Safety
///
/// `evict_inode` of `struct super_operations`: `inode` is an inode of `T` whose last reference
/// is gone, being evicted (`I_FREEING`) by the caller, on a live superblock.
pub(crate) unsafe extern "C" fn evict_inode_callback<
    T: FileSystem,
    U: SuperOperations<FileSystem = T> + ?Sized,
>(
    inode: *mut bindings::inode,
) {
    // SAFETY: The inode is valid and ours to evict; its page cache goes first, as in every C
    // file system (no one can read it again).
    unsafe { bindings::truncate_inode_pages_final(&raw mut (*inode).i_data) };
    // SAFETY: The inode was allocated by the bindings and is not `I_NEW` any more (evict runs
    // after `unlock_new_inode` or `discard_new_inode`). An inode whose set-up failed (bad)
    // has no data: the file system never saw it.
    if unsafe { INodeWithData::<T>::data_initialised(inode) } {
        // INVARIANT: The inode is initialised (its data is) and being evicted by our caller.
        let mut evicting = Evicting {
            // SAFETY: The inode is initialised, of `T`, on a live superblock, and its memory
            // lives until it is destroyed, after this call.
            inode: unsafe { UncountedINode::from_raw(inode) },
            cleared: false,
        };
        U::evict_inode(&mut evicting);
        evicting.clear();
    } else {
        // SAFETY: As above; the file system kept nothing for it.
        unsafe { bindings::clear_inode(inode) };
    }
}

/// # Safety
///
/// `create` of `struct inode_operations`: `dir` is a directory of `T` whose `i_rwsem` is held
/// exclusively (`vfs_create`), `dentry` a negative dentry in it, both valid for the call.
pub(crate) unsafe extern "C" fn create_callback<
    T: FileSystem,
    U: INodeOperations<FileSystem = T> + ?Sized,
>(
    _idmap: *mut bindings::mnt_idmap,
    dir: *mut bindings::inode,
    dentry: *mut bindings::dentry,
    mode: bindings::umode_t,
) -> c_int {
    // SAFETY: As this function's safety requirements say.
    from_result(|| unsafe { creating::<T>(dir, dentry, |d, n| U::create(d, n, mode)) }.map(|()| 0))
}

/// What the callbacks that create a name share (`create`, `mkdir`, `mknod`, `symlink`): the
/// directory's token and the negative dentry lent to `f`, and a success that left the dentry
/// negative refused (only [`Negative::instantiate_new`] makes the proof `f` returns, but the
/// VFS must never see a negative dentry after a success).
///
/// # Safety
///
/// `dir` is a directory of `T` whose `i_rwsem` is held exclusively for the call, `dentry` a
/// negative dentry in it, both valid for the call.
pub(super) unsafe fn creating<T: FileSystem>(
    dir: *mut bindings::inode,
    dentry: *mut bindings::dentry,
    f: impl for<'a> FnOnce(&mut LockedINode<'_, T>, Negative<'a, T>) -> Result<Instantiated<'a>>,
) -> Result {
    // SAFETY: The VFS passes a valid, referenced directory of this file system whose `i_rwsem`
    // it holds exclusively for the call (the caller's promise).
    let mut locked = unsafe { LockedINode::new(INode::<T>::from_raw(dir)) };
    // SAFETY: The dentry is negative, in `dir`, valid and ours for the call.
    let negative = unsafe { Negative::<T>::from_raw(dentry) };
    f(&mut locked, negative)?;
    // SAFETY: The dentry is valid.
    if unsafe { (*dentry).d_inode }.is_null() {
        return Err(EIO);
    }
    Ok(())
}

/// # Safety
///
/// `unlink` of `struct inode_operations`: `dir` is a directory of `T` whose `i_rwsem` is held
/// exclusively and `dentry` a positive dentry in it whose inode's `i_rwsem` is held too
/// (`vfs_unlink`), both valid for the call.
pub(crate) unsafe extern "C" fn unlink_callback<
    T: FileSystem,
    U: INodeOperations<FileSystem = T> + ?Sized,
>(
    dir: *mut bindings::inode,
    dentry: *mut bindings::dentry,
) -> c_int {
    from_result(|| {
        // SAFETY: The VFS passes a valid dentry of this file system for the call.
        let dentry = unsafe { DEntry::<T>::from_raw(dentry) };
        let inode = dentry.inode().ok_or(ENOENT)?;
        // SAFETY: `vfs_unlink` holds the directory's `i_rwsem` exclusively during the call.
        let mut dir = unsafe { LockedINode::new(INode::<T>::from_raw(dir)) };
        // SAFETY: `vfs_unlink` holds the target's `i_rwsem` exclusively too.
        let mut target = unsafe { LockedINode::new(inode) };
        U::unlink(&mut dir, dentry, &mut target)?;
        Ok(0)
    })
}

// patch: sec
impl<T: FileSystem> Created<T> {
    /// Asks the security modules for the attributes of the new inode, created in `dir` as the
    /// name of `dentry` (`None` for a temporary file, which has no name), and stores each one
    /// with `set` (`security_inode_init_security` with `set` as its `initxattrs`): `set` gets
    /// a name without the `security.` prefix and its value, and its first error ends the list
    /// and is returned. Without a security module that labels new inodes, `set` is not called.
    ///
    /// The inode is still `I_NEW`, so no one else sees it yet: `set` writes its attributes as a
    /// file system's `set` handler would, without its `i_rwsem`.
    pub fn init_security<F>(
        &self,
        dir: &INode<T>,
        dentry: Option<&Negative<'_, T>>,
        mut set: F,
    ) -> Result
    where
        F: FnMut(&CStr, &[u8]) -> Result,
    {
        let qstr = match dentry {
            // SAFETY: The dentry is valid and its name stable while its parent is locked
            // (`Negative`'s invariants).
            Some(d) => unsafe { bindings::dentry_qstr(d.dentry) },
            None => ptr::null(),
        };
        // SAFETY: Both inodes are valid, `dir` is the directory the inode is created in, and
        // `qstr` is NULL or the name of the dentry being created, stable for the call.
        // `initxattrs_callback::<F>` is called (if at all) before the function returns, with
        // `fs_data`, which points to `set`, borrowed mutably for the call and not moved.
        to_result(unsafe {
            bindings::security_inode_init_security(
                self.as_ptr(),
                dir.as_ptr(),
                qstr,
                Some(initxattrs_callback::<F>),
                ptr::from_mut(&mut set).cast(),
            )
        })
    }
}

/// The `initxattrs` of [`Created::init_security`]: calls the closure with each attribute of
/// the NULL-terminated array until it fails.
///
/// # Safety
///
/// `array` is an array of `struct xattr` terminated by an entry with a NULL name, whose names
/// are NUL-terminated and whose values are valid for their lengths, all for the call; `fs_data`
/// points to an `F` borrowed mutably by no one else for the call.
unsafe extern "C" fn initxattrs_callback<F>(
    _inode: *mut bindings::inode,
    array: *const bindings::xattr,
    fs_data: *mut c_void,
) -> c_int
where
    F: FnMut(&CStr, &[u8]) -> Result,
{
    // SAFETY: By the safety requirements `fs_data` is an `F` that is ours for the call.
    let set = unsafe { &mut *fs_data.cast::<F>() };
    let mut entry = array;
    loop {
        // SAFETY: By the safety requirements `entry` is within the array: every entry up to
        // and including the terminating one is valid.
        let x = unsafe { &*entry };
        if x.name.is_null() {
            return 0;
        }
        // SAFETY: The name of an entry is a valid NUL-terminated string for the call.
        let name = unsafe { CStr::from_char_ptr(x.name) };
        let value = if x.value.is_null() || x.value_len == 0 {
            &[][..]
        } else {
            // SAFETY: The value of an entry is valid for `value_len` bytes for the call.
            unsafe { core::slice::from_raw_parts(x.value.cast::<u8>(), x.value_len) }
        };
        if let Err(e) = set(name, value) {
            return e.to_errno();
        }
        // SAFETY: `x` is not the terminating entry, so the next one is within the array.
        entry = unsafe { entry.add(1) };
    }
}
// patch: end

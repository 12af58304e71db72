// SPDX-License-Identifier: GPL-2.0

//! The rest of the namespace: directories made and removed (`mkdir`, `rmdir`), special files
//! (`mknod`), symbolic links (`symlink`) and hard links (`link`), with the link counts and the
//! locks the VFS holds for each.
//!
//! C headers: [`include/linux/fs.h`](srctree/include/linux/fs.h),
//! [`include/linux/dcache.h`](srctree/include/linux/dcache.h)

use super::create::creating;
use super::{Created, Dev, INode, INodeOperations, Instantiated, LockedINode, Negative};
use crate::error::{from_result, Result};
use crate::fs::{dentry::DEntry, sb::New, sb::SuperBlock, FileSystem};
use crate::{bindings, prelude::*};
use core::marker::PhantomData;

impl<'a, T: FileSystem> Negative<'a, T> {
    /// Gives the dentry an inode that has a name already (`d_instantiate`, with a reference of
    /// its own: `ihold`), as `link` does after adding the new name. The caller raised the link
    /// count ([`LockedINode::inc_link_count`]). `EIO` if the inode is of another superblock,
    /// `EPERM` if it is a directory (a directory has one name: a second dentry of it would
    /// break the VFS's tree).
    pub fn instantiate_linked(self, inode: &LockedINode<'_, T>) -> Result<Instantiated<'a>> {
        // SAFETY: The dentry is valid; `d_sb` never changes.
        if inode.super_block().as_ptr() != unsafe { (*self.dentry).d_sb } {
            return Err(EIO);
        }
        if inode.mode() & super::mode::S_IFMT == super::mode::S_IFDIR {
            return Err(EPERM);
        }
        // SAFETY: The inode is valid, referenced and set up (not `I_NEW`: a `LockedINode` is
        // of a live inode), so `ihold` may take a reference, which `d_instantiate` takes over;
        // the dentry is negative and ours for the call, of the same superblock.
        unsafe {
            bindings::ihold(inode.as_ptr());
            bindings::d_instantiate(self.dentry, inode.as_ptr());
        }
        Ok(Instantiated(PhantomData))
    }
}

impl<'a, T: FileSystem> LockedINode<'a, T> {
    /// Adds a link to the inode and marks it dirty (`inode_inc_link_count`), as a new name
    /// (`link`) or a new subdirectory's `..` does. `ENOENT` if it has no link left, but for an
    /// `O_TMPFILE` inode being linked (`I_LINKABLE`; C's `inc_nlink` would warn otherwise),
    /// `EMLINK` if the count cannot grow.
    #[inline]
    pub fn inc_link_count(&mut self) -> Result {
        // SAFETY: The inode is valid; its state is read as `vfs_link` reads it.
        let linkable = unsafe { bindings::inode_state_read_once(self.inode().as_ptr()) }
            & bindings::inode_state_flags_enum_I_LINKABLE
            != 0;
        match self.nlink() {
            0 if !linkable => Err(ENOENT),
            u32::MAX => Err(EMLINK),
            _ => {
                // SAFETY: The inode is valid and its `i_rwsem` held exclusively (type
                // invariants), under which the link count changes; it is neither zero nor
                // the largest count.
                unsafe {
                    bindings::inc_nlink(self.inode().as_ptr());
                    bindings::mark_inode_dirty(self.inode().as_ptr());
                }
                Ok(())
            }
        }
    }

    /// Sets the size of the inode (`i_size_write`) without touching its page cache, as a
    /// removed directory's size is set to zero (`rmdir`). The inode is not marked dirty.
    /// `EINVAL` for a negative size.
    #[inline]
    pub fn set_size(&mut self, size: i64) -> Result {
        if size < 0 {
            return Err(EINVAL);
        }
        // SAFETY: The inode is valid and its `i_rwsem` held exclusively (type invariants),
        // which serialises the writers of `i_size`.
        unsafe { bindings::i_size_write(self.inode().as_ptr(), size) };
        Ok(())
    }
}

impl<T: FileSystem> INode<T> {
    /// Calls `f` with the inode's `i_rwsem` held exclusively (`inode_lock`): e.g. to write a
    /// new inode ([`Created`] dereferences to it) before it is named (a directory's first
    /// block, a symbolic link's target through its page cache), or as an ioctl that changes
    /// an inode takes it. May sleep; the caller must not hold it already (that would
    /// deadlock, as in C).
    pub fn with_lock<R>(&self, f: impl FnOnce(&mut LockedINode<'_, T>) -> R) -> R {
        // SAFETY: The inode is valid and referenced.
        unsafe { bindings::inode_lock(self.as_ptr()) };
        // SAFETY: Held just now, until after `f` returns; the token cannot escape `f`.
        let mut locked = unsafe { LockedINode::new(self) };
        let r = f(&mut locked);
        // SAFETY: Taken above; the token is gone.
        unsafe { bindings::inode_unlock(self.as_ptr()) };
        r
    }
}

/// The file of an `O_TMPFILE` open (`tmpfile`), whose dentry has no name: the call succeeds
/// only by giving it a new inode and opening it ([`TmpFile::instantiate`]).
pub struct TmpFile<'a, T: FileSystem> {
    file: *mut bindings::file,
    _p: PhantomData<&'a DEntry<T>>,
}

impl<'a, T: FileSystem> TmpFile<'a, T> {
    /// Gives the file's dentry `inode`, a new regular file with one link, which it loses
    /// (`d_tmpfile`: an unnamed inode, freed at its last close unless `linkat(2)` names it),
    /// unlocks the inode and opens the file (`finish_open_simple`). `EIO` if the inode is of
    /// another superblock, `EINVAL` if it is not a regular file with one link (it is
    /// discarded then).
    pub fn instantiate(self, inode: Created<T>) -> Result<Instantiated<'a>> {
        // SAFETY: The file is valid and ours for the call; `f_path.dentry`, set by
        // `vfs_tmpfile`, is of the directory's superblock.
        if inode.super_block().as_ptr() != unsafe { (*bindings::file_dentry(self.file)).d_sb } {
            return Err(EIO);
        }
        if inode.mode() & super::mode::S_IFMT != super::mode::S_IFREG || inode.nlink() != 1 {
            return Err(EINVAL);
        }
        let inode = inode.into_raw();
        // SAFETY: The dentry of the file is the negative, unhashed one `vfs_tmpfile` made; the
        // inode is new, initialised, with one link (which `d_tmpfile` drops), and our
        // reference goes to the dentry. Once instantiated it is unlocked
        // (`unlock_new_inode`), and the file opened with its operations.
        unsafe {
            bindings::d_tmpfile(self.file, inode);
            bindings::unlock_new_inode(inode);
            crate::error::to_result(bindings::finish_open_simple(self.file, 0))?;
        }
        Ok(Instantiated(PhantomData))
    }
}

/// # Safety
///
/// `tmpfile` of `struct inode_operations`: `dir` is a directory of `T` (not locked:
/// `vfs_tmpfile`) and `file` a file being opened on a new dentry in it, both valid for the
/// call.
pub(crate) unsafe extern "C" fn tmpfile_callback<
    T: FileSystem,
    U: INodeOperations<FileSystem = T> + ?Sized,
>(
    _idmap: *mut bindings::mnt_idmap,
    dir: *mut bindings::inode,
    file: *mut bindings::file,
    mode: bindings::umode_t,
) -> c_int {
    from_result(|| {
        // SAFETY: The VFS passes a valid, referenced directory of this file system.
        let dir = unsafe { INode::<T>::from_raw(dir) };
        let tmp = TmpFile::<T> {
            file,
            _p: PhantomData,
        };
        U::tmpfile(dir, tmp, mode)?;
        // Only `TmpFile::instantiate` makes the proof, and it fails unless the file was
        // opened, but the VFS must never see a success that left the dentry negative.
        // SAFETY: The file and its dentry are valid.
        unsafe { check_positive(bindings::file_dentry(file)) }?;
        Ok(0)
    })
}

impl<T: FileSystem> SuperBlock<T, New> {
    /// Sets the largest link count the VFS lets an inode reach by `link` or a directory by
    /// `mkdir` (`s_max_links`; `EMLINK` beyond it), as C's ext2 sets `EXT2_LINK_MAX`. Without
    /// it, the VFS sets no limit.
    #[inline]
    pub fn set_max_links(&mut self, max: u32) {
        // SAFETY: The superblock is new and ours alone while it is filled (`&mut`).
        unsafe { (*self.as_ptr()).s_max_links = max };
    }
}

/// # Safety
///
/// `dir` is a directory of `T` whose `i_rwsem` is held exclusively for the call.
unsafe fn locked_dir<'a, T: FileSystem>(dir: *mut bindings::inode) -> LockedINode<'a, T> {
    // SAFETY: The VFS passes a valid, referenced directory of this file system whose `i_rwsem`
    // it holds exclusively for the call (the caller's promise).
    unsafe { LockedINode::new(INode::<T>::from_raw(dir)) }
}

/// Fails with `EIO` if a successful call left `dentry` negative: only
/// [`Negative::instantiate_new`] and [`Negative::instantiate_linked`] make the proof the
/// methods return, but the VFS must never see a negative dentry after a success.
///
/// # Safety
///
/// `dentry` is valid.
unsafe fn check_positive(dentry: *mut bindings::dentry) -> Result {
    // SAFETY: The dentry is valid (the caller's promise).
    if unsafe { (*dentry).d_inode }.is_null() {
        return Err(EIO);
    }
    Ok(())
}

/// # Safety
///
/// `mkdir` of `struct inode_operations`: `dir` is a directory of `T` whose `i_rwsem` is held
/// exclusively (`vfs_mkdir`), `dentry` a negative dentry in it, both valid for the call.
pub(crate) unsafe extern "C" fn mkdir_callback<
    T: FileSystem,
    U: INodeOperations<FileSystem = T> + ?Sized,
>(
    _idmap: *mut bindings::mnt_idmap,
    dir: *mut bindings::inode,
    dentry: *mut bindings::dentry,
    mode: bindings::umode_t,
) -> *mut bindings::dentry {
    // SAFETY: As this function's safety requirements say.
    let r = unsafe { creating::<T>(dir, dentry, |d, n| U::mkdir(d, n, mode)) };
    match r {
        // The dentry given is the one instantiated.
        Ok(()) => core::ptr::null_mut(),
        Err(e) => e.to_ptr(),
    }
}

/// # Safety
///
/// `rmdir` of `struct inode_operations`: `dir` is a directory of `T` whose `i_rwsem` is held
/// exclusively and `dentry` a positive dentry of a directory in it whose inode's `i_rwsem` is
/// held too (`vfs_rmdir`), both valid for the call.
pub(crate) unsafe extern "C" fn rmdir_callback<
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
        // SAFETY: As this function's safety requirements say.
        let mut dir = unsafe { locked_dir::<T>(dir) };
        // SAFETY: `vfs_rmdir` holds the target's `i_rwsem` exclusively too.
        let mut target = unsafe { LockedINode::new(inode) };
        U::rmdir(&mut dir, dentry, &mut target)?;
        Ok(0)
    })
}

/// # Safety
///
/// `mknod` of `struct inode_operations`: `dir` is a directory of `T` whose `i_rwsem` is held
/// exclusively (`vfs_mknod`), `dentry` a negative dentry in it, both valid for the call.
pub(crate) unsafe extern "C" fn mknod_callback<
    T: FileSystem,
    U: INodeOperations<FileSystem = T> + ?Sized,
>(
    _idmap: *mut bindings::mnt_idmap,
    dir: *mut bindings::inode,
    dentry: *mut bindings::dentry,
    mode: bindings::umode_t,
    dev: bindings::dev_t,
) -> c_int {
    from_result(|| {
        // SAFETY: As this function's safety requirements say.
        unsafe {
            creating::<T>(dir, dentry, |d, n| {
                U::mknod(d, n, mode, Dev::from_kdev(dev))
            })
        }
        .map(|()| 0)
    })
}

/// # Safety
///
/// `symlink` of `struct inode_operations`: `dir` is a directory of `T` whose `i_rwsem` is held
/// exclusively (`vfs_symlink`), `dentry` a negative dentry in it, both valid for the call, and
/// `target` a NUL-terminated string valid for the call.
pub(crate) unsafe extern "C" fn symlink_callback<
    T: FileSystem,
    U: INodeOperations<FileSystem = T> + ?Sized,
>(
    _idmap: *mut bindings::mnt_idmap,
    dir: *mut bindings::inode,
    dentry: *mut bindings::dentry,
    target: *const c_char,
) -> c_int {
    // SAFETY: The target is a NUL-terminated string (copied from user space by
    // `do_symlinkat`) that lives for the call.
    let target = unsafe { CStr::from_char_ptr(target) };
    from_result(|| {
        // SAFETY: As this function's safety requirements say.
        unsafe { creating::<T>(dir, dentry, |d, n| U::symlink(d, n, target)) }.map(|()| 0)
    })
}

/// # Safety
///
/// `link` of `struct inode_operations`: `old` is a positive dentry of a non-directory of `T`
/// whose inode's `i_rwsem` is held exclusively, `dir` a directory of `T` whose `i_rwsem` is held
/// exclusively and `dentry` a negative dentry in it (`vfs_link`), all valid for the call.
pub(crate) unsafe extern "C" fn link_callback<
    T: FileSystem,
    U: INodeOperations<FileSystem = T> + ?Sized,
>(
    old: *mut bindings::dentry,
    dir: *mut bindings::inode,
    dentry: *mut bindings::dentry,
) -> c_int {
    from_result(|| {
        // SAFETY: The VFS passes a valid dentry of this file system for the call.
        let old = unsafe { DEntry::<T>::from_raw(old) };
        let inode = old.inode().ok_or(ENOENT)?;
        // SAFETY: `vfs_link` holds the inode's `i_rwsem` exclusively during the call.
        let mut inode = unsafe { LockedINode::new(inode) };
        // SAFETY: As this function's safety requirements say.
        let mut dir = unsafe { locked_dir::<T>(dir) };
        // SAFETY: The dentry is negative, in `dir`, valid and ours for the call.
        let negative = unsafe { Negative::<T>::from_raw(dentry) };
        U::link(old, &mut inode, &mut dir, negative)?;
        // SAFETY: The dentry is valid.
        unsafe { check_positive(dentry) }?;
        Ok(0)
    })
}

/// The flags of a rename (`RENAME_*` of `renameat2(2)`).
pub mod rename_flags {
    /// Fail with `EEXIST` if the new name exists (the VFS checks it before the call).
    pub const NOREPLACE: u32 = crate::bindings::RENAME_NOREPLACE;
    /// Exchange the two names, which both exist.
    pub const EXCHANGE: u32 = crate::bindings::RENAME_EXCHANGE;
    /// Leave a whiteout (a character device 0:0) at the old name.
    pub const WHITEOUT: u32 = crate::bindings::RENAME_WHITEOUT;
}

/// A rename, as the VFS hands it to [`INodeOperations::rename`] (`vfs_rename`): the two
/// directories with their tokens (one directory when the name stays in it), the two dentries,
/// the inode being moved (`source`) and the one whose name is replaced (`target`, if any), each
/// with its token where the VFS holds its `i_rwsem`, and the flags.
///
/// `vfs_rename` locks both directories (and, across directories, holds the superblock's
/// `s_vfs_rename_mutex`); a non-directory `source` or `target` is always locked; a directory is
/// locked when it moves to another directory or, as `target`, unless it is exchanged within
/// one directory. The tokens are given exactly where those locks are held.
pub struct Rename<'b, 'a, T: FileSystem> {
    /// The directory the name is in.
    pub old_dir: &'b mut LockedINode<'a, T>,
    /// The directory the name moves to, `None` if it is `old_dir`.
    pub new_dir: Option<&'b mut LockedINode<'a, T>>,
    /// The dentry of the old name (positive).
    pub old_dentry: &'b DEntry<T>,
    /// The dentry of the new name (positive if `target` is `Some`).
    pub new_dentry: &'b DEntry<T>,
    /// The inode being renamed.
    pub source: &'b INode<T>,
    /// Its token, where the VFS holds its `i_rwsem`.
    pub source_locked: Option<&'b mut LockedINode<'a, T>>,
    /// The inode the new name names now, if any.
    pub target: Option<&'b INode<T>>,
    /// Its token, where the VFS holds its `i_rwsem`.
    pub target_locked: Option<&'b mut LockedINode<'a, T>>,
    /// The flags ([`rename_flags`]).
    pub flags: u32,
}

/// # Safety
///
/// `rename` of `struct inode_operations`: `old_dir` and `new_dir` are directories of `T` whose
/// `i_rwsem` is held exclusively, `old_dentry` a positive dentry in `old_dir` and `new_dentry`
/// a dentry in `new_dir`, with the inodes locked as `vfs_rename` locks them, all valid for the
/// call.
pub(crate) unsafe extern "C" fn rename_callback<
    T: FileSystem,
    U: INodeOperations<FileSystem = T> + ?Sized,
>(
    _idmap: *mut bindings::mnt_idmap,
    old_dir: *mut bindings::inode,
    old_dentry: *mut bindings::dentry,
    new_dir: *mut bindings::inode,
    new_dentry: *mut bindings::dentry,
    flags: c_uint,
) -> c_int {
    from_result(|| {
        // SAFETY: The VFS passes valid dentries of this file system for the call.
        let (old, new) = unsafe {
            (
                DEntry::<T>::from_raw(old_dentry),
                DEntry::<T>::from_raw(new_dentry),
            )
        };
        let source = old.inode().ok_or(ENOENT)?;
        let target = new.inode();
        let is_dir = |i: &INode<T>| i.mode() & super::mode::S_IFMT == super::mode::S_IFDIR;
        let cross = old_dir != new_dir;
        // As `vfs_rename` locks them.
        let lock_new_subdir = cross || flags & bindings::RENAME_EXCHANGE == 0;
        let source_is_locked = !is_dir(source) || cross;
        let target_is_locked = match target {
            None => false,
            Some(t) if is_dir(source) => !is_dir(t) || lock_new_subdir,
            Some(t) if is_dir(t) => lock_new_subdir,
            Some(_) => true,
        };
        // SAFETY: As this function's safety requirements say.
        let mut old_dir = unsafe { locked_dir::<T>(old_dir) };
        // SAFETY: As this function's safety requirements say; distinct from `old_dir`.
        let mut new_dir = cross.then(|| unsafe { locked_dir::<T>(new_dir) });
        // SAFETY: `vfs_rename` holds the source's `i_rwsem` exclusively in this case.
        let mut source_locked = source_is_locked.then(|| unsafe { LockedINode::new(source) });
        // SAFETY: `vfs_rename` holds the target's `i_rwsem` exclusively in this case.
        let mut target_locked = target
            .filter(|_| target_is_locked)
            .map(|t| unsafe { LockedINode::new(t) });
        U::rename(Rename {
            old_dir: &mut old_dir,
            new_dir: new_dir.as_mut(),
            old_dentry: old,
            new_dentry: new,
            source,
            source_locked: source_locked.as_mut(),
            target,
            target_locked: target_locked.as_mut(),
            flags,
        })?;
        Ok(0)
    })
}

// SPDX-License-Identifier: GPL-2.0

//! Superblocks and their operations.
//!
//! C headers: [`include/linux/fs.h`](srctree/include/linux/fs.h) and
//! [`include/linux/fs/super_types.h`](srctree/include/linux/fs/super_types.h)

use super::{dentry::DEntry, inode, inode::INode, FileSystem};
use crate::error::{code::*, from_result, Result};
use crate::prelude::*;
// patch: param
use crate::seq_file::SeqFile;
// patch: end
use crate::sync::aref::ARef;
use crate::{bindings, types::Opaque};
use core::{marker::PhantomData, ptr, ptr::NonNull};

/// Maximum size of a file (`MAX_LFS_FILESIZE`).
pub const MAX_LFS_FILESIZE: i64 = bindings::MAX_LFS_FILESIZE;

/// Where the superblocks of a file system come from.
#[derive(Copy, Clone, PartialEq, Eq)]
pub enum Backing {
    /// Each mount gets its own superblock, backed by nothing (`get_tree_nodev`,
    /// `kill_anon_super`).
    Independent,

    /// One superblock per block device (`get_tree_bdev`, `kill_block_super`); the file system
    /// type has `FS_REQUIRES_DEV`.
    BlockDev,
}

/// State of a superblock that is being filled by [`FileSystem::fill_super`].
pub struct New;

/// State of a superblock that is fully initialised (it has its data).
pub struct Ready;

/// The states a [`SuperBlock`] can be in: [`New`] or [`Ready`].
pub trait State {}
impl State for New {}
impl State for Ready {}

/// A file system superblock.
///
/// Wraps the kernel's `struct super_block`.
///
/// # Invariants
///
/// The superblock is valid and belongs to file system `T`. If `S` is [`Ready`], its `s_fs_info`
/// points to a `T::Data`; if `S` is [`New`], it is being filled and only the thread filling it
/// has access to it.
#[repr(transparent)]
pub struct SuperBlock<T: FileSystem, S: State = Ready>(
    Opaque<bindings::super_block>,
    PhantomData<(T, S)>,
);

/// Parameters of a superblock, returned by [`FileSystem::fill_super`].
pub struct SuperParams<T> {
    /// The magic number of the superblock (`s_magic`).
    pub magic: usize,

    /// The size of a block in powers of 2 (i.e., for a value of `n`, the size is `2^n`).
    pub blocksize_bits: u8,

    /// Maximum size of a file. At most [`MAX_LFS_FILESIZE`].
    pub maxbytes: i64,

    /// Granularity of c/m/atime in ns (cannot be worse than a second).
    pub time_gran: u32,

    /// Data of the superblock, available afterwards through [`SuperBlock::data`].
    pub data: T,
}

impl<T: FileSystem, S: State> SuperBlock<T, S> {
    /// Creates a superblock reference from a raw pointer.
    ///
    /// # Safety
    ///
    /// `ptr` must be a valid superblock of file system `T` in state `S`, for the duration of
    /// `'a`.
    #[inline]
    pub(crate) unsafe fn from_raw<'a>(ptr: *mut bindings::super_block) -> &'a Self {
        // SAFETY: The cast is okay because `SuperBlock` is `repr(transparent)` over the C
        // `super_block`, which the caller guarantees to be valid for `'a`.
        unsafe { &*ptr.cast::<Self>() }
    }

    /// Returns the raw `struct super_block` pointer.
    #[inline]
    pub(crate) fn as_ptr(&self) -> *mut bindings::super_block {
        self.0.get()
    }

    /// Reads `s_flags` once (`READ_ONCE`).
    #[inline]
    fn flags(&self) -> c_ulong {
        // SAFETY: The superblock is valid. `s_flags` changes under `s_umount`, which we may not
        // hold (`reconfigure_super` stores it with `WRITE_ONCE`): a volatile load, as
        // `READ_ONCE`, gives the old or the new value, never a torn one.
        unsafe { ptr::read_volatile(&raw const (*self.as_ptr()).s_flags) }
    }

    /// Returns whether the superblock is mounted read-only.
    #[inline]
    pub fn rdonly(&self) -> bool {
        self.flags() & bindings::SB_RDONLY != 0
    }

    // patch: trunc
    /// Returns whether writes are synchronous on the whole file system (`SB_SYNCHRONOUS`, the
    /// `sync` mount option): metadata buffers are written before the call that changed them
    /// returns.
    #[inline]
    pub fn synchronous(&self) -> bool {
        self.flags() & bindings::SB_SYNCHRONOUS != 0
    }
    // patch: end

    // patch: acl
    /// Returns whether the superblock has POSIX ACLs (`SB_POSIXACL`, `IS_POSIXACL`): then the
    /// VFS asks [`INodeOperations::get_inode_acl`] for them and file systems list the
    /// `system.posix_acl_*` attributes they have.
    ///
    /// [`INodeOperations::get_inode_acl`]: super::inode::INodeOperations::get_inode_acl
    #[inline]
    pub fn posix_acl(&self) -> bool {
        self.flags() & bindings::SB_POSIXACL != 0
    }
    // patch: end

    /// Returns the block size in bytes (`s_blocksize`).
    #[inline]
    pub fn block_size(&self) -> usize {
        // SAFETY: `s_blocksize` is set while filling the superblock and stable afterwards.
        unsafe { (*self.as_ptr()).s_blocksize }
    }

    /// Returns the size of the backing block device in bytes, or zero if there is none.
    pub fn bdev_size(&self) -> u64 {
        // SAFETY: `s_bdev` is either NULL or a block device kept open for the superblock's life.
        unsafe {
            let bdev = (*self.as_ptr()).s_bdev;
            if bdev.is_null() {
                return 0;
            }
            bindings::bdev_nr_bytes(bdev).max(0) as u64
        }
    }
}

impl<T: FileSystem> SuperBlock<T, New> {
    /// Creates a mutable reference to a new superblock from a raw pointer.
    ///
    /// # Safety
    ///
    /// `ptr` must be a valid superblock of `T` being filled, with no other user during `'a`.
    #[inline]
    pub(crate) unsafe fn from_raw_mut<'a>(ptr: *mut bindings::super_block) -> &'a mut Self {
        // SAFETY: The cast is okay because `SuperBlock` is `repr(transparent)` over the C
        // `super_block`, which the caller guarantees to be valid for `'a`.
        unsafe { &mut *ptr.cast::<Self>() }
    }

    /// Returns whether the superblock has a block device (`s_bdev`): [`Backing::BlockDev`]
    /// superblocks do.
    #[inline]
    fn has_bdev(&self) -> bool {
        // SAFETY: The superblock is valid; `s_bdev` is set before it is filled and stable after.
        !unsafe { (*self.as_ptr()).s_bdev }.is_null()
    }

    /// Sets the block size to at least `size` bytes and at least the logical block size of the
    /// device (`sb_min_blocksize`). Returns the block size set, or zero on failure (always
    /// without a block device: [`Backing::Independent`]).
    #[inline]
    pub fn min_blocksize(&mut self, size: i32) -> i32 {
        if !self.has_bdev() {
            return 0;
        }
        // SAFETY: The superblock is valid and exclusively ours while being filled; it has a
        // block device, which `sb_min_blocksize` asks for its logical block size.
        unsafe { bindings::sb_min_blocksize(self.as_ptr(), size) }
    }

    /// Sets the block size to `size` bytes (`sb_set_blocksize`); fails with `EINVAL` if the
    /// device cannot use it, or if there is no block device ([`Backing::Independent`]).
    pub fn set_blocksize(&mut self, size: i32) -> Result {
        if !self.has_bdev() {
            return Err(EINVAL);
        }
        // SAFETY: The superblock is valid and exclusively ours while being filled; it has a
        // block device, whose file `sb_set_blocksize` changes the block size of.
        if unsafe { bindings::sb_set_blocksize(self.as_ptr(), size) } == 0 {
            return Err(EINVAL);
        }
        Ok(())
    }

    // patch: acl
    /// Sets or clears `SB_POSIXACL`: whether the VFS uses the POSIX ACLs that
    /// [`INodeOperations::get_inode_acl`] returns. Without `CONFIG_FS_POSIX_ACL` the kernel has
    /// no ACLs: setting it fails with `EOPNOTSUPP`.
    ///
    /// [`INodeOperations::get_inode_acl`]: super::inode::INodeOperations::get_inode_acl
    pub fn set_posix_acl(&mut self, on: bool) -> Result {
        if on && !cfg!(CONFIG_FS_POSIX_ACL) {
            return Err(EOPNOTSUPP);
        }
        // SAFETY: The superblock is valid and exclusively ours while being filled.
        unsafe {
            let sb = &mut *self.as_ptr();
            if on {
                sb.s_flags |= bindings::SB_POSIXACL;
            } else {
                sb.s_flags &= !bindings::SB_POSIXACL;
            }
        }
        Ok(())
    }
    // patch: end

    /// Applies the parameters that [`FileSystem::fill_super`] returned.
    pub(crate) fn apply_params(&mut self, params: &SuperParams<T::Data>) -> Result {
        if params.blocksize_bits < 9 || params.blocksize_bits > 16 {
            return Err(EINVAL);
        }
        let size = 1i32 << params.blocksize_bits;
        if T::BACKING == Backing::BlockDev {
            if self.block_size() != size as usize {
                self.set_blocksize(size)?;
            }
        } else {
            // SAFETY: The superblock is valid and exclusively ours while being filled.
            unsafe {
                (*self.as_ptr()).s_blocksize = size as c_ulong;
                (*self.as_ptr()).s_blocksize_bits = params.blocksize_bits;
            }
        }
        // SAFETY: The superblock is valid and exclusively ours while being filled.
        unsafe {
            let sb = &mut *self.as_ptr();
            sb.s_magic = params.magic as c_ulong;
            sb.s_maxbytes = params.maxbytes.clamp(0, MAX_LFS_FILESIZE);
            sb.s_time_gran = params.time_gran.clamp(1, 1_000_000_000);
        }
        Ok(())
    }
}

impl<T: FileSystem> SuperBlock<T> {
    /// Returns the data associated with the superblock.
    #[inline]
    pub fn data(&self) -> &T::Data {
        // SAFETY: By the type invariants `s_fs_info` points to a `T::Data`. It lives until the
        // end of `put_super` (`Registration::release_sb`), after every call of the file system on
        // this superblock but the `Drop`s of inode data released there.
        unsafe { &*(*self.as_ptr()).s_fs_info.cast::<T::Data>() }
    }

    /// Returns the inode with number `ino` from the inode cache, or creates it (`iget_locked`).
    ///
    /// A new inode is locked (`I_NEW`: lookups of the same number wait) and handed to `init`,
    /// which sets its operations and returns its parameters; the inode is then initialised and
    /// unlocked (`unlock_new_inode`). If `init` fails, or the initialisation does (`EINVAL` for
    /// operations that read through a page cache without `read_folio`), the inode is marked bad
    /// and released (`iget_failed`) and the error returned.
    ///
    /// `init` only borrows the new inode: it cannot keep it, drop it or leak it (with
    /// `mem::forget`) while it is locked, so every new inode is either unlocked or failed before
    /// this returns, and lookups of its number never wait forever.
    #[inline]
    pub fn iget(
        &self,
        ino: u64,
        init: impl FnOnce(&mut inode::NewINode<T>) -> Result<inode::INodeParams<T>>,
    ) -> Result<ARef<INode<T>>> {
        // SAFETY: The superblock is valid; `iget_locked` returns a referenced inode or NULL.
        let inode =
            NonNull::new(unsafe { bindings::iget_locked(self.as_ptr(), ino) }).ok_or(ENOMEM)?;

        // SAFETY: `inode` is valid and we own a reference to it. `I_NEW` is only cleared by
        // `unlock_new_inode`, which we would be the ones to call if we got a new inode.
        let is_new = unsafe { bindings::inode_state_read_once(inode.as_ptr()) }
            & bindings::inode_state_flags_enum_I_NEW
            != 0;

        // SAFETY: `iget_locked` returned a reference that we now own; the inode belongs to this
        // superblock, hence to `T`.
        let inode: ARef<INode<T>> = unsafe { ARef::from_raw(inode.cast()) };
        if !is_new {
            return Ok(inode);
        }
        // Dropped (`iget_failed`) on every path but `init`'s success.
        let mut new = inode::NewINode::new(inode);
        let params = init(&mut new)?;
        new.init(params)
    }
}

// patch: param
/// A remount in progress, as [`FileSystem::reconfigure`] sees it: the superblock flags it
/// will set (`fs_context.sb_flags`), which the VFS applies when the method returns.
///
/// # Invariants
///
/// The pointer is a valid `fs_context` for reconfiguration, used only through this object for
/// `'a`.
pub struct Reconfigure<'a>(
    *mut bindings::fs_context,
    PhantomData<&'a mut bindings::fs_context>,
);

impl Reconfigure<'_> {
    /// # Safety
    ///
    /// `fc` must be a valid `fs_context` for reconfiguration, used only through the returned
    /// object for `'a`.
    #[inline]
    pub(crate) unsafe fn from_raw<'a>(fc: *mut bindings::fs_context) -> Reconfigure<'a> {
        // INVARIANT: The safety requirements are the invariants.
        Reconfigure(fc, PhantomData)
    }

    /// Sets or clears `SB_POSIXACL` on the superblock (see [`SuperBlock::set_posix_acl`]).
    pub fn set_posix_acl(&mut self, on: bool) -> Result {
        if on && !cfg!(CONFIG_FS_POSIX_ACL) {
            return Err(EOPNOTSUPP);
        }
        let flag = bindings::SB_POSIXACL as u32;
        // SAFETY: The context is valid and ours (type invariants); `reconfigure_super` applies
        // the flags of `sb_flags_mask` from `sb_flags`.
        unsafe {
            let fc = &mut *self.0;
            fc.sb_flags_mask |= flag;
            if on {
                fc.sb_flags |= flag;
            } else {
                fc.sb_flags &= !flag;
            }
        }
        Ok(())
    }
}
// patch: end

// patch: rw
impl Reconfigure<'_> {
    /// Returns whether the remount asks for a read-only superblock (`SB_RDONLY` in
    /// `fc->sb_flags`). Always `true` for a file system that is not
    /// [`READ_WRITE`](FileSystem::READ_WRITE).
    #[inline]
    pub fn read_only(&self) -> bool {
        // SAFETY: The context is valid and ours (type invariants).
        unsafe { (*self.0).sb_flags & bindings::SB_RDONLY as u32 != 0 }
    }

    /// Keeps (or makes) the superblock read-only, whatever the remount asked for: `SB_RDONLY`
    /// in the flags `reconfigure_super` applies once [`FileSystem::reconfigure`] returns.
    #[inline]
    pub fn set_read_only(&mut self) {
        // SAFETY: The context is valid and ours (type invariants). `reconfigure_super` always
        // applies `SB_RDONLY` (it is in `sb_flags_mask` of every remount) and, going from
        // read-write to read-only, has already synced the superblock.
        unsafe { (*self.0).sb_flags |= bindings::SB_RDONLY as u32 };
    }
}

impl<T: FileSystem> SuperBlock<T, New> {
    /// Makes the new superblock read-only (`sb->s_flags |= SB_RDONLY` in C's `fill_super`),
    /// whatever the mount asked for: for a file system state or features it cannot write.
    #[inline]
    pub fn set_read_only(&mut self) {
        // SAFETY: The superblock is new and ours alone while it is filled (`&mut`): nothing
        // reads `s_flags` concurrently.
        unsafe { (*self.as_ptr()).s_flags |= bindings::SB_RDONLY };
    }
}

impl<T: FileSystem> SuperBlock<T> {
    /// Makes a mounted superblock read-only at once, as C file systems do on an error with
    /// `errors=remount-ro` (`sb->s_flags |= SB_RDONLY`): writes that have not started are
    /// refused (`EROFS`), nothing is synced or remounted.
    #[inline]
    pub fn force_read_only(&self) {
        // SAFETY: The superblock is valid. Like C's `|=`, this does not take `s_umount`: a
        // volatile load and store (READ_ONCE/WRITE_ONCE, as `reconfigure_super`'s store) of a
        // whole word; a concurrent remount may overwrite it, as in C.
        unsafe {
            let flags = &raw mut (*self.as_ptr()).s_flags;
            ptr::write_volatile(flags, ptr::read_volatile(flags) | bindings::SB_RDONLY);
        }
    }
}
// patch: end

// patch: iwrite
impl<T: FileSystem> SuperBlock<T, New> {
    /// Sets the range of timestamps the file system can store, in seconds (`s_time_min`,
    /// `s_time_max`): the VFS clamps the times it sets to it (`timestamp_truncate`), as for
    /// C's ext2 (`S32_MIN..=S32_MAX`). Without it, any 64-bit time is accepted. `min` above
    /// `max` is `EINVAL`.
    #[inline]
    pub fn set_time_range(&mut self, min: i64, max: i64) -> Result {
        if min > max {
            return Err(EINVAL);
        }
        // SAFETY: The superblock is new and ours alone while it is filled (`&mut`).
        unsafe {
            (*self.as_ptr()).s_time_min = min;
            (*self.as_ptr()).s_time_max = max;
        }
        Ok(())
    }
}
// patch: end

/// Statistics of a file system, returned by [`SuperOperations::statfs`] (`struct kstatfs`).
#[derive(Default)]
pub struct StatFs {
    /// Magic number of the file system.
    pub magic: usize,
    /// Maximum length of a file name.
    pub namelen: isize,
    /// Block size.
    pub bsize: isize,
    /// Total number of blocks.
    pub blocks: u64,
    /// Number of free blocks.
    pub bfree: u64,
    /// Number of blocks free for unprivileged users.
    pub bavail: u64,
    /// Total number of inodes.
    pub files: u64,
    /// Number of free inodes.
    pub ffree: u64,
    /// File system id, as two 32-bit words.
    pub fsid: [i32; 2],
}

/// Operations of a superblock: the Rust side of `struct super_operations`.
///
/// `alloc_inode` and `destroy_inode` (or `free_inode`) are always provided by the bindings: they
/// allocate inodes with room for [`FileSystem::INodeData`] in a kmem cache owned by the file
/// system's [`Registration`](super::Registration), and free the inode after an RCU grace period:
/// from the VFS's RCU callback (`free_inode`) if the data has no drop glue, otherwise in process
/// context, where the data's `Drop` may sleep (`destroy_inode`, which queues the work).
#[vtable]
pub trait SuperOperations {
    /// The file system whose superblocks these operations apply to.
    type FileSystem: FileSystem;

    /// Called when the superblock is being shut down (`put_super`), before it is freed.
    ///
    /// The bindings then release what the file system keeps (as C file systems do at the end of
    /// their `put_super`): the data of inodes evicted so far, and the superblock's
    /// [`FileSystem::Data`], with the inode references they hold,
    /// before the VFS checks for busy inodes and before the block device is closed.
    fn put_super(_sb: &SuperBlock<Self::FileSystem>) {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }

    /// Returns file system statistics (`statfs`).
    fn statfs(_dentry: &DEntry<Self::FileSystem>) -> Result<StatFs> {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }

    // patch: param
    /// Shows the options of the superblock in `/proc/mounts` and `/proc/self/mountinfo`
    /// (`show_options`), each as `,name` or `,name=value`, after the VFS's own (`ro`, ...).
    fn show_options(_seq: &SeqFile, _sb: &SuperBlock<Self::FileSystem>) -> Result {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }
    // patch: end

    // patch: rw
    /// Writes the superblock's own metadata (`sync_fs`), with `s_umount` held, after the VFS
    /// wrote the dirty inodes: `sync(2)`, `syncfs(2)`, a remount, a freeze and umount of a
    /// read-write superblock. `wait` is `false` for the first, non-waiting pass of a sync, `true`
    /// when the data must be on the device (or queued as dirty buffers that the VFS writes
    /// next) when it returns. Not called on read-only superblocks.
    fn sync_fs(_sb: &SuperBlock<Self::FileSystem>, _wait: bool) -> Result {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }

    /// Makes the file system consistent on its device for a freeze (`freeze_fs`), with the
    /// VFS's writers stopped and the file system synced.
    fn freeze_fs(_sb: &SuperBlock<Self::FileSystem>) -> Result {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }

    /// Undoes [`SuperOperations::freeze_fs`] when the file system is thawed (`unfreeze_fs`).
    fn unfreeze_fs(_sb: &SuperBlock<Self::FileSystem>) -> Result {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }
    // patch: end

    // patch: iwrite
    /// Writes a dirty inode to the file system's metadata (`write_inode`), for writeback, `sync`
    /// and `fsync`: with `wbc.sync_all()` the write must be on the device, or submitted and
    /// waited for, on return. The inode may be unreferenced (writeback of an inode being
    /// evicted), so it is not ref-countable here. The VFS serialises the writes of one inode
    /// (`I_SYNC`); attributes may change meanwhile, and the inode is then dirty again.
    fn write_inode(
        _inode: &inode::UncountedINode<Self::FileSystem>,
        _wbc: &inode::WritebackControl,
    ) -> Result {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }
    // patch: end
    // patch: fsync

    /// Writes what `write_inode` left dirty and waits for it (`sync_inode_metadata`): a
    /// data-integrity writeback of the inode (`fsync`, `sync_inode_metadata`, but not
    /// `sync(2)`, which writes the whole device) calls it after
    /// [`SuperOperations::write_inode`], e.g. to write the inode's metadata buffers
    /// ([`UncountedINode::sync_metadata_buffers`](crate::fs::inode::UncountedINode)) and its
    /// inode table block.
    fn sync_inode_metadata(
        _inode: &inode::UncountedINode<Self::FileSystem>,
        _wbc: &inode::WritebackControl,
    ) -> Result {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }
    // patch: end
    // patch: create

    /// Ends the life of an inode whose last reference is gone (`evict_inode`): the bindings
    /// have removed its page cache (`truncate_inode_pages_final`); an inode left without links
    /// ([`Evicting::unlinked`](inode::Evicting::unlinked)) is freed here (its blocks, its
    /// number), the others' metadata buffers written. The inode is cleared
    /// ([`Evicting::clear`](inode::Evicting::clear), `clear_inode`) by the file system or,
    /// after the call, by the bindings; what it frees after clearing can no longer be written
    /// back over. Inodes whose set-up failed never get here. Without it, the VFS clears the
    /// inode itself.
    fn evict_inode(_inode: &mut inode::Evicting<'_, Self::FileSystem>) {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }
    // patch: end
}

/// The `struct super_operations` of a [`SuperOperations`] implementation `U` of file system `T`,
/// built at compile time, with the methods `U` does not implement left NULL.
pub(crate) struct SuperOperationsVTable<T: FileSystem, U: ?Sized>(
    PhantomData<T>,
    PhantomData<*const U>,
);

impl<T: FileSystem, U: SuperOperations<FileSystem = T> + ?Sized> SuperOperationsVTable<T, U> {
    const VTABLE: bindings::super_operations = bindings::super_operations {
        alloc_inode: Some(inode::INodeWithData::<T>::alloc_inode_callback),
        // Data that must be dropped is dropped in process context (its `Drop` may
        // sleep); plain data is freed as C file systems free inodes, from the VFS's RCU
        // callback, without a trip through the workqueue.
        // patch: !fsync
        // destroy_inode: if core::mem::needs_drop::<T::INodeData>() {
        //     Some(inode::INodeWithData::<T>::destroy_inode_callback)
        // } else {
        //     None
        // },
        // patch: end
        // patch: fsync
        // Always: it also empties the inode's list of metadata buffers.
        destroy_inode: Some(inode::INodeWithData::<T>::destroy_inode_callback),
        // patch: end
        free_inode: if core::mem::needs_drop::<T::INodeData>() {
            None
        } else {
            Some(inode::INodeWithData::<T>::free_inode_callback)
        },
        // Always: the bindings release the per-superblock data there.
        put_super: Some(Self::put_super_callback),
        statfs: if U::HAS_STATFS {
            Some(Self::statfs_callback)
        } else {
            None
        },
        // patch: param
        show_options: if U::HAS_SHOW_OPTIONS {
            Some(Self::show_options_callback)
        } else {
            None
        },
        // patch: end
        // patch: rw
        sync_fs: if U::HAS_SYNC_FS {
            Some(Self::sync_fs_callback)
        } else {
            None
        },
        freeze_fs: if U::HAS_FREEZE_FS {
            Some(Self::freeze_fs_callback)
        } else {
            None
        },
        unfreeze_fs: if U::HAS_UNFREEZE_FS {
            Some(Self::unfreeze_fs_callback)
        } else {
            None
        },
        // patch: end
        // patch: iwrite
        write_inode: if U::HAS_WRITE_INODE {
            Some(Self::write_inode_callback)
        } else {
            None
        },
        // patch: end
        // patch: create
        evict_inode: if U::HAS_EVICT_INODE {
            Some(inode::evict_inode_callback::<T, U>)
        } else {
            None
        },
        // patch: end
        // patch: fsync
        sync_inode_metadata: if U::HAS_SYNC_INODE_METADATA {
            Some(Self::sync_inode_metadata_callback)
        } else {
            None
        },
        // patch: end
        ..pin_init::zeroed()
    };

    /// # Safety
    ///
    /// `put_super` of `struct super_operations`: `sb_ptr` is a valid, filled superblock of
    /// `T`.
    unsafe extern "C" fn put_super_callback(sb_ptr: *mut bindings::super_block) {
        // SAFETY: The callback contract guarantees that `sb_ptr` is a valid superblock;
        // `put_super` is only called on superblocks that were fully filled, whose
        // `s_fs_info` is set (kill_sb frees it only afterwards).
        let sb = unsafe { SuperBlock::<T>::from_raw(sb_ptr) };
        if U::HAS_PUT_SUPER {
            U::put_super(sb);
        }
        // SAFETY: `generic_shutdown_super` calls this after evicting the unused inodes
        // and before its busy-inodes check, on a filled superblock of a registered `T`,
        // not used by the file system any more (it is being shut down).
        unsafe { crate::fs::Registration::release_sb::<T>(sb_ptr) };
    }

    // patch: param
    /// # Safety
    ///
    /// `show_options` of `struct super_operations`: `seq` is a valid seq_file being
    /// written by this thread only, `root` the root dentry of a mount of a superblock
    /// of `T`.
    unsafe extern "C" fn show_options_callback(
        seq: *mut bindings::seq_file,
        root: *mut bindings::dentry,
    ) -> c_int {
        from_result(|| {
            // SAFETY: The seq_file is valid and only this thread writes it during the
            // call.
            let seq = unsafe { SeqFile::from_raw(seq) };
            // SAFETY: The root of a mount is valid, and its superblock mounted (ready).
            let sb = unsafe { SuperBlock::<T>::from_raw((*root).d_sb) };
            U::show_options(seq, sb)?;
            Ok(0)
        })
    }
    // patch: end

    /// # Safety
    ///
    /// `statfs` of `struct super_operations`: `dentry` is a valid dentry of a mounted
    /// superblock of `T` and `buf` is valid for write.
    unsafe extern "C" fn statfs_callback(
        dentry: *mut bindings::dentry,
        buf: *mut bindings::kstatfs,
    ) -> c_int {
        from_result(|| {
            // SAFETY: The C API guarantees that `dentry` is valid and on a superblock
            // of this file system, which is ready (it is mounted).
            let dentry = unsafe { DEntry::<T>::from_raw(dentry) };
            let s = U::statfs(dentry)?;

            // SAFETY: The C API guarantees that `buf` is valid for write.
            let buf = unsafe { &mut *buf };
            buf.f_type = s.magic as c_long;
            buf.f_namelen = s.namelen as c_long;
            buf.f_bsize = s.bsize as c_long;
            buf.f_blocks = s.blocks;
            buf.f_bfree = s.bfree;
            buf.f_bavail = s.bavail;
            buf.f_files = s.files;
            buf.f_ffree = s.ffree;
            buf.f_fsid.val = s.fsid;
            Ok(0)
        })
    }

    // patch: rw
    /// # Safety
    ///
    /// `sync_fs` of `struct super_operations`: `sb_ptr` is a valid, filled superblock of `T`
    /// (the VFS holds `s_umount` and an active reference).
    unsafe extern "C" fn sync_fs_callback(
        sb_ptr: *mut bindings::super_block,
        wait: c_int,
    ) -> c_int {
        // SAFETY: Per the callback contract the superblock is filled, hence ready, and stays so
        // for the call.
        let sb = unsafe { SuperBlock::<T>::from_raw(sb_ptr) };
        from_result(|| U::sync_fs(sb, wait != 0).map(|()| 0))
    }

    /// # Safety
    ///
    /// `freeze_fs` of `struct super_operations`: `sb_ptr` is a valid, filled superblock of `T`
    /// (the VFS holds `s_umount` for write).
    unsafe extern "C" fn freeze_fs_callback(sb_ptr: *mut bindings::super_block) -> c_int {
        // SAFETY: Per the callback contract the superblock is filled, hence ready.
        let sb = unsafe { SuperBlock::<T>::from_raw(sb_ptr) };
        from_result(|| U::freeze_fs(sb).map(|()| 0))
    }

    /// # Safety
    ///
    /// `unfreeze_fs` of `struct super_operations`: `sb_ptr` is a valid, filled superblock of
    /// `T` (the VFS holds `s_umount` for write).
    unsafe extern "C" fn unfreeze_fs_callback(sb_ptr: *mut bindings::super_block) -> c_int {
        // SAFETY: Per the callback contract the superblock is filled, hence ready.
        let sb = unsafe { SuperBlock::<T>::from_raw(sb_ptr) };
        from_result(|| U::unfreeze_fs(sb).map(|()| 0))
    }
    // patch: end

    // patch: iwrite
    /// # Safety
    ///
    /// `write_inode` of `struct super_operations`: `inode` is an inode of a superblock of `T`
    /// that writeback keeps alive for the call (`I_SYNC`, and a reference or `I_FREEING`), and
    /// `wbc` is valid for the call.
    unsafe extern "C" fn write_inode_callback(
        inode: *mut bindings::inode,
        wbc: *mut bindings::writeback_control,
    ) -> c_int {
        // SAFETY: The inode was allocated by the bindings' `alloc_inode` and is alive.
        if !unsafe { inode::INodeWithData::<T>::data_initialised(inode) } {
            // A bad inode (its set-up failed): the file system has nothing of it to write.
            return 0;
        }
        // SAFETY: The inode is initialised (above), its superblock alive while it is written,
        // and its memory valid for the call (callback contract).
        let inode = unsafe { inode::UncountedINode::<T>::from_raw(inode) };
        // SAFETY: `wbc` is valid for the call.
        let wbc = unsafe { inode::WritebackControl::from_raw(wbc) };
        let ret = from_result(|| U::write_inode(inode, wbc).map(|()| 0));
        // patch: end
        // patch: fsync
        if U::HAS_SYNC_INODE_METADATA {
            // A data-integrity writeback of the inode then calls `sync_inode_metadata`, which
            // is set (`set_inode_metadata_writeback`, as C's `ext2_write_inode` ends).
            // SAFETY: The inode is alive for the call; the helper takes `i_lock`.
            unsafe { bindings::set_inode_metadata_writeback(inode.as_ptr()) };
        }
        // patch: end
        // patch: iwrite
        ret
    }
    // patch: end
    // patch: fsync

    /// # Safety
    ///
    /// `sync_inode_metadata` of `struct super_operations`: as `write_inode_callback`, for an
    /// inode whose `write_inode` ran (only it sets `I_METADATA_WRITEBACK`, so the inode's data is
    /// initialised).
    unsafe extern "C" fn sync_inode_metadata_callback(
        inode: *mut bindings::inode,
        wbc: *mut bindings::writeback_control,
    ) -> c_int {
        // SAFETY: As in `write_inode_callback`; `write_inode_callback` sets the flag only for
        // inodes whose data is initialised.
        let (inode, wbc) = unsafe {
            (
                inode::UncountedINode::<T>::from_raw(inode),
                inode::WritebackControl::from_raw(wbc),
            )
        };
        from_result(|| U::sync_inode_metadata(inode, wbc).map(|()| 0))
    }
    // patch: end

    /// Returns the table.
    #[inline]
    pub(crate) const fn build() -> &'static bindings::super_operations {
        &Self::VTABLE
    }
}

// patch: write
/// Returns whether the current task may allocate the blocks a file system reserves for user
/// `resuid` and group `resgid` (ids in the initial user namespace), as `ext2_has_free_blocks`
/// asks: it has `CAP_SYS_RESOURCE`, its file-system user is `resuid`, or `resgid` is not root's
/// group and the task is in it.
#[inline]
pub fn may_use_reserved_blocks(resuid: u32, resgid: u32) -> bool {
    // SAFETY: Reads the current task's credentials, which it may always do.
    unsafe { bindings::may_use_reserved_blocks(resuid, resgid) }
}
// patch: end

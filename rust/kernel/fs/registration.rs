// SPDX-License-Identifier: GPL-2.0

//! File system types and their registration.
//!
//! C headers: [`include/linux/fs.h`](srctree/include/linux/fs.h) and
//! [`include/linux/fs_context.h`](srctree/include/linux/fs_context.h)

// patch: param
use super::param;
// patch: end
use super::{dentry, inode::INodeWithData, sb, sb::SuperBlock};
use crate::error::{code::*, from_result, to_result, Error, Result};
use crate::prelude::*;
use crate::str::CStrExt;
use crate::types::Opaque;
use crate::{bindings, ThisModule};
use core::{marker::PhantomData, marker::PhantomPinned, mem::size_of, ptr};

/// A file system type: the Rust side of a `struct file_system_type`.
///
/// It names the file system, says where its superblocks come from ([`sb::Backing`]), names its
/// superblock operations and fills new superblocks. The other operations tables are chosen per
/// inode, when the inode is created (see [`NewINode`](super::inode::NewINode)).
pub trait FileSystem: Sized + Send + Sync + 'static {
    /// Data stored in each superblock (`s_fs_info`).
    type Data: Send + Sync;

    /// Data stored in each inode, next to the `struct inode` (as `ext2_inode_info` in C).
    ///
    /// It lives as long as the inode's memory: it is dropped after the inode was destroyed and
    /// an RCU grace period has passed (so RCU path walkers may still read it, see
    /// [`RcuINode`](super::inode::RcuINode)), in process context, where its `Drop` may sleep.
    type INodeData: Send + Sync;

    // patch: wstate
    /// Per-inode state of the inode's writers, beside [`FileSystem::INodeData`] but pinned and
    /// reachable only by those who hold or write the inode
    /// ([`UncountedINode::writer_state`](super::inode::UncountedINode::writer_state)), not by
    /// RCU path walkers: locks such as ext2's `truncate_mutex`, which serialises the block
    /// allocations of writeback (no `i_rwsem` there) with the other allocations and truncates
    /// of the inode, and what they guard. It is initialised when the inode is allocated
    /// (`alloc_inode`, which fails if it does) and dropped when the inode is destroyed: after
    /// eviction, when writeback is done with it (`clear_inode`), before the RCU grace period
    /// that frees the inode, in process context.
    type INodeWriterState: Send + Sync;

    /// Initialises the writer state of a new inode ([`FileSystem::INodeWriterState`]).
    fn init_inode_writer_state() -> impl PinInit<Self::INodeWriterState, Error>;
    // patch: end

    /// The part of [`FileSystem::INodeData`] that may be copied to user space directly from the
    /// inode cache, as `(offset, size)` in bytes within `INodeData` (the usercopy whitelist of
    /// `kmem_cache_create_usercopy`): data that a symbolic link target borrowed from the inode
    /// points into, for instance. With `CONFIG_HARDENED_USERCOPY`, copying anything else of an
    /// inode to user space is refused with a kernel BUG. [`Registration::new`] fails with
    /// `EINVAL` if the region is not within `INodeData`.
    const INODE_DATA_USERCOPY: Option<(usize, usize)> = None;

    /// The name of the file system type, as given to `mount -t`.
    const NAME: &'static CStr;

    /// The name the file system registers under (`file_system_type.name`), asked once, when
    /// the module registers it: [`FileSystem::NAME`] unless the file system picks another at
    /// load time (by a module parameter, say, to stand in for a C file system that was kept
    /// from registering). Its inode cache and workqueue keep [`FileSystem::NAME`].
    fn registered_name() -> &'static CStr {
        Self::NAME
    }

    /// Where superblocks come from: none (in-memory) or a block device.
    const BACKING: sb::Backing = sb::Backing::Independent;

    /// Whether superblocks may be mounted read-write. When `false` (the default), every mount
    /// and remount is read-only, even without `-o ro` (and the block device is opened
    /// read-only). When `true`, a mount is read-write unless asked otherwise or made read-only
    /// by the file system when it fills or reconfigures the superblock.
    const READ_WRITE: bool = false;

    /// The superblock operations of this file system (`s_op`): the type implementing
    /// [`sb::SuperOperations`] for it, often the file system type itself.
    type SuperOperations: sb::SuperOperations<FileSystem = Self>;

    /// The options of a mount or remount, built from its parameters (`fs_context.fs_private`).
    type Options: Default + Send;

    /// Makes the options of a new mount (`sb` is `None`) or of a remount of `sb`, before the
    /// parameters given are applied to them (`init_fs_context`).
    #[inline]
    fn init_options(_sb: Option<&SuperBlock<Self>>) -> Result<Self::Options> {
        Ok(Self::Options::default())
    }

    // patch: param
    /// The parameters (mount options) the file system takes (`fs_parameter_spec`); the VFS
    /// refuses the others with `EINVAL`.
    const PARAMETERS: param::SpecTable = param::SpecTable::EMPTY;

    /// Applies a parameter of [`FileSystem::PARAMETERS`] to the options (`parse_param`).
    #[inline]
    fn parse_param(_options: &mut Self::Options, _param: param::Param<'_>) -> Result {
        Err(EINVAL)
    }
    // patch: end

    /// Fills a new superblock: reads and checks what is needed and returns the superblock's
    /// parameters and data (`fill_super` in C), for a mount with `options`.
    fn fill_super(
        sb: &mut SuperBlock<Self, sb::New>,
        options: &Self::Options,
    ) -> Result<sb::SuperParams<Self::Data>>;

    // patch: param
    /// Applies `options` to a mounted superblock (`reconfigure`: `mount -o remount`), after the
    /// VFS synced it (`sync_filesystem`). A read-only file system
    /// ([`FileSystem::READ_WRITE`] `false`) stays read-only; a read-write one sees the mode
    /// asked for in `rc` and may refuse it or keep the superblock read-only. By default,
    /// nothing changes.
    #[inline]
    fn reconfigure(
        _sb: &SuperBlock<Self>,
        _options: &Self::Options,
        _rc: &mut sb::Reconfigure<'_>,
    ) -> Result {
        Ok(())
    }
    // patch: end

    /// Returns the root dentry of a superblock that [`FileSystem::fill_super`] filled.
    fn init_root(sb: &SuperBlock<Self>) -> Result<dentry::Root<Self>>;
}

/// A registration of a file system type.
///
/// Registered on creation, unregistered on drop. It owns the kmem cache that holds the inodes
/// (with their [`FileSystem::INodeData`]) of the file system, and the workqueue on which they
/// are freed.
///
/// A registration is created by [`module_fs!`](crate::module_fs) as the state of its module:
/// superblocks of the type hold a reference to the module (`file_system_type.owner`), so it is
/// dropped only when none exists.
///
/// # Invariants
///
/// `fs` is registered with the VFS while this exists; `inode_cache` holds objects of type
/// `INodeWithData<T>`, where `T` is the file system it was built for; `free_wq` is
/// the workqueue on which they are freed. This value is dropped only when no superblock of `fs`
/// exists (module exit of `fs.owner`).
#[pin_data(PinnedDrop)]
pub struct Registration {
    // Dropped in this order: pending frees are run before the cache is destroyed.
    free_wq: WorkQueue,
    inode_cache: KMemCache,
    #[pin]
    fs: Opaque<bindings::file_system_type>,
    #[pin]
    _pin: PhantomPinned,
}

// SAFETY: `Registration` doesn't provide any `&self` methods, so it is safe to pass references
// to it around.
unsafe impl Sync for Registration {}

// SAFETY: Both registration and unregistration are implemented in C and safe to be performed
// from any thread, so `Registration` is `Send`.
unsafe impl Send for Registration {}

impl Registration {
    /// Creates the initialiser of a new file system registration.
    ///
    /// # Safety
    ///
    /// The registration must be dropped only when no superblock of the file system exists: it
    /// must be owned by `module`'s state and dropped at its exit (mounted superblocks keep the
    /// module loaded). [`module_fs!`](crate::module_fs) does this.
    pub unsafe fn new<T: FileSystem>(module: &'static ThisModule) -> impl PinInit<Self, Error> {
        let size = size_of::<INodeWithData<T>>();
        try_pin_init!(Self {
            _pin: PhantomPinned,
            free_wq: {
                // SAFETY: The name is a static C string; the flags are valid.
                let wq = unsafe { bindings::vfs_alloc_free_wq(T::NAME.as_char_ptr()) };
                if wq.is_null() {
                    return Err(ENOMEM);
                }
                WorkQueue(wq)
            },
            inode_cache: {
                let (useroffset, usersize) = match T::INODE_DATA_USERCOPY {
                    None => (0, 0),
                    Some((off, len)) => {
                        let end = off.checked_add(len).ok_or(EINVAL)?;
                        if len == 0 || end > size_of::<T::INodeData>() {
                            return Err(EINVAL);
                        }
                        let base = INodeWithData::<T>::DATA_OFFSET;
                        (u32::try_from(base + off)?, u32::try_from(len)?)
                    }
                };
                let mut args = bindings::kmem_cache_args {
                    // The objects hold a `T::INodeData`: they must be aligned for it.
                    align: u32::try_from(core::mem::align_of::<INodeWithData<T>>())?,
                    useroffset,
                    usersize,
                    ctor: Some(INodeWithData::<T>::init_once_callback),
                    ..pin_init::zeroed()
                };
                // SAFETY: The name is a static C string and `args` is valid for the duration of
                // the call; the constructor has the right type for objects of `size` bytes.
                let cache = unsafe {
                    bindings::__kmem_cache_create_args(
                        T::NAME.as_char_ptr(),
                        u32::try_from(size)?,
                        &mut args,
                        bindings::SLAB_RECLAIM_ACCOUNT | bindings::SLAB_ACCOUNT,
                    )
                };
                if cache.is_null() {
                    return Err(ENOMEM);
                }
                KMemCache(cache)
            },
            fs <- Opaque::try_ffi_init(|fs_ptr: *mut bindings::file_system_type| {
                // SAFETY: `try_ffi_init` guarantees that `fs_ptr` is valid for write, and an
                // all-zero `file_system_type` is valid.
                unsafe { fs_ptr.write(pin_init::zeroed()) };

                // SAFETY: `fs_ptr` is valid for write and has just been initialised.
                let fs = unsafe { &mut *fs_ptr };
                fs.owner = module.as_ptr();
                fs.name = T::registered_name().as_char_ptr();
                fs.init_fs_context = Some(Self::init_fs_context_callback::<T>);
                fs.kill_sb = Some(Self::kill_sb_callback::<T>);
                fs.fs_flags = match T::BACKING {
                    sb::Backing::Independent => 0,
                    sb::Backing::BlockDev => bindings::FS_REQUIRES_DEV as i32,
                };

                // SAFETY: Pointers stored in `fs` are static so will live for as long as the
                // registration is active (it is undone in `drop`).
                to_result(unsafe { bindings::register_filesystem(fs_ptr) })
            }),
        })
    }

    /// Returns the registration of the file system type that `sb` belongs to.
    ///
    /// # Safety
    ///
    /// `sb` must be a valid superblock of a file system type registered by a [`Registration`].
    unsafe fn of_sb(sb: *mut bindings::super_block) -> *const Self {
        // SAFETY: `s_type` of a valid superblock is the registered type, which is the `fs` field
        // of a live `Registration` (by the type invariants it outlives the superblock).
        unsafe {
            crate::container_of!(
                (*sb).s_type.cast::<Opaque<bindings::file_system_type>>(),
                Self,
                fs
            )
        }
    }

    /// Returns the inode cache of the file system type that `sb` belongs to.
    ///
    /// # Safety
    ///
    /// `sb` must be a valid superblock of a file system type registered by a [`Registration`].
    #[inline]
    pub(crate) unsafe fn inode_cache(sb: *mut bindings::super_block) -> *mut bindings::kmem_cache {
        // SAFETY: `Registration::of_sb` points to a live `Registration` (see there).
        unsafe { (*Self::of_sb(sb)).inode_cache.0 }
    }

    /// Returns the workqueue on which the inodes of the file system type of `sb` are freed.
    ///
    /// # Safety
    ///
    /// `sb` must be a valid superblock of a file system type registered by a [`Registration`].
    #[inline]
    pub(crate) unsafe fn free_wq(
        sb: *mut bindings::super_block,
    ) -> *mut bindings::workqueue_struct {
        // SAFETY: `Registration::of_sb` points to a live `Registration` (see there).
        unsafe { (*Self::of_sb(sb)).free_wq.0 }
    }

    /// # Safety
    ///
    /// `init_fs_context` of `struct file_system_type`: `fc_ptr` is a valid, new `fs_context`.
    unsafe extern "C" fn init_fs_context_callback<T: FileSystem>(
        fc_ptr: *mut bindings::fs_context,
    ) -> c_int {
        from_result(|| {
            // SAFETY: The C callback API guarantees that `fc_ptr` is valid.
            let fc = unsafe { &mut *fc_ptr };
            // Only a context for reconfiguration has a root (`alloc_fs_context`): that of a
            // mounted superblock of this type, kept active by the context.
            let sb = (!fc.root.is_null())
                // SAFETY: The root is valid and its superblock mounted, hence ready.
                .then(|| unsafe { SuperBlock::<T>::from_raw((*fc.root).d_sb) });
            let options = KBox::new(T::init_options(sb)?, GFP_KERNEL)?;
            // `free_callback` frees it, whatever happens to the context.
            fc.fs_private = KBox::into_raw(options).cast();
            fc.ops = FsContextVTable::<T>::build();
            // Read-only file systems: mounts (and the block device) are, even without `-o ro`.
            if !T::READ_WRITE {
                fc.sb_flags |= bindings::SB_RDONLY as u32;
            }
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// `kill_sb` of `struct file_system_type`: `sb_ptr` is a valid superblock of `T` being
    /// killed.
    unsafe extern "C" fn kill_sb_callback<T: FileSystem>(sb_ptr: *mut bindings::super_block) {
        // SAFETY: The superblock is valid until `kill_sb` returns.
        if unsafe { (*sb_ptr).s_root }.is_null() {
            // A `fill_super` that failed after its data was set (in `init_root`): there is no
            // `put_super`, so the data goes now, while the device is still open.
            // SAFETY: The superblock is of `T` and not used by the file system any more.
            unsafe { Self::drop_sb_data::<T>(sb_ptr) };
        }
        match T::BACKING {
            // SAFETY: `get_tree_callback` uses `get_tree_bdev` for this type, so
            // `kill_block_super` is the matching cleanup.
            sb::Backing::BlockDev => unsafe { bindings::kill_block_super(sb_ptr) },
            // SAFETY: `get_tree_callback` uses `get_tree_nodev` for this type, so
            // `kill_anon_super` is the matching cleanup.
            sb::Backing::Independent => unsafe { bindings::kill_anon_super(sb_ptr) },
        }

        // Released in `put_super` (or above): nothing is left.
    }

    /// Drops the per-superblock data of `sb_ptr`, if it is still there, and clears `s_fs_info`.
    ///
    /// # Safety
    ///
    /// `sb_ptr` must be a valid superblock of `T` that the file system no longer uses (being
    /// shut down or killed), whose `s_fs_info` is NULL or was set by `fill_super_callback`.
    unsafe fn drop_sb_data<T: FileSystem>(sb_ptr: *mut bindings::super_block) {
        // SAFETY: The superblock is valid (safety requirements).
        let fs_info = unsafe { (*sb_ptr).s_fs_info };
        if !fs_info.is_null() {
            // SAFETY: A non-NULL `s_fs_info` was set by `fill_super_callback` from
            // `KBox::into_raw` of a `KBox<T::Data>`; it is cleared right after, so it is freed
            // once.
            drop(unsafe { KBox::from_raw(fs_info.cast::<T::Data>()) });
            // SAFETY: As above; no one reads `s_fs_info` of a superblock being shut down.
            unsafe { (*sb_ptr).s_fs_info = ptr::null_mut() };
        }
    }

    /// Releases what the file system keeps of superblock `sb_ptr` at `put_super`, in C's order:
    /// the data of the inodes evicted so far (its `Drop` may release references to other inodes,
    /// which are evicted in turn), then the superblock's data and what it references.
    ///
    /// Inode data with drop glue is dropped on the registration's workqueue after an RCU grace
    /// period: as long as the superblock still has inodes, this waits for the grace periods and
    /// runs the queued drops, until a round evicts no more of them. So no inode reference held
    /// in inode data or in the superblock's data is released after the busy-inodes check that
    /// follows `put_super`, on a superblock already freed. Data without drop glue holds no
    /// reference (an [`ARef`] has a `Drop`), and costs nothing here.
    ///
    /// # Safety
    ///
    /// `sb_ptr` must be a filled superblock of `T`, registered by a [`Registration`], being shut
    /// down (`put_super`).
    pub(crate) unsafe fn release_sb<T: FileSystem>(sb_ptr: *mut bindings::super_block) {
        let flush = || {
            if !core::mem::needs_drop::<T::INodeData>() {
                return;
            }
            // SAFETY: The superblock is valid (safety requirements).
            let mut left = unsafe { bindings::sb_inode_count(sb_ptr) };
            while left > 0 {
                // SAFETY: Process context (`put_super`); `free_wq` is the workqueue of the
                // registration of `T`, which outlives its superblocks.
                unsafe {
                    bindings::rcu_barrier();
                    bindings::__flush_workqueue(Self::free_wq(sb_ptr));
                }
                // SAFETY: As above.
                let now = unsafe { bindings::sb_inode_count(sb_ptr) };
                if now >= left {
                    break;
                }
                left = now;
            }
        };
        flush();
        // SAFETY: The superblock is of `T`, being shut down (safety requirements).
        unsafe { Self::drop_sb_data::<T>(sb_ptr) };
        flush();
    }
}

#[pinned_drop]
impl PinnedDrop for Registration {
    fn drop(self: Pin<&mut Self>) {
        // SAFETY: If an instance of `Self` has been successfully created, a call to
        // `register_filesystem` has necessarily succeeded. So it's ok to call
        // `unregister_filesystem` on the previously registered fs.
        unsafe { bindings::unregister_filesystem(self.fs.get()) };

        // Inodes are freed on `free_wq` after an RCU grace period (`queue_rcu_work`): wait for
        // the grace periods, so that every pending free is queued; the workqueue is drained and
        // destroyed when the `free_wq` field is dropped, and the inode cache after it.
        // SAFETY: `rcu_barrier` can be called from process context, where modules are unloaded.
        unsafe { bindings::rcu_barrier() };
    }
}

/// [`crate::error::from_err_ptr`] without its `IS_ERR`/`PTR_ERR` helper calls (`IS_ERR_VALUE`
/// is a comparison), for the pointers that VFS calls return on every lookup.
#[inline]
pub(crate) fn from_err_ptr<T>(ptr: *mut T) -> Result<*mut T> {
    let v = ptr.addr();
    // The last `MAX_ERRNO` addresses are the negated error codes.
    if v >= (bindings::MAX_ERRNO as usize).wrapping_neg() {
        // CAST: `v` is an address in `-MAX_ERRNO..0`: as a signed number it fits in an `i32`.
        return Err(Error::from_errno(v as isize as i32));
    }
    Ok(ptr)
}

/// An owned workqueue.
///
/// # Invariants
///
/// The pointer is a valid workqueue, owned by this value.
struct WorkQueue(*mut bindings::workqueue_struct);

impl Drop for WorkQueue {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: By the type invariants the workqueue is valid and ours; `destroy_workqueue`
        // runs the work still queued on it. Nothing queues on it any more: it is dropped with
        // its `Registration`, when no superblock exists and after `rcu_barrier` (see
        // `Registration::drop`).
        unsafe { bindings::destroy_workqueue(self.0) };
    }
}

/// An owned kmem cache.
///
/// # Invariants
///
/// The pointer is a valid kmem cache, owned by this value.
struct KMemCache(*mut bindings::kmem_cache);

impl Drop for KMemCache {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: By the type invariants the cache is valid and ours. It is dropped only with
        // its `Registration`, after the file system was unregistered and all its inodes freed
        // (see `Registration::drop`), or before the registration happened.
        unsafe { bindings::kmem_cache_destroy(self.0) };
    }
}

/// The `struct fs_context_operations` of file system `T`, built at compile time: how its mounts
/// are configured and their superblocks found or filled.
struct FsContextVTable<T: FileSystem>(PhantomData<T>);

impl<T: FileSystem> FsContextVTable<T> {
    /// Returns the table.
    #[inline]
    const fn build() -> &'static bindings::fs_context_operations {
        &Self::VTABLE
    }

    const VTABLE: bindings::fs_context_operations = bindings::fs_context_operations {
        free: Some(Self::free_callback),
        // patch: param
        parse_param: if T::PARAMETERS.is_empty() {
            None
        } else {
            Some(Self::parse_param_callback)
        },
        reconfigure: Some(Self::reconfigure_callback),
        // patch: end
        get_tree: Some(Self::get_tree_callback),
        ..pin_init::zeroed()
    };

    /// Returns the options of a context of `T`.
    ///
    /// # Safety
    ///
    /// `fc` is a valid `fs_context` of `T` (whose `fs_private` `init_fs_context_callback` set),
    /// used by no one else for `'a`.
    #[inline]
    unsafe fn options<'a>(fc: *mut bindings::fs_context) -> &'a mut T::Options {
        // SAFETY: `fs_private` is the `KBox<T::Options>` of `init_fs_context_callback`, until
        // `free_callback`; the context, hence the options, is ours for `'a`.
        unsafe { &mut *(*fc).fs_private.cast::<T::Options>() }
    }

    /// # Safety
    ///
    /// `free` of `struct fs_context_operations`: `fc` is a valid `fs_context` of `T` that is
    /// being freed.
    unsafe extern "C" fn free_callback(fc: *mut bindings::fs_context) {
        // SAFETY: `fc` is valid per the callback contract.
        let private = unsafe { (*fc).fs_private };
        if !private.is_null() {
            // SAFETY: A non-NULL `fs_private` is the `KBox<T::Options>` that
            // `init_fs_context_callback` made; nothing uses it after `free`.
            drop(unsafe { KBox::from_raw(private.cast::<T::Options>()) });
        }
    }

    // patch: param
    /// # Safety
    ///
    /// `parse_param` of `struct fs_context_operations`: `fc` is a valid `fs_context` of `T`
    /// and `param` a valid parameter, both for the duration of the call.
    unsafe extern "C" fn parse_param_callback(
        fc: *mut bindings::fs_context,
        param: *mut bindings::fs_parameter,
    ) -> c_int {
        from_result(|| {
            // SAFETY: `fc` and `param` are valid for the call.
            let p = unsafe { param::parse(fc, &T::PARAMETERS, param) }?;
            // SAFETY: The context is ours during the call.
            T::parse_param(unsafe { Self::options(fc) }, p)?;
            Ok(0)
        })
    }
    // patch: end

    /// # Safety
    ///
    /// `get_tree` of `struct fs_context_operations`: `fc` is a valid `fs_context` of `T`.
    unsafe extern "C" fn get_tree_callback(fc: *mut bindings::fs_context) -> c_int {
        match T::BACKING {
            // SAFETY: `fc` is valid per the callback contract. `fill_super_callback` also has
            // the right type and is a valid callback.
            sb::Backing::BlockDev => unsafe {
                bindings::get_tree_bdev(fc, Some(Self::fill_super_callback))
            },
            // SAFETY: `fc` is valid per the callback contract. `fill_super_callback` also has
            // the right type and is a valid callback.
            sb::Backing::Independent => unsafe {
                bindings::get_tree_nodev(fc, Some(Self::fill_super_callback))
            },
        }
    }

    // patch: param
    /// # Safety
    ///
    /// `reconfigure` of `struct fs_context_operations`: `fc` is a valid `fs_context` whose
    /// `root` is the mounted root of a superblock of `T`.
    unsafe extern "C" fn reconfigure_callback(fc: *mut bindings::fs_context) -> c_int {
        from_result(|| {
            // SAFETY: `fc` is valid per the callback contract and its `root` is the mounted
            // root, whose superblock is ready. Read-only file systems stay so on a remount.
            let sb = unsafe {
                let sb = (*(*fc).root).d_sb;
                bindings::sync_filesystem(sb);
                if !T::READ_WRITE {
                    (*fc).sb_flags |= bindings::SB_RDONLY as u32;
                }
                SuperBlock::<T>::from_raw(sb)
            };
            // SAFETY: The context is ours during the call.
            let options = unsafe { Self::options(fc) };
            // SAFETY: `fc` is valid and ours for the call; `reconfigure_super` applies the flags
            // it sets once this returns, under `s_umount`.
            let mut rc = unsafe { sb::Reconfigure::from_raw(fc) };
            T::reconfigure(sb, options, &mut rc)?;
            Ok(0)
        })
    }
    // patch: end

    /// # Safety
    ///
    /// `fill_super` for `get_tree_nodev`/`get_tree_bdev`: `sb_ptr` is a new superblock of `T`,
    /// used only by this call until it returns, and `fc` the context of the mount.
    unsafe extern "C" fn fill_super_callback(
        sb_ptr: *mut bindings::super_block,
        fc: *mut bindings::fs_context,
    ) -> c_int {
        from_result(|| {
            // SAFETY: The callback contract guarantees that `sb_ptr` is a unique pointer to a
            // newly-created superblock.
            unsafe {
                (*sb_ptr).s_op = sb::SuperOperationsVTable::<T, T::SuperOperations>::build();
                if !T::READ_WRITE {
                    (*sb_ptr).s_flags |= bindings::SB_RDONLY;
                }
            }

            // SAFETY: `sb_ptr` is a new superblock, exclusively ours during `fill_super`.
            let new_sb = unsafe { SuperBlock::<T, sb::New>::from_raw_mut(sb_ptr) };
            // SAFETY: `fc` is the context being mounted, ours during the call.
            let options = unsafe { Self::options(fc) };
            let params = T::fill_super(new_sb, options)?;
            new_sb.apply_params(&params)?;

            let data = KBox::new(params.data, GFP_KERNEL)?;
            // SAFETY: `sb_ptr` is still exclusively ours. `kill_sb_callback` frees this box.
            unsafe { (*sb_ptr).s_fs_info = KBox::into_raw(data).cast() };

            // SAFETY: The superblock is now fully initialised, with `s_fs_info` set.
            let sb = unsafe { SuperBlock::<T>::from_raw(sb_ptr) };
            let root = T::init_root(sb)?;
            // The root of another superblock of this type would be this one's `s_root`: it
            // would outlive the other superblock, which would never see its inode released.
            if root.sb_ptr() != sb_ptr {
                return Err(EINVAL);
            }

            // SAFETY: `sb_ptr` is valid; the root dentry reference is transferred to it.
            unsafe { (*sb_ptr).s_root = root.into_raw() };
            Ok(0)
        })
    }
}

/// Declares a kernel module that exposes a single file system.
///
/// The `type` argument must be a type which implements the [`FileSystem`] trait. Also accepts
/// various forms of kernel metadata.
///
/// # Examples
///
/// (Not run as a KUnit doctest: it declares a module.)
///
/// ```ignore
/// # mod module_fs_sample {
/// use kernel::fs::{dentry, inode, sb, sb::SuperBlock};
/// use kernel::prelude::*;
///
/// kernel::module_fs! {
///     type: MyFs,
///     name: "myfs",
///     authors: ["Rust for Linux Contributors"],
///     description: "My Rust fs",
///     license: "GPL",
/// }
///
/// struct MyFs;
///
/// #[vtable]
/// impl sb::SuperOperations for MyFs {
///     type FileSystem = Self;
/// }
///
/// impl kernel::fs::FileSystem for MyFs {
///     type Data = ();
///     type INodeData = ();
// patch: wstate
///     type INodeWriterState = ();
///
///     fn init_inode_writer_state() -> impl PinInit<(), Error> {
///         Ok(())
///     }
///
// patch: end
///     type Options = ();
///     const NAME: &'static CStr = c"myfs";
///     type SuperOperations = Self;
///
///     fn fill_super(_: &mut SuperBlock<Self, sb::New>, _: &()) -> Result<sb::SuperParams<()>> {
///         Err(EINVAL)
///     }
///
///     fn init_root(_: &SuperBlock<Self>) -> Result<dentry::Root<Self>> {
///         Err(EINVAL)
///     }
/// }
/// # }
/// ```
#[macro_export]
macro_rules! module_fs {
    (type: $type:ty, $($f:tt)*) => {
        #[$crate::prelude::pin_data]
        struct FsModule {
            #[pin]
            _fs: $crate::fs::Registration,
        }

        impl $crate::InPlaceModule for FsModule {
            #[inline]
            fn init(
                module: &'static $crate::ThisModule,
            ) -> impl ::pin_init::PinInit<Self, $crate::error::Error> {
                $crate::try_pin_init!(Self {
                    // SAFETY: The registration is the module's state, dropped at module exit,
                    // when no superblock of the file system exists.
                    _fs <- unsafe { $crate::fs::Registration::new::<$type>(module) },
                })
            }
        }

        $crate::prelude::module! {
            type: FsModule,
            $($f)*
        }
    }
}

// SPDX-License-Identifier: GPL-2.0

//! The inode cache's objects: an inode with the file system's data beside it, and the slab and
//! `super_operations` callbacks that allocate, construct and free them.

use crate::fs::{FileSystem, Registration};
use crate::{bindings, prelude::*};
use core::{mem::MaybeUninit, ptr};

/// An inode with the file system's per-inode data next to it, as allocated by the bindings'
/// `alloc_inode`.
///
/// # Invariants
///
/// `data` is initialised if and only if `data_init` is true. `rwork` is used only once the inode
/// was destroyed, to free the object.
// patch: wstate
/// `writer` is initialised from the object's allocation until the inode is destroyed, and does
/// not move meanwhile (a slab object).
// patch: end
#[repr(C)]
pub(crate) struct INodeWithData<T: FileSystem> {
    pub(super) data: MaybeUninit<T::INodeData>,
    pub(super) data_init: bool,
    pub(super) rwork: bindings::rcu_work,
    // patch: fsync
    /// The metadata buffers that must be written for an `fsync` of the inode
    /// (`mapping_metadata_bhs`, as C's `ext2_inode_info` has): initialised with the object,
    /// emptied when the inode is destroyed, freed after an RCU grace period (buffers reach it
    /// under RCU, `remove_assoc_queue`).
    pub(super) mmb: bindings::mapping_metadata_bhs,
    // patch: end
    // patch: wstate
    /// The file system's [`FileSystem::INodeWriterState`].
    pub(super) writer: MaybeUninit<T::INodeWriterState>,
    // patch: end
    pub(super) inode: bindings::inode,
}

impl<T: FileSystem> INodeWithData<T> {
    /// The offset of the file system's data in the object.
    pub(crate) const DATA_OFFSET: usize = core::mem::offset_of!(Self, data);

    // patch: iwrite
    /// Returns whether the file system's data of `inode` is initialised: it is not for inodes
    /// whose set-up failed (bad inodes), which writeback may still see.
    ///
    /// # Safety
    ///
    /// `inode` must be an inode allocated by [`Self::alloc_inode_callback`] that is alive and not
    /// new (`I_NEW`: writeback skips those), so that `data_init` is no longer written.
    pub(crate) unsafe fn data_initialised(inode: *mut bindings::inode) -> bool {
        // SAFETY: The inode is embedded in a `Self` (caller); `data_init` was written before the
        // inode was unlocked (`unlock_new_inode`, whose lock orders it before writeback).
        unsafe { (*crate::container_of!(inode, Self, inode)).data_init }
    }
    // patch: end
    // patch: fsync

    /// Returns the metadata buffer list of `inode`.
    ///
    /// # Safety
    ///
    /// `inode` must be an inode allocated by [`Self::alloc_inode_callback`], not destroyed yet.
    pub(crate) unsafe fn mmb(inode: *mut bindings::inode) -> *mut bindings::mapping_metadata_bhs {
        // SAFETY: The inode is embedded in a `Self` (caller).
        unsafe { &raw mut (*crate::container_of!(inode, Self, inode)).mmb }
    }
    // patch: end

    /// The kmem cache constructor: `inode_init_once` on the embedded inode.
    ///
    /// # Safety
    ///
    /// Kmem cache constructor: `outer` points to an object of the inode cache, of the size of
    /// `Self`.
    pub(crate) unsafe extern "C" fn init_once_callback(outer: *mut c_void) {
        let ptr = outer.cast::<Self>();
        // SAFETY: The kmem cache calls this with an object of the cache's size, which is
        // `size_of::<Self>()`, so the inode field is within it.
        unsafe { bindings::inode_init_once(&raw mut (*ptr).inode) };
    }

    /// # Safety
    ///
    /// `alloc_inode` of `struct super_operations`: `sb` is a valid superblock of a file system
    /// registered with a [`Registration`] for `T`.
    pub(crate) unsafe extern "C" fn alloc_inode_callback(
        sb: *mut bindings::super_block,
    ) -> *mut bindings::inode {
        // SAFETY: The callback contract guarantees that `sb` is valid; it belongs to a file
        // system registered with a `Registration` for `T` (the table
        // that installs this callback is built for that type).
        let cache = unsafe { Registration::inode_cache(sb) };
        // SAFETY: `cache` is a valid kmem cache.
        let ptr = unsafe {
            bindings::kmem_cache_alloc_lru_noprof(
                cache,
                &raw mut (*sb).s_inode_lru,
                bindings::GFP_KERNEL,
            )
        }
        .cast::<Self>();
        if ptr.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: `ptr` was just allocated with room for `Self`.
        // INVARIANT: The data is not initialised yet.
        unsafe {
            (&raw mut (*ptr).data_init).write(false);
            // patch: fsync
            // The list's buffers belong to the inode's own mapping, as in C.
            #[cfg(CONFIG_BUFFER_HEAD)]
            bindings::mmb_init(&raw mut (*ptr).mmb, &raw mut (*ptr).inode.i_data);
            // patch: end
        }
        // patch: wstate
        // SAFETY: `writer` is uninitialised memory of the new object, which is not shared yet and
        // does not move (a slab object). If the initialiser fails, the object is freed before
        // anyone saw it (nothing else in it needs undoing: `mmb_init` only sets up a list).
        // INVARIANT: Otherwise the writer state is initialised until the inode is destroyed.
        unsafe {
            let slot = (&raw mut (*ptr).writer).cast::<T::INodeWriterState>();
            if pin_init::raw_try_init(slot, T::init_inode_writer_state()).is_err() {
                bindings::kmem_cache_free(cache, ptr.cast());
                return ptr::null_mut();
            }
        }
        // patch: end
        // SAFETY: `ptr` is the new object.
        unsafe { &raw mut (*ptr).inode }
    }

    /// # Safety
    ///
    /// `destroy_inode` of `struct super_operations`, with no `free_inode`: `inode` is an inode
    /// allocated by [`Self::alloc_inode_callback`] that is being destroyed, on a valid
    /// superblock; freeing it is left to this callback.
    // patch: fsync
    /// With `free_inode` (when `T::INodeData` has no drop glue) freeing is left to that.
    // patch: end
    ///
    /// RCU path walkers may still look at the inode (and its data, see [`RcuINode`]) until a
    /// grace period has passed, and the data's `Drop` may sleep: so the data is dropped and the
    /// object freed by [`Self::free_work_callback`], queued with `queue_rcu_work`, which runs
    /// in process context after a grace period.
    pub(crate) unsafe extern "C" fn destroy_inode_callback(inode: *mut bindings::inode) {
        // SAFETY: All inodes of this file system are allocated by `alloc_inode_callback`, so
        // `inode` is embedded in a `Self`; the VFS does not use it after this call.
        let ptr = unsafe { crate::container_of!(inode, Self, inode) };
        // patch: wstate
        // SAFETY: The writer state was initialised when the object was allocated (type
        // invariants) and is dropped here, once: the inode is destroyed after eviction waited
        // for writeback and cleared the inode (or right after a failed `inode_init_always`), so
        // no writer reaches it any more (`UncountedINode`s, which give it, do not outlive the
        // inode's life), and RCU walkers never do (`RcuINode` does not give it). The VFS calls
        // this in process context, where its `Drop` may sleep.
        unsafe { (*ptr).writer.assume_init_drop() };
        // patch: end
        // patch: fsync
        // SAFETY: The list is the inode's, initialised in `alloc_inode_callback`. Its buffers
        // still dirty are written and waited for, as `ext2_evict_inode` does (an `fsync` of the
        // inode read again would not know them), then detached: no buffer points to the list
        // once the object is freed, an RCU grace period from now. The VFS calls this in process
        // context, where waiting is allowed.
        #[cfg(CONFIG_BUFFER_HEAD)]
        unsafe {
            let mmb = &raw mut (*ptr).mmb;
            if bindings::mmb_has_buffers(mmb) {
                bindings::mmb_sync(mmb);
            }
            bindings::mmb_invalidate(mmb);
        }
        if !core::mem::needs_drop::<T::INodeData>() {
            // `free_inode_callback` frees the object after a grace period.
            return;
        }
        // patch: end
        // SAFETY: The superblock is valid while its inodes are destroyed; it belongs to a file
        // system registered with a `Registration` (whose workqueue outlives its superblocks).
        let wq = unsafe { Registration::free_wq((*inode).i_sb) };
        // SAFETY: `rwork` is ours (type invariants) and initialised here; the work runs once.
        unsafe {
            bindings::init_rcu_work(&raw mut (*ptr).rwork, Some(Self::free_work_callback));
            bindings::queue_rcu_work(wq, &raw mut (*ptr).rwork);
        }
    }

    /// # Safety
    ///
    /// `free_inode` of `struct super_operations`, installed instead of `destroy_inode` only when
    /// `T::INodeData` has no drop glue (`needs_drop`): `inode` is an inode allocated by
    /// [`Self::alloc_inode_callback`] that was destroyed. The VFS calls this from an RCU callback
    /// (`i_callback`), so a grace period has passed and RCU path walkers are done with it.
    pub(crate) unsafe extern "C" fn free_inode_callback(inode: *mut bindings::inode) {
        // SAFETY: All inodes of this file system are allocated by `alloc_inode_callback`, so
        // `inode` is embedded in a `Self`.
        let ptr = unsafe { crate::container_of!(inode, Self, inode) };
        // `T::INodeData` has no drop glue (safety requirements), so the data need not be
        // dropped, even if it was initialised. The superblock may be gone by now: `kfree` finds
        // the inode cache from the object itself.
        // SAFETY: The object was allocated by `kmem_cache_alloc` in `alloc_inode_callback`, and
        // no one uses it any more (the VFS calls this once, after a grace period).
        unsafe { bindings::kfree(ptr.cast()) };
    }

    /// # Safety
    ///
    /// Work function queued by [`Self::destroy_inode_callback`]: `work` is the `rwork.work` of
    /// a destroyed `Self`, after an RCU grace period, in process context.
    unsafe extern "C" fn free_work_callback(work: *mut bindings::work_struct) {
        // SAFETY: `work` is the `work` field of the `rwork` field of a `Self`.
        let ptr = unsafe {
            let rwork = crate::container_of!(work, bindings::rcu_work, work);
            crate::container_of!(rwork, Self, rwork)
        };
        // SAFETY: No one uses the object any more (destroyed, and a grace period has passed
        // since, so RCU walkers are done too); by the type invariants `data_init` says whether
        // the data was initialised (by `NewINode::init`); it is dropped only here.
        unsafe {
            if (*ptr).data_init {
                (*ptr).data.assume_init_drop();
            }
        }
        // The superblock may be gone by now, so `i_sb` must not be used to find the inode
        // cache: `kfree` finds it from the object itself.
        // SAFETY: The object was allocated by `kmem_cache_alloc` in `alloc_inode_callback`, and
        // is not used any more; the workqueue does not touch `work` after calling us.
        unsafe { bindings::kfree(ptr.cast()) };
    }
}

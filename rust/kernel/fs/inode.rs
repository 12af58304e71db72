// SPDX-License-Identifier: GPL-2.0

//! File system inodes and their operations.
//!
//! C headers: [`include/linux/fs.h`](srctree/include/linux/fs.h)

// patch: acl
use super::posix_acl;
// patch: end
use super::{dentry, dentry::DEntry, sb::SuperBlock, FileSystem};
// patch: link
use crate::error::code::*;
// patch: end
use crate::error::Result;
use crate::prelude::*;
// patch: link
use crate::str::CStrExt;
// patch: end
use crate::sync::aref::{ARef, AlwaysRefCounted};
use crate::{bindings, types::Opaque};
use core::{marker::PhantomData, mem::ManuallyDrop, mem::MaybeUninit, ptr, ptr::NonNull};

/// The type of an inode.
#[derive(Copy, Clone, PartialEq, Eq)]
pub enum Type {
    /// Directory.
    Dir,
    /// Regular file.
    Reg,
    /// Symbolic link.
    Lnk,
    /// Named pipe (first-in, first-out).
    Fifo,
    /// Character device, with its device number.
    Chr(Dev),
    /// Block device, with its device number.
    Blk(Dev),
    /// Unix-domain socket.
    Sock,
}

impl Type {
    fn mode_bits(self) -> u32 {
        match self {
            Type::Dir => bindings::S_IFDIR,
            Type::Reg => bindings::S_IFREG,
            Type::Lnk => bindings::S_IFLNK,
            Type::Fifo => bindings::S_IFIFO,
            Type::Chr(_) => bindings::S_IFCHR,
            Type::Blk(_) => bindings::S_IFBLK,
            Type::Sock => bindings::S_IFSOCK,
        }
    }
}

/// The file type bits of an inode mode (`S_IF*` of `include/uapi/linux/stat.h`), for file
/// systems whose on-disk modes use the Linux encoding.
pub mod mode {
    use crate::bindings;

    /// Mask of the file type bits.
    pub const S_IFMT: u16 = bindings::S_IFMT as u16;
    /// Unix-domain socket.
    pub const S_IFSOCK: u16 = bindings::S_IFSOCK as u16;
    /// Symbolic link.
    pub const S_IFLNK: u16 = bindings::S_IFLNK as u16;
    /// Regular file.
    pub const S_IFREG: u16 = bindings::S_IFREG as u16;
    /// Block device.
    pub const S_IFBLK: u16 = bindings::S_IFBLK as u16;
    /// Directory.
    pub const S_IFDIR: u16 = bindings::S_IFDIR as u16;
    /// Character device.
    pub const S_IFCHR: u16 = bindings::S_IFCHR as u16;
    /// Named pipe.
    pub const S_IFIFO: u16 = bindings::S_IFIFO as u16;
}

/// A device number, as major and minor numbers.
///
/// # Examples
///
/// The two on-disk encodings of Linux file systems (`old_decode_dev`, `new_decode_dev`):
///
/// ```
/// use kernel::fs::inode::Dev;
///
/// let old = Dev::from_old(0x0801);
/// assert!(old.major == 8 && old.minor == 1);
/// // New encoding: minor bits 0-7 and 20-31, major bits 8-19.
/// let new = Dev::from_new(0x1234_5678);
/// assert!(new.major == 0x456 && new.minor == 0x12378);
/// assert!(Dev::from_new(0x0801) == Dev::from_old(0x0801));
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Default)]
pub struct Dev {
    /// Major number (12 bits in the kernel's `dev_t`).
    pub major: u32,
    /// Minor number (20 bits in the kernel's `dev_t`).
    pub minor: u32,
}

impl Dev {
    /// Decodes the old 16-bit encoding of a device number (`old_decode_dev`).
    #[inline]
    pub fn from_old(val: u16) -> Self {
        Dev {
            major: u32::from(val >> 8) & 0xff,
            minor: u32::from(val) & 0xff,
        }
    }

    /// Decodes the new 32-bit encoding of a device number (`new_decode_dev`).
    #[inline]
    pub fn from_new(val: u32) -> Self {
        Dev {
            major: (val & 0xfff00) >> 8,
            minor: (val & 0xff) | ((val >> 12) & 0xfff00),
        }
    }

    #[inline]
    fn to_kdev(self) -> bindings::dev_t {
        ((self.major & 0xfff) << 20) | (self.minor & 0xfffff)
    }
}

/// A timestamp: seconds and nanoseconds since the epoch.
#[derive(Copy, Clone, PartialEq, Eq, Default)]
pub struct Timespec {
    /// Seconds (may be negative, before 1970).
    pub secs: i64,
    /// Nanoseconds, below one billion (more are carried into the seconds when the time is
    /// stored in an inode).
    pub nsecs: u32,
}

impl Timespec {
    /// The same time with the nanoseconds below one billion: the whole seconds in them are
    /// carried into the seconds (saturating), as the VFS expects of `i_*time_nsec`.
    #[inline]
    fn normalized(self) -> Self {
        const NSEC_PER_SEC: u32 = 1_000_000_000;
        Self {
            secs: self
                .secs
                .saturating_add(i64::from(self.nsecs / NSEC_PER_SEC)),
            nsecs: self.nsecs % NSEC_PER_SEC,
        }
    }
}

/// The Unix epoch, as a [`Timespec`].
pub const UNIX_EPOCH: Timespec = Timespec { secs: 0, nsecs: 0 };

/// A node in the file system index (inode).
///
/// Wraps the kernel's `struct inode`.
///
/// # Invariants
///
/// Instances of this type are always ref-counted, that is, a call to `ihold` ensures that the
/// allocation remains valid at least until the matching call to `iput`. The inode belongs to a
/// superblock of file system `T` and is embedded in an `INodeWithData<T::INodeData>` whose data
/// is initialised (unless the inode is new or bad, in which case no `INode<T>` reference is given
/// out to file systems, see [`NewINode`]).
#[repr(transparent)]
pub struct INode<T: FileSystem>(Opaque<bindings::inode>, PhantomData<T>);

impl<T: FileSystem> INode<T> {
    /// Creates an inode reference from a raw pointer.
    ///
    /// # Safety
    ///
    /// `ptr` must be a valid, initialised inode of file system `T` for the duration of `'a`.
    #[inline]
    pub(crate) unsafe fn from_raw<'a>(ptr: *mut bindings::inode) -> &'a Self {
        // SAFETY: The cast is okay because `INode` is `repr(transparent)` over `struct inode`,
        // which the caller guarantees to be valid for `'a`.
        unsafe { &*ptr.cast::<Self>() }
    }

    /// Returns the raw `struct inode` pointer.
    #[inline]
    pub(crate) fn as_ptr(&self) -> *mut bindings::inode {
        self.0.get()
    }

    /// Returns the number of the inode.
    #[inline]
    pub fn ino(&self) -> u64 {
        // SAFETY: `i_ino` is immutable, and it is valid to read while the inode is alive.
        unsafe { (*self.as_ptr()).i_ino }
    }

    /// Returns the superblock that the inode belongs to.
    #[inline]
    pub fn super_block(&self) -> &SuperBlock<T> {
        // SAFETY: `i_sb` is immutable; the superblock outlives its inodes and is ready, since
        // initialised inodes exist only in filled superblocks.
        unsafe { SuperBlock::from_raw((*self.as_ptr()).i_sb) }
    }

    /// Returns the size of the inode contents (`i_size_read`).
    #[inline]
    pub fn size(&self) -> i64 {
        self.as_rcu().size()
    }

    /// Returns the data associated with the inode.
    #[inline]
    pub fn data(&self) -> &T::INodeData {
        self.as_rcu().data()
    }

    /// Returns the generation of the inode (`i_generation`), which file handles carry.
    #[inline]
    pub fn generation(&self) -> u32 {
        // SAFETY: The inode is valid. Writers change `i_generation` under the inode lock; a
        // volatile read (READ_ONCE) sees either value.
        unsafe { ptr::read_volatile(&raw const (*self.as_ptr()).i_generation) }
    }

    /// Returns whether the caller owns the inode or has `CAP_FOWNER` over it
    /// (`inode_owner_or_capable` in the initial idmapping).
    #[inline]
    pub fn owner_or_capable(&self) -> bool {
        // SAFETY: The inode is valid; `nop_mnt_idmap` is the static initial idmapping.
        unsafe { bindings::inode_owner_or_capable(&raw mut bindings::nop_mnt_idmap, self.as_ptr()) }
    }

    /// Returns the view of the inode that RCU path walk has (no reference counting).
    #[inline]
    pub fn as_rcu(&self) -> &RcuINode<T> {
        // SAFETY: `RcuINode` is a transparent wrapper of the same inode, whose invariants are
        // weaker than `INode`'s (any initialised inode whose memory is valid for `'_`).
        unsafe { RcuINode::from_raw(self.as_ptr()) }
    }
}

// SAFETY: An `ARef<INode>` owns a reference that may be dropped (`iput`) on any thread in
// process context, and `INode`'s methods only read fields that are immutable after
// initialisation or read with the kernel's lockless accessors.
unsafe impl<T: FileSystem> Send for INode<T> {}

// SAFETY: As above, shared references only give access to immutable fields, lockless reads and
// the file system's data, which is `Sync` (`FileSystem::INodeData: Sync`).
unsafe impl<T: FileSystem> Sync for INode<T> {}

/// An inode as seen during RCU path walk (`LOOKUP_RCU`), where no reference is held.
///
/// The inode may be being evicted, its refcount may be zero: it cannot be ref-counted (unlike
/// [`INode`]), only read. Its memory, and its [`FileSystem::INodeData`], stay valid until the
/// end of the current RCU read-side critical section, because the bindings free inodes (and
/// drop their data) only after an RCU grace period (see [`FileSystem::INodeData`]).
///
/// # Invariants
///
/// The inode is an initialised inode of file system `T` (embedded in an `INodeWithData` whose
/// data is initialised), whose memory is valid for the lifetime of the reference.
#[repr(transparent)]
pub struct RcuINode<T: FileSystem>(Opaque<bindings::inode>, PhantomData<T>);

impl<T: FileSystem> RcuINode<T> {
    /// Creates an RCU view of an inode from a raw pointer.
    ///
    /// # Safety
    ///
    /// `ptr` must be an initialised inode of file system `T` whose memory stays valid for the
    /// duration of `'a` (for instance, because an RCU read-side critical section lasts that
    /// long).
    #[inline]
    pub(crate) unsafe fn from_raw<'a>(ptr: *mut bindings::inode) -> &'a Self {
        // SAFETY: The cast is okay because `RcuINode` is `repr(transparent)` over `struct inode`,
        // which the caller guarantees to be valid for `'a`.
        unsafe { &*ptr.cast::<Self>() }
    }

    #[inline]
    fn as_ptr(&self) -> *mut bindings::inode {
        self.0.get()
    }

    /// Returns the number of the inode.
    #[inline]
    pub fn ino(&self) -> u64 {
        // SAFETY: `i_ino` is immutable after initialisation, and the memory is valid.
        unsafe { (*self.as_ptr()).i_ino }
    }

    /// Returns the size of the inode contents (`i_size_read`).
    #[inline]
    pub fn size(&self) -> i64 {
        // SAFETY: The inode's memory is valid; `i_size_read` is the kernel's lockless read.
        unsafe { bindings::i_size_read(self.as_ptr()) }
    }

    /// Returns the data associated with the inode.
    #[inline]
    pub fn data(&self) -> &T::INodeData {
        // SAFETY: By the type invariants the inode is embedded in an `INodeWithData` whose data
        // is initialised and, as the memory, valid for the lifetime of `self`.
        unsafe {
            let outer = crate::container_of!(self.as_ptr(), INodeWithData<T::INodeData>, inode);
            (*outer).data.assume_init_ref()
        }
    }
}

// SAFETY: The type invariants guarantee that `INode` is always ref-counted.
unsafe impl<T: FileSystem> AlwaysRefCounted for INode<T> {
    #[inline]
    fn inc_ref(&self) {
        // SAFETY: The existence of a shared reference means that the refcount is nonzero.
        unsafe { bindings::ihold(self.as_ptr()) };
    }

    #[inline]
    unsafe fn dec_ref(obj: NonNull<Self>) {
        // SAFETY: The safety requirements guarantee that the refcount is nonzero.
        unsafe { bindings::iput(obj.as_ref().as_ptr()) }
    }
}

/// An inode with the file system's per-inode data next to it, as allocated by the bindings'
/// `alloc_inode`.
///
/// # Invariants
///
/// `data` is initialised if and only if `data_init` is true. `rwork` is used only once the inode
/// was destroyed, to free the object.
#[repr(C)]
pub(crate) struct INodeWithData<D> {
    data: MaybeUninit<D>,
    data_init: bool,
    rwork: bindings::rcu_work,
    inode: bindings::inode,
}

impl<D> INodeWithData<D> {
    /// The offset of the file system's data in the object.
    pub(crate) const DATA_OFFSET: usize = core::mem::offset_of!(Self, data);

    /// The kmem cache constructor: `inode_init_once` on the embedded inode.
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
    /// registered with a [`Registration`](super::Registration) whose `INodeData` is `D`.
    pub(crate) unsafe extern "C" fn alloc_inode_callback(
        sb: *mut bindings::super_block,
    ) -> *mut bindings::inode {
        // SAFETY: The callback contract guarantees that `sb` is valid; it belongs to a file
        // system registered with a `Registration` for a type with `INodeData = D` (the table
        // that installs this callback is built for that type).
        let cache = unsafe { super::Registration::inode_cache(sb) };
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
            &raw mut (*ptr).inode
        }
    }

    /// # Safety
    ///
    /// `destroy_inode` of `struct super_operations`, with no `free_inode`: `inode` is an inode
    /// allocated by [`Self::alloc_inode_callback`] that is being destroyed, on a valid
    /// superblock; freeing it is left to this callback.
    ///
    /// RCU path walkers may still look at the inode (and its data, see [`RcuINode`]) until a
    /// grace period has passed, and the data's `Drop` may sleep: so the data is dropped and the
    /// object freed by [`Self::free_work_callback`], queued with `queue_rcu_work`, which runs
    /// in process context after a grace period.
    pub(crate) unsafe extern "C" fn destroy_inode_callback(inode: *mut bindings::inode) {
        // SAFETY: All inodes of this file system are allocated by `alloc_inode_callback`, so
        // `inode` is embedded in a `Self`; the VFS does not use it after this call.
        let ptr = unsafe { crate::container_of!(inode, Self, inode) };
        // SAFETY: The superblock is valid while its inodes are destroyed; it belongs to a file
        // system registered with a `Registration` (whose workqueue outlives its superblocks).
        let wq = unsafe { super::Registration::free_wq((*inode).i_sb) };
        // SAFETY: `rwork` is ours (type invariants) and initialised here; the work runs once.
        unsafe {
            bindings::init_rcu_work(&raw mut (*ptr).rwork, Some(Self::free_work_callback));
            bindings::queue_rcu_work(wq, &raw mut (*ptr).rwork);
        }
    }

    /// # Safety
    ///
    /// `free_inode` of `struct super_operations`, installed instead of `destroy_inode` only when
    /// `D` has no drop glue (`needs_drop`): `inode` is an inode allocated by
    /// [`Self::alloc_inode_callback`] that was destroyed. The VFS calls this from an RCU callback
    /// (`i_callback`), so a grace period has passed and RCU path walkers are done with it.
    pub(crate) unsafe extern "C" fn free_inode_callback(inode: *mut bindings::inode) {
        // SAFETY: All inodes of this file system are allocated by `alloc_inode_callback`, so
        // `inode` is embedded in a `Self`.
        let ptr = unsafe { crate::container_of!(inode, Self, inode) };
        // `D` has no drop glue (safety requirements), so the data need not be dropped, even if it
        // was initialised. The superblock may be gone by now: `kfree` finds the inode cache from
        // the object itself.
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

/// A new inode, locked (`I_NEW`), being set up by the `init` closure of [`SuperBlock::iget`].
///
/// Only the bindings own one: they initialise it with the parameters `init` returns, or, if it
/// fails, drop it, which marks it bad and releases it (`iget_failed`).
///
/// The second field says whether the operations set so far read through the inode's page cache
/// (the generic file reads, `page_get_link`), so that the initialisation can refuse an inode whose
/// mapping cannot fill it; the third is the [`INodeOperations::inline_link`] of its inode
/// operations, asked for the target once the data is in place.
pub struct NewINode<T: FileSystem>(
    ManuallyDrop<ARef<INode<T>>>,
    pub(crate) bool,
    Option<InlineLink<T>>,
);

/// [`INodeOperations::inline_link`] of some table for file system `T`.
type InlineLink<T> = for<'a> fn(&'a <T as FileSystem>::INodeData) -> Option<&'a CStr>;

impl<T: FileSystem> NewINode<T> {
    #[inline]
    pub(crate) fn new(inode: ARef<INode<T>>) -> Self {
        Self(ManuallyDrop::new(inode), false, None)
    }

    /// Returns the number of the new inode.
    #[inline]
    pub fn ino(&self) -> u64 {
        self.0.ino()
    }

    /// Returns the raw pointer of the new inode, which only its owner may write to.
    #[inline]
    pub(crate) fn as_ptr(&self) -> *mut bindings::inode {
        self.0.as_ptr()
    }

    /// Sets the inode operations of the new inode (`i_op`); without this it keeps the VFS
    /// default (empty) table.
    pub fn set_inode_ops(&mut self, ops: Ops<T>) -> &mut Self {
        // SAFETY: The inode is new and exclusively ours; the table is static.
        unsafe { (*self.as_ptr()).i_op = ops.as_ptr() };
        // patch: link
        if ops.page_link {
            // `page_get_link` takes the kernel address of the folio (`folio_address`), which a
            // folio in high memory does not have: it BUGs unless the mapping's folios are
            // allocated without `__GFP_HIGHMEM`.
            // SAFETY: The inode is new and exclusively ours, its page cache still empty.
            unsafe { bindings::inode_nohighmem(self.as_ptr()) };
            self.1 = true;
        }
        self.2 = ops.inline_link;
        // patch: end
        self
    }

    /// Initialises the new inode with `params` and unlocks it (`unlock_new_inode`).
    ///
    /// Fails with `EINVAL` (and releases the inode as if dropped) if its operations read through
    /// the page cache but its address space cannot read folios (no
    /// [`AddressSpaceOperations::read_folio`](crate::fs::address_space::AddressSpaceOperations)):
    /// `read(2)`, `mmap` or the link walk would make C call a NULL `read_folio`.
    #[inline]
    pub(crate) fn init(self, params: Params<T>) -> Result<ARef<INode<T>>> {
        let inode_ptr = self.0.as_ptr();
        let mode = (params.typ.mode_bits() | (u32::from(params.mode) & 0o7777)) as u16;
        // Special inodes get the operations of their kind from `init_special_inode` below.
        let special = matches!(
            params.typ,
            Type::Chr(_) | Type::Blk(_) | Type::Fifo | Type::Sock
        );
        // SAFETY: The inode and its mapping are valid; the operations of a mapping are NULL or a
        // valid static table, set only while the inode is new.
        let read_folio = unsafe {
            let aops = (*(*inode_ptr).i_mapping).a_ops;
            !aops.is_null() && (*aops).read_folio.is_some()
        };
        if self.1 && !special && !read_folio {
            // `self` is dropped: `iget_failed`.
            return Err(EINVAL);
        }

        // SAFETY: The inode is new (`I_NEW`), so no one else looks at its fields until it is
        // unlocked below; `inode_ptr` is valid.
        unsafe {
            let inode = &mut *inode_ptr;
            inode.i_mode = mode;
            match params.typ {
                Type::Chr(dev) | Type::Blk(dev) => {
                    bindings::init_special_inode(inode, mode, dev.to_kdev());
                }
                Type::Fifo | Type::Sock => bindings::init_special_inode(inode, mode, 0),
                Type::Dir | Type::Reg | Type::Lnk => {}
            }
            bindings::set_nlink(inode, params.nlink);
            // `i_uid_write`/`i_gid_write`: `make_kuid`/`make_kgid` map the ids into the
            // superblock's user namespace, which without `CONFIG_USER_NS` is the identity (a
            // static inline function): then the ids are stored without two helper calls.
            #[cfg(CONFIG_USER_NS)]
            {
                bindings::i_uid_write(inode, params.uid);
                bindings::i_gid_write(inode, params.gid);
            }
            #[cfg(not(CONFIG_USER_NS))]
            {
                inode.i_uid = bindings::kuid_t { val: params.uid };
                inode.i_gid = bindings::kgid_t { val: params.gid };
            }
            // No one reads the size of a new inode before `unlock_new_inode` (which orders
            // these stores before the wakeup), so it is a plain store, not `i_size_write`.
            inode.i_size = params.size;
            inode.i_blocks = params.blocks;
            inode.i_generation = params.generation;
            // patch: attr
            // `inode_set_flags` as the VFS asks (i_flags may be read without the inode lock).
            bindings::inode_set_flags(inode, params.flags.0, Flags::ALL.0);
            // patch: end
            let (atime, mtime, ctime) = (
                params.atime.normalized(),
                params.mtime.normalized(),
                params.ctime.normalized(),
            );
            inode.i_atime_sec = atime.secs;
            inode.i_atime_nsec = atime.nsecs;
            inode.i_mtime_sec = mtime.secs;
            inode.i_mtime_nsec = mtime.nsecs;
            inode.i_ctime_sec = ctime.secs;
            inode.i_ctime_nsec = ctime.nsecs;

            // INVARIANT: The data is written, then marked initialised; `free_work_callback`
            // drops it.
            let outer = crate::container_of!(inode_ptr, INodeWithData<T::INodeData>, inode);
            (*outer).data.write(params.value);
            (*outer).data_init = true;

            // patch: link
            // A target in the data, in memory user copies may come from, is the VFS's to read
            // (`i_link`): in RCU walk without calling the file system. Both live until the
            // inode is freed, after an RCU grace period; the data is not changed after this.
            if let Some(link) = self.2.and_then(|f| f((*outer).data.assume_init_ref())) {
                if usercopy_allowed::<T>(inode_ptr, link) {
                    let len = link.to_bytes().len();
                    bindings::inode_set_cached_link(
                        inode_ptr,
                        link.as_char_ptr().cast_mut(),
                        len as c_int,
                    );
                }
            }
            // patch: end

            bindings::unlock_new_inode(inode);
        }

        let me = ManuallyDrop::new(self);
        // SAFETY: `me` is never used or dropped again, so the reference it owns is moved out
        // exactly once. The inode is initialised now, so it's fine to hand it out.
        Ok(ManuallyDrop::into_inner(unsafe { ptr::read(&me.0) }))
    }
}

impl<T: FileSystem> Drop for NewINode<T> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: The inode is new and was not initialised: `iget_failed` marks it bad, unlocks
        // it and drops the reference that we own (so the `ARef` is not dropped).
        unsafe { bindings::iget_failed(self.0.as_ptr()) };
    }
}

/// Parameters of a new inode, returned by the `init` closure of [`SuperBlock::iget`].
pub struct Params<T: FileSystem> {
    /// The type of the inode.
    pub typ: Type,
    /// The permission bits (and setuid/setgid/sticky) of the inode.
    pub mode: u16,
    /// Size of the contents in bytes.
    pub size: i64,
    /// Number of 512-byte blocks used by the inode.
    pub blocks: u64,
    /// Number of hard links to the inode.
    pub nlink: u32,
    /// Owner of the inode.
    pub uid: u32,
    /// Group of the inode.
    pub gid: u32,
    /// Creation/status-change time.
    pub ctime: Timespec,
    /// Last modification time.
    pub mtime: Timespec,
    /// Last access time.
    pub atime: Timespec,
    /// Generation number (for NFS file handles).
    pub generation: u32,
    // patch: attr
    /// The VFS inode flags that the on-disk state gives (`S_IMMUTABLE`, ...).
    pub flags: Flags,
    // patch: end
    /// The file system's data for this inode.
    pub value: T::INodeData,
}

// patch: attr
/// VFS inode flags that a file system derives from its on-disk inode (`S_*` in `i_flags`).
///
/// They change what the VFS allows and does (`S_IMMUTABLE` and `S_APPEND` refuse writes,
/// `S_NOATIME` keeps the access time, ...). The other `S_*` flags belong to the VFS.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags(u32);

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
    const ALL: Self = Self(
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

/// `statx` attribute bits (`STATX_ATTR_*`), for [`Stat::add_attributes`].
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
pub struct Stat<'a> {
    stat: *mut bindings::kstat,
    request_mask: u32,
    query_flags: u32,
    _p: PhantomData<&'a mut bindings::kstat>,
}

impl Stat<'_> {
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
// patch: end

// patch: iomap
/// The extents being reported by `FIEMAP` (`struct fiemap_extent_info`), for
/// [`INodeOperations::fiemap`].
///
/// # Invariants
///
/// The pointer is valid for `'a`, used only through this object.
pub struct Fiemap<'a>(
    *mut bindings::fiemap_extent_info,
    PhantomData<&'a mut bindings::fiemap_extent_info>,
);

impl Fiemap<'_> {
    /// # Safety
    ///
    /// `fi` must be valid for `'a` and used only through the returned object.
    #[inline]
    pub(crate) unsafe fn from_raw<'a>(fi: *mut bindings::fiemap_extent_info) -> Fiemap<'a> {
        // INVARIANT: The safety requirements are the invariants.
        Fiemap(fi, PhantomData)
    }

    #[inline]
    pub(crate) fn as_ptr(&mut self) -> *mut bindings::fiemap_extent_info {
        self.0
    }
}
// patch: end

// patch: acl
/// The inode whose ACL [`INodeOperations::get_inode_acl`] is asked for, and how.
pub enum AclWalk<'a, T: FileSystem> {
    /// RCU path walk (`get_cached_acl_rcu`): the inode holds no reference for us and the caller
    /// is in an RCU read-side critical section, so the method must not block. Only "no ACL" or
    /// an error can be answered: the VFS would not take the reference of an ACL built here, so
    /// one is refused with `ECHILD` (as is usual to ask for ref walk).
    Rcu(&'a RcuINode<T>),
    /// The inode is referenced and the method may block.
    Ref(&'a INode<T>),
}
// patch: end

// patch: link
/// A symbolic link target returned by [`INodeOperations::get_link`].
pub enum Link<'a> {
    /// A target that lives at least as long as the inode (e.g. in its data).
    Borrowed(&'a CStr),
    /// A target allocated for this call; the VFS frees it when done with it.
    Owned(KVec<u8>),
}
// patch: end

/// Operations of an inode: the Rust side of `struct inode_operations`.
///
/// A file system builds one table per kind of inode (directories, symlinks, ...) with
/// [`Ops::new`], and gives it to new inodes with [`NewINode::set_inode_ops`].
#[vtable]
pub trait INodeOperations {
    /// The file system that the inodes belong to.
    type FileSystem: FileSystem;

    /// Looks up `dentry`'s name in directory `parent` (`lookup`).
    ///
    /// Implementations find the inode (or none) and return [`dentry::Unhashed::splice_alias`].
    fn lookup(
        _parent: &INode<Self::FileSystem>,
        _dentry: dentry::Unhashed<'_, Self::FileSystem>,
    ) -> Result<Option<ARef<DEntry<Self::FileSystem>>>> {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }

    // patch: link
    /// The target of the symbolic link is the start of the inode's page cache, up to its size,
    /// the first NUL or `PAGE_SIZE - 1` bytes (`page_get_link`, as C's
    /// `page_symlink_inode_operations`): ref walk reads it with the inode's
    /// [`AddressSpaceOperations::read_folio`](crate::fs::address_space::AddressSpaceOperations),
    /// RCU walk takes it only from an up-to-date folio already there. The inode's folios are then
    /// kept out of high memory, and an inode without `read_folio` is refused by
    /// [`SuperBlock::iget`]. Set this or implement [`INodeOperations::get_link`], not both.
    const PAGE_LINK: bool = false;

    /// Returns the target of the symbolic link kept in the inode's data (a fast symlink), if it
    /// is there.
    ///
    /// It is asked once, when the inode is initialised, and the target becomes the inode's
    /// `i_link`, which the VFS reads itself in both path walks (C's fast symlinks with
    /// `simple_get_link`): the file system is not called in RCU walk. A target the usercopy
    /// whitelist ([`FileSystem::INODE_DATA_USERCOPY`]) does not cover is not given to the VFS
    /// that way (`readlink` would trip `CONFIG_HARDENED_USERCOPY`): ref walk asks again and
    /// gets a copy. Implement at most one of this, [`INodeOperations::get_link`] and
    /// [`INodeOperations::PAGE_LINK`].
    fn inline_link(_data: &<Self::FileSystem as FileSystem>::INodeData) -> Option<&CStr> {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }

    /// Returns the target of the symbolic link `dentry` of `inode` (`get_link`).
    ///
    /// It is only called in ref walk, where it may sleep: in RCU walk the bindings ask the VFS
    /// to retry in ref walk (`ECHILD`) without calling the file system, which may allocate, lock
    /// or drop references.
    fn get_link<'a>(
        _dentry: &'a DEntry<Self::FileSystem>,
        _inode: &'a INode<Self::FileSystem>,
    ) -> Result<Link<'a>> {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }
    // patch: end

    // patch: xattr
    /// Lists the names of the extended attributes of `dentry`'s inode (`listxattr`).
    ///
    /// Names are stored NUL-terminated one after the other in `buf`; if `buf` is empty, only the
    /// size needed is returned. Returns `ERANGE` if `buf` is too small.
    fn listxattr(_dentry: &DEntry<Self::FileSystem>, _buf: &mut [u8]) -> Result<usize> {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }
    // patch: end

    // patch: attr
    /// Adds what only the file system knows to the attributes of `inode` that `stat`/`statx`
    /// report (`getattr`); the binding fills the rest from the inode (`generic_fillattr`).
    fn getattr(_inode: &INode<Self::FileSystem>, _stat: &mut Stat<'_>) -> Result {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }
    // patch: end

    // patch: acl
    /// Returns the POSIX ACL of type `ty` of an inode, or `None` if it has none
    /// (`get_inode_acl`).
    ///
    /// The VFS calls it only on superblocks with `SB_POSIXACL`, caches the result in the inode
    /// and uses it for permission checks and the `system.posix_acl_*` attributes.
    fn get_inode_acl(
        _walk: AclWalk<'_, Self::FileSystem>,
        _ty: posix_acl::Type,
    ) -> Result<Option<posix_acl::Acl>> {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }
    // patch: end

    // patch: iomap
    /// Reports the extents of `inode` in `start..start + len` for `FIEMAP` (`fiemap`), for
    /// instance with [`iomap::fiemap`](super::iomap::fiemap). Without it, `FIEMAP` gives
    /// `EOPNOTSUPP`.
    fn fiemap(
        _inode: &INode<Self::FileSystem>,
        _fi: &mut Fiemap<'_>,
        _start: u64,
        _len: u64,
    ) -> Result {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }
    // patch: end

    // patch: attr
    /// Reports the flags of `dentry`'s inode for `FS_IOC_GETFLAGS`/`FS_IOC_FSGETXATTR`
    /// (`fileattr_get`). Without it, both ioctls fail with `ENOTTY`.
    fn fileattr_get(_dentry: &DEntry<Self::FileSystem>, _fa: &mut FileAttr<'_>) -> Result {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }
    // patch: end
}

/// An inode operations table for file system `T`.
#[derive(Copy, Clone)]
pub struct Ops<T: FileSystem> {
    table: *const bindings::inode_operations,
    // patch: link
    /// `get_link` is `page_get_link` ([`INodeOperations::PAGE_LINK`]).
    page_link: bool,
    /// [`INodeOperations::inline_link`], if implemented.
    inline_link: Option<InlineLink<T>>,
    // patch: end
    _fs: PhantomData<T>,
}

impl<T: FileSystem> Ops<T> {
    /// Creates the inode operations table from an [`INodeOperations`] implementation.
    pub const fn new<U: INodeOperations<FileSystem = T> + ?Sized>() -> Self {
        struct Table<T: FileSystem, U: ?Sized>(PhantomData<T>, PhantomData<*const U>);
        impl<T: FileSystem, U: INodeOperations<FileSystem = T> + ?Sized> Table<T, U> {
            const TABLE: bindings::inode_operations = bindings::inode_operations {
                lookup: if U::HAS_LOOKUP {
                    Some(Self::lookup_callback)
                } else {
                    None
                },
                // patch: link
                get_link: match (U::PAGE_LINK, U::HAS_GET_LINK, U::HAS_INLINE_LINK) {
                    (true, false, false) => Some(bindings::page_get_link),
                    (false, true, false) => Some(Self::get_link_callback),
                    (false, false, true) => Some(Self::inline_link_callback),
                    (false, false, false) => None,
                    _ => crate::build_error!(
                        "implement one of `get_link`, `inline_link` and `PAGE_LINK`"
                    ),
                },
                // patch: end
                // patch: xattr
                listxattr: if U::HAS_LISTXATTR {
                    Some(Self::listxattr_callback)
                } else {
                    None
                },
                // patch: end
                // patch: attr
                getattr: if U::HAS_GETATTR {
                    Some(Self::getattr_callback)
                } else {
                    None
                },
                // patch: end
                // patch: attr
                fileattr_get: if U::HAS_FILEATTR_GET {
                    Some(Self::fileattr_get_callback)
                } else {
                    None
                },
                // patch: end
                // patch: iomap
                fiemap: if U::HAS_FIEMAP {
                    Some(Self::fiemap_callback)
                } else {
                    None
                },
                // patch: end
                // patch: acl
                get_inode_acl: if U::HAS_GET_INODE_ACL {
                    Some(Self::get_inode_acl_callback)
                } else {
                    None
                },
                // patch: end
                ..pin_init::zeroed()
            };

            /// # Safety
            ///
            /// `lookup` of `struct inode_operations`: `parent_ptr` is a valid, locked directory
            /// inode of `T` and `dentry` a valid dentry being looked up in it.
            unsafe extern "C" fn lookup_callback(
                parent_ptr: *mut bindings::inode,
                dentry: *mut bindings::dentry,
                _flags: c_uint,
            ) -> *mut bindings::dentry {
                // SAFETY: The C API guarantees that `parent_ptr` is a valid inode of this file
                // system, locked for the duration of the call.
                let parent = unsafe { INode::<T>::from_raw(parent_ptr) };
                // SAFETY: The C API guarantees that `dentry` is a valid, unhashed dentry being
                // looked up, and only this call will splice it.
                let unhashed = unsafe { dentry::Unhashed::from_raw(dentry) };
                match U::lookup(parent, unhashed) {
                    Err(e) => e.to_ptr(),
                    Ok(None) => ptr::null_mut(),
                    Ok(Some(d)) => ARef::into_raw(d).as_ptr().cast(),
                }
            }

            // patch: link
            /// # Safety
            ///
            /// `get_link` of `struct inode_operations`: `inode_ptr` is a valid symlink inode of
            /// `T`, `dentry_ptr` is NULL (RCU walk) or its dentry, `delayed_call` is valid for
            /// write.
            unsafe extern "C" fn get_link_callback(
                dentry_ptr: *mut bindings::dentry,
                inode_ptr: *mut bindings::inode,
                delayed_call: *mut bindings::delayed_call,
            ) -> *const c_char {
                if dentry_ptr.is_null() {
                    // RCU walk: the file system's code may sleep; the VFS retries in ref walk.
                    return ECHILD.to_ptr::<c_char>();
                }
                // SAFETY: Ref walk: the C API guarantees that `dentry_ptr` is a valid,
                // referenced dentry and `inode_ptr` its inode, of this fs, for the call.
                let (dentry, inode) = unsafe {
                    (
                        DEntry::<T>::from_raw(dentry_ptr),
                        INode::<T>::from_raw(inode_ptr),
                    )
                };
                match U::get_link(dentry, inode) {
                    Err(e) => e.to_ptr::<c_char>(),
                    // A target in slab memory outside the usercopy whitelist would make
                    // `readlink` trip hardened usercopy: give it a copy instead.
                    // SAFETY: `delayed_call` is valid for write.
                    Ok(Link::Borrowed(s)) if !usercopy_allowed::<T>(inode_ptr, s) => unsafe {
                        copied_link(s, delayed_call)
                    },
                    Ok(Link::Borrowed(s)) => s.as_char_ptr(),
                    // SAFETY: `delayed_call` is valid for write.
                    Ok(Link::Owned(v)) => unsafe { owned_link(v, delayed_call) },
                }
            }

            /// # Safety
            ///
            /// `get_link` of `struct inode_operations` for [`INodeOperations::inline_link`]:
            /// `inode_ptr` is a valid, initialised symlink inode of `T`, `dentry_ptr` is NULL (RCU
            /// walk) or its dentry, `delayed_call` is valid for write.
            unsafe extern "C" fn inline_link_callback(
                dentry_ptr: *mut bindings::dentry,
                inode_ptr: *mut bindings::inode,
                delayed_call: *mut bindings::delayed_call,
            ) -> *const c_char {
                // Called only when the target was not set as `i_link` (the usercopy whitelist
                // does not cover it): a copy, made in ref walk.
                if dentry_ptr.is_null() {
                    return ECHILD.to_ptr::<c_char>();
                }
                // SAFETY: Ref walk: the C API guarantees that `inode_ptr` is a valid, referenced
                // inode of this fs, initialised (it has this table).
                let inode = unsafe { INode::<T>::from_raw(inode_ptr) };
                match U::inline_link(inode.data()) {
                    // SAFETY: `delayed_call` is valid for write.
                    Some(s) => unsafe { copied_link(s, delayed_call) },
                    None => EIO.to_ptr::<c_char>(),
                }
            }
            // patch: end

            // patch: xattr
            /// # Safety
            ///
            /// `listxattr` of `struct inode_operations`: `dentry_ptr` is a valid dentry of `T` and
            /// `buf` is NULL or valid for `size` bytes.
            unsafe extern "C" fn listxattr_callback(
                dentry_ptr: *mut bindings::dentry,
                buf: *mut c_char,
                size: usize,
            ) -> isize {
                // SAFETY: The C API guarantees that `dentry_ptr` is a valid dentry of this fs.
                let dentry = unsafe { DEntry::<T>::from_raw(dentry_ptr) };
                let buf = if buf.is_null() || size == 0 {
                    &mut [][..]
                } else {
                    // SAFETY: The C API guarantees that `buf` is valid for `size` bytes.
                    unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), size) }
                };
                let len = buf.len();
                match U::listxattr(dentry, buf) {
                    // The VFS copies `n` bytes of `buf` to user space: never more than it has.
                    Ok(n) if len != 0 && n > len => ERANGE.to_errno() as isize,
                    Ok(n) => isize::try_from(n).unwrap_or(E2BIG.to_errno() as isize),
                    Err(e) => e.to_errno() as isize,
                }
            }
            // patch: end

            // patch: attr
            /// # Safety
            ///
            /// `getattr` of `struct inode_operations`: `path` is a valid path whose dentry is a
            /// positive dentry of `T`, `stat` is valid for write, `idmap` is the mount's idmap.
            unsafe extern "C" fn getattr_callback(
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
                let mut st = Stat {
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
            // patch: end

            // patch: attr
            /// # Safety
            ///
            /// `fileattr_get` of `struct inode_operations`: `dentry_ptr` is a valid, positive
            /// dentry of `T` and `fa` is valid for write.
            unsafe extern "C" fn fileattr_get_callback(
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
            // patch: end

            // patch: iomap
            /// # Safety
            ///
            /// `fiemap` of `struct inode_operations`: `inode_ptr` is a referenced inode of `T`
            /// and `fi` a valid `fiemap_extent_info`, both for the duration of the call.
            unsafe extern "C" fn fiemap_callback(
                inode_ptr: *mut bindings::inode,
                fi: *mut bindings::fiemap_extent_info,
                start: u64,
                len: u64,
            ) -> c_int {
                // SAFETY: The C API gives a referenced inode of this fs (it has this table).
                let inode = unsafe { INode::<T>::from_raw(inode_ptr) };
                // SAFETY: `fi` is valid for the call and used only through `fi`.
                let mut fi = unsafe { Fiemap::from_raw(fi) };
                match U::fiemap(inode, &mut fi, start, len) {
                    Err(e) => e.to_errno(),
                    Ok(()) => 0,
                }
            }
            // patch: end

            // patch: acl
            /// # Safety
            ///
            /// `get_inode_acl` of `struct inode_operations`: `inode_ptr` is an inode of `T`,
            /// referenced unless `rcu` is set, in which case its memory is valid for the RCU
            /// read-side critical section that spans the call.
            unsafe extern "C" fn get_inode_acl_callback(
                inode_ptr: *mut bindings::inode,
                ty: c_int,
                rcu: bool,
            ) -> *mut bindings::posix_acl {
                let Some(ty) = posix_acl::Type::from_raw(ty) else {
                    return EINVAL.to_ptr();
                };
                let walk = if rcu {
                    // SAFETY: The inode has this table, so it is an initialised inode of this fs,
                    // whose memory the RCU read-side critical section keeps valid.
                    AclWalk::Rcu(unsafe { RcuINode::<T>::from_raw(inode_ptr) })
                } else {
                    // SAFETY: Outside RCU walk the C API gives a referenced inode of this fs.
                    AclWalk::Ref(unsafe { INode::<T>::from_raw(inode_ptr) })
                };
                match U::get_inode_acl(walk, ty) {
                    Err(e) => e.to_ptr(),
                    Ok(None) => ptr::null_mut(),
                    // `get_cached_acl_rcu` would use the ACL without taking over our reference.
                    // Dropping it (`kfree_rcu` once unreferenced) does not block.
                    Ok(Some(_)) if rcu => ECHILD.to_ptr(),
                    // The VFS takes over the reference (`__get_acl`).
                    Ok(Some(acl)) => acl.into_raw(),
                }
            }
            // patch: end
        }
        Self {
            table: &Table::<T, U>::TABLE,
            // patch: link
            page_link: U::PAGE_LINK,
            inline_link: if U::HAS_INLINE_LINK {
                Some(U::inline_link)
            } else {
                None
            },
            // patch: end
            _fs: PhantomData,
        }
    }

    /// Returns the raw table.
    #[inline]
    pub(crate) const fn as_ptr(&self) -> *const bindings::inode_operations {
        self.table
    }
}

// patch: link
/// Returns whether the bytes of `s` may be copied to user space as they are, as hardened
/// usercopy will check: they are within the whitelist that [`FileSystem::INODE_DATA_USERCOPY`]
/// declares in the inode object of `inode_ptr`, or in no slab object at all (static data, the
/// page cache).
///
/// A target in any other slab object (elsewhere in this inode's object, in another inode's, in
/// any cache) is checked by hardened usercopy against that object's cache, which the bindings do
/// not see: it is copied instead.
fn usercopy_allowed<T: FileSystem>(inode_ptr: *mut bindings::inode, s: &CStr) -> bool {
    let start = s.as_char_ptr().addr();
    let len = s.to_bytes_with_nul().len();
    let Some(end) = start.checked_add(len) else {
        return false;
    };
    if let Some((off, n)) = T::INODE_DATA_USERCOPY {
        let obj = inode_ptr
            .addr()
            .wrapping_sub(core::mem::offset_of!(INodeWithData<T::INodeData>, inode));
        let lo = obj
            .wrapping_add(INodeWithData::<T::INodeData>::DATA_OFFSET)
            .wrapping_add(off);
        if start >= lo && end <= lo.saturating_add(n) {
            return true;
        }
    }
    // Every page the target touches, by its first byte in the page and the last byte.
    let mut p = start;
    while p < end {
        // SAFETY: `addr_in_slab` only computes on the address (`virt_addr_valid` first).
        if unsafe { bindings::addr_in_slab(p as *const c_void) } {
            return false;
        }
        p = (p | (bindings::PAGE_SIZE - 1)).saturating_add(1);
    }
    true
}

/// Hands a copy of a link target to the VFS (freed with a delayed call).
///
/// # Safety
///
/// `delayed_call` must be the valid `delayed_call` of a `get_link` call in ref walk.
#[inline]
unsafe fn copied_link(s: &CStr, delayed_call: *mut bindings::delayed_call) -> *const c_char {
    let mut v = KVec::new();
    match v.extend_from_slice(s.to_bytes_with_nul(), GFP_KERNEL) {
        // SAFETY: `delayed_call` is valid for write (safety requirements).
        Ok(()) => unsafe { owned_link(v, delayed_call) },
        Err(_) => ENOMEM.to_ptr::<c_char>(),
    }
}

/// Hands an owned link target to the VFS: NUL-terminates it and frees it with a delayed call.
///
/// # Safety
///
/// `delayed_call` must be the valid `delayed_call` of a `get_link` call in ref walk.
unsafe fn owned_link(mut v: KVec<u8>, delayed_call: *mut bindings::delayed_call) -> *const c_char {
    if v.last() != Some(&0) && v.push(0, GFP_KERNEL).is_err() {
        return ENOMEM.to_ptr::<c_char>();
    }
    let Ok(b) = KBox::new(v, GFP_KERNEL) else {
        return ENOMEM.to_ptr::<c_char>();
    };
    let ret = b.as_ptr().cast::<c_char>();
    // SAFETY: `delayed_call` is valid (safety requirements); the box is freed by `drop_link`.
    unsafe { bindings::set_delayed_call(delayed_call, Some(drop_link), KBox::into_raw(b).cast()) };
    ret
}

/// # Safety
///
/// Delayed call that frees a link target: `ptr` comes from `KBox::into_raw` of a
/// `KBox<KVec<u8>>` in `get_link_callback`, and is not used afterwards.
unsafe extern "C" fn drop_link(ptr: *mut c_void) {
    // SAFETY: `ptr` comes from `KBox::into_raw` in `get_link_callback`.
    drop(unsafe { KBox::from_raw(ptr.cast::<KVec<u8>>()) });
}
// patch: end

#[kunit_tests(rust_fs_inode)]
mod tests {
    use super::*;

    #[test]
    fn timespec_normalized() {
        let t = Timespec {
            secs: 5,
            nsecs: 2_500_000_000,
        };
        assert!(
            t.normalized()
                == Timespec {
                    secs: 7,
                    nsecs: 500_000_000
                }
        );
        // Already normal, before 1970.
        let t = Timespec {
            secs: -1,
            nsecs: 999_999_999,
        };
        assert!(t.normalized() == t);
        // The seconds saturate.
        let t = Timespec {
            secs: i64::MAX,
            nsecs: u32::MAX,
        }
        .normalized();
        assert!(t.secs == i64::MAX && t.nsecs == u32::MAX % 1_000_000_000);
    }

    #[test]
    #[inline]
    fn dev_to_kdev() {
        // The kernel's `dev_t`: major in bits 20-31, minor in bits 0-19 (`MKDEV`).
        let dev = Dev::from_new(0x1234_5678);
        assert!(dev.to_kdev() == (0x456 << 20) | 0x12378);
        let dev = Dev::from_old(0xffff);
        assert!(dev.to_kdev() == (0xff << 20) | 0xff);
    }
}

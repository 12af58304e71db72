// SPDX-License-Identifier: GPL-2.0

//! File system inodes and their operations.
//!
//! C headers: [`include/linux/fs.h`](srctree/include/linux/fs.h)

// patch: acl
use super::posix_acl;
// patch: end
use super::{dentry, dentry::DEntry, sb::SuperBlock, FileSystem};
use crate::error::Result;
use crate::prelude::*;
use crate::sync::aref::{ARef, AlwaysRefCounted};
use crate::{bindings, types::Opaque};
use core::{marker::PhantomData, ptr, ptr::NonNull};

mod cache;
mod new;
mod types;

pub(crate) use cache::INodeWithData;
pub use new::{INodeParams, NewINode};
pub use types::{mode, Dev, FileType, Timespec, UNIX_EPOCH};

// patch: attr
mod attr;
pub use attr::{statx_attr, FileAttr, Flags, Kstat};
// patch: end

// patch: link
mod link;
use link::usercopy_allowed;
pub use link::Link;
// patch: end

// patch: acl
pub use super::posix_acl::AclWalk;
// patch: end

// patch: iomap
pub use super::iomap::Fiemap;
// patch: end

// patch: iwrite
mod write;
pub use types::{high2low_gid, high2low_uid};
pub use write::{Attr, LockedINode, WritebackControl};
// patch: end
// patch: trunc
pub use write::InvalidateGuard;
// patch: end
// patch: create
mod create;
pub(crate) use create::evict_inode_callback;
pub use create::{random_u32, Created, Evicting, Instantiated, IntWriteGuard, Negative};
// patch: end
// patch: fattr
mod fileattr;
pub use fileattr::NewFileAttr;
// patch: end
// patch: ns
mod namespace;
pub use namespace::{rename_flags, Rename, TmpFile};
// patch: end

/// A node in the file system index (inode).
///
/// Wraps the kernel's `struct inode`.
///
/// # Invariants
///
/// Instances of this type are always ref-counted, that is, a call to `ihold` ensures that the
/// allocation remains valid at least until the matching call to `iput`. The inode belongs to a
/// superblock of file system `T` and is embedded in an `INodeWithData<T>` whose data
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

impl<T: FileSystem> core::ops::Deref for INode<T> {
    type Target = UncountedINode<T>;

    #[inline]
    fn deref(&self) -> &UncountedINode<T> {
        // SAFETY: `UncountedINode` is a transparent wrapper of the same inode, whose invariants
        // are weaker than `INode`'s.
        unsafe { UncountedINode::from_raw(self.as_ptr()) }
    }
}

/// An inode its holder has no reference to, on a live superblock: what writeback
/// ([`SuperOperations::write_inode`](super::sb::SuperOperations::write_inode)) and eviction see,
/// when the reference count may be zero. It cannot be ref-counted (an `ihold` there would
/// revive an inode being freed), only read; [`INode`] dereferences to it.
///
/// # Invariants
///
/// The inode is an initialised inode of file system `T` (embedded in an `INodeWithData` whose
/// data is initialised) on a superblock that is alive, and its memory is valid for the lifetime
/// of the reference, in which the inode is not destroyed (`destroy_inode`).
#[repr(transparent)]
pub struct UncountedINode<T: FileSystem>(Opaque<bindings::inode>, PhantomData<T>);

impl<T: FileSystem> UncountedINode<T> {
    /// Creates a view of an inode from a raw pointer.
    ///
    /// # Safety
    ///
    /// `ptr` must be an initialised inode of file system `T` on a live superblock, whose memory
    /// stays valid for the duration of `'a`.
    #[inline]
    pub(crate) unsafe fn from_raw<'a>(ptr: *mut bindings::inode) -> &'a Self {
        // SAFETY: The cast is okay because `UncountedINode` is `repr(transparent)` over
        // `struct inode`, which the caller guarantees to be valid for `'a`.
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
        // SAFETY: The inode is valid; `i_size_read` is the kernel's lockless read.
        unsafe { bindings::i_size_read(self.as_ptr()) }
    }

    /// Returns the data associated with the inode.
    #[inline]
    pub fn data(&self) -> &T::INodeData {
        // SAFETY: By the type invariants the inode is embedded in an `INodeWithData` whose data
        // is initialised and, as the memory, valid for the lifetime of `self`.
        unsafe {
            let outer = crate::container_of!(self.as_ptr(), INodeWithData<T>, inode);
            (*outer).data.assume_init_ref()
        }
    }

    // patch: wstate
    /// Returns the file system's writer state of the inode ([`FileSystem::INodeWriterState`]).
    #[inline]
    pub fn writer_state(&self) -> Pin<&T::INodeWriterState> {
        // SAFETY: By the type invariants the inode is embedded in an `INodeWithData<T>` and not
        // destroyed for the lifetime of `self`, so its writer state is initialised, and it does
        // not move (`INodeWithData`'s invariants).
        unsafe {
            let outer = crate::container_of!(self.as_ptr(), INodeWithData<T>, inode);
            Pin::new_unchecked((*outer).writer.assume_init_ref())
        }
    }
    // patch: end

    /// Returns the generation of the inode (`i_generation`), which file handles carry.
    #[inline]
    pub fn generation(&self) -> u32 {
        // SAFETY: The inode is valid. Writers change `i_generation` under the inode lock; a
        // volatile read (READ_ONCE) sees either value.
        unsafe { ptr::read_volatile(&raw const (*self.as_ptr()).i_generation) }
    }
}

// SAFETY: As `INode`'s: shared references only give access to immutable fields, lockless reads
// and the file system's data, which is `Sync`.
unsafe impl<T: FileSystem> Sync for UncountedINode<T> {}

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
            let outer = crate::container_of!(self.as_ptr(), INodeWithData<T>, inode);
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

// patch: link
/// [`INodeOperations::inline_link`] of some table for file system `T`.
type InlineLink<T> = for<'a> fn(&'a <T as FileSystem>::INodeData) -> Option<&'a CStr>;
// patch: end

/// Operations of an inode: the Rust side of `struct inode_operations`.
///
/// A file system implements it once per kind of inode (directories, symlinks, ...) and gives the
/// implementation to new inodes with [`NewINode::set_inode_ops`]; the bindings build its table.
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
    fn getattr(_inode: &INode<Self::FileSystem>, _stat: &mut Kstat<'_>) -> Result {
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
        _ty: posix_acl::AclType,
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

    // patch: iwrite
    /// Changes the attributes of `dentry`'s inode (`setattr`: chmod, chown, utimes, truncate),
    /// with its `i_rwsem` held exclusively: `inode` is the token for it. Implementations check
    /// the change with [`Attr::prepare`], make it ([`LockedINode::setattr_copy`]) and mark the
    /// inode dirty. Without it, the VFS changes the in-memory inode only (`simple_setattr`).
    fn setattr(
        _dentry: &DEntry<Self::FileSystem>,
        _inode: &mut LockedINode<'_, Self::FileSystem>,
        _attr: &mut Attr,
    ) -> Result {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }
    // patch: end

    // patch: create
    /// Creates a regular file named by `dentry` in directory `dir` (`create`: `open(2)` with
    /// `O_CREAT`, `mknod(2)` of a file), with the directory's `i_rwsem` held exclusively
    /// (`dir` is the token). `mode` has the type and permission bits the caller asked for
    /// (the umask already applied unless the superblock has POSIX ACLs). Implementations
    /// allocate an inode ([`SuperBlock::new_inode`](super::sb::SuperBlock::new_inode),
    /// [`NewINode::init_created`]), add the name, and return what
    /// [`Negative::instantiate_new`] returns: the call cannot succeed otherwise.
    fn create<'a>(
        _dir: &mut LockedINode<'_, Self::FileSystem>,
        _dentry: Negative<'a, Self::FileSystem>,
        _mode: u16,
    ) -> Result<Instantiated<'a>> {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }

    /// Removes the name `dentry` of a non-directory from directory `dir` (`unlink`), with the
    /// `i_rwsem` of both the directory and the target held exclusively (`dir` and `inode` are
    /// the tokens), and drops the link
    /// ([`LockedINode::dec_link_count`]); an inode left without links is freed when it is
    /// evicted ([`SuperOperations::evict_inode`](super::sb::SuperOperations::evict_inode)).
    fn unlink(
        _dir: &mut LockedINode<'_, Self::FileSystem>,
        _dentry: &DEntry<Self::FileSystem>,
        _inode: &mut LockedINode<'_, Self::FileSystem>,
    ) -> Result {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }
    // patch: end

    // patch: ns
    /// Makes a directory named by `dentry` in directory `dir` (`mkdir`), with the directory's
    /// `i_rwsem` held exclusively (`dir` is the token); `mode` has `S_IFDIR` and the
    /// permission bits (the umask applied unless the superblock has POSIX ACLs). As
    /// [`INodeOperations::create`], the call succeeds only by instantiating `dentry`.
    fn mkdir<'a>(
        _dir: &mut LockedINode<'_, Self::FileSystem>,
        _dentry: Negative<'a, Self::FileSystem>,
        _mode: u16,
    ) -> Result<Instantiated<'a>> {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }

    /// Removes the directory `dentry` from directory `dir` (`rmdir`), with the `i_rwsem` of
    /// both held exclusively (`dir` and `inode` are the tokens). The implementation checks
    /// that the directory is empty (`ENOTEMPTY`); the VFS has checked that it is not a mount
    /// point or the root.
    fn rmdir(
        _dir: &mut LockedINode<'_, Self::FileSystem>,
        _dentry: &DEntry<Self::FileSystem>,
        _inode: &mut LockedINode<'_, Self::FileSystem>,
    ) -> Result {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }

    /// Makes a special file (device, fifo or socket; a regular file where `create` is not
    /// implemented) named by `dentry` in directory `dir` (`mknod`), as
    /// [`INodeOperations::create`]; `dev` is the device number of a device.
    fn mknod<'a>(
        _dir: &mut LockedINode<'_, Self::FileSystem>,
        _dentry: Negative<'a, Self::FileSystem>,
        _mode: u16,
        _dev: Dev,
    ) -> Result<Instantiated<'a>> {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }

    /// Makes a symbolic link to `target` named by `dentry` in directory `dir` (`symlink`), as
    /// [`INodeOperations::create`].
    fn symlink<'a>(
        _dir: &mut LockedINode<'_, Self::FileSystem>,
        _dentry: Negative<'a, Self::FileSystem>,
        _target: &CStr,
    ) -> Result<Instantiated<'a>> {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }

    /// Adds the name `dentry` in directory `dir` for the inode of `old` (`link`), with the
    /// `i_rwsem` of the directory and of the inode held exclusively (`dir` and `inode` are
    /// the tokens). The VFS has checked that the inode is not a directory, has a link and
    /// is below the superblock's limit
    /// ([`SuperBlock::set_max_links`](super::sb::SuperBlock::set_max_links)). The call
    /// succeeds only by [`Negative::instantiate_linked`].
    fn link<'a>(
        _old: &DEntry<Self::FileSystem>,
        _inode: &mut LockedINode<'_, Self::FileSystem>,
        _dir: &mut LockedINode<'_, Self::FileSystem>,
        _dentry: Negative<'a, Self::FileSystem>,
    ) -> Result<Instantiated<'a>> {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }

    /// Renames `r.old_dentry` in `r.old_dir` to `r.new_dentry` in `r.new_dir` (`rename`),
    /// replacing `r.target` if there is one (the VFS has checked that a directory replaces an
    /// empty directory only as far as types go: the implementation checks emptiness,
    /// `ENOTEMPTY`), with the locks and tokens that [`Rename`] describes. Flags the file
    /// system does not implement are `EINVAL`. The VFS moves the dentry after a success.
    fn rename(_r: Rename<'_, '_, Self::FileSystem>) -> Result {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }

    // patch: end

    // patch: aclw
    /// Stores `acl` (or none) as the ACL of type `ty` of the inode of `dentry` (`set_acl`:
    /// setxattr of `system.posix_acl_*`, setfacl, and [`LockedINode::acl_chmod`]), with its
    /// `i_rwsem` held exclusively (`inode` is the token); for an access ACL the file system
    /// updates the mode ([`LockedINode::acl_update_mode`]), and once stored it caches the ACL
    /// ([`INode::set_cached_acl`]).
    fn set_acl(
        _dentry: &DEntry<Self::FileSystem>,
        _inode: &mut LockedINode<'_, Self::FileSystem>,
        _acl: Option<&posix_acl::Acl>,
        _ty: posix_acl::AclType,
    ) -> Result {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }
    // patch: end

    // patch: fattr
    /// Changes the flags of the inode of `dentry` to `fa`'s (`fileattr_set`: `chattr`,
    /// `FS_IOC_SETFLAGS`, `FS_IOC_FSSETXATTR`), with its `i_rwsem` held exclusively (`inode` is
    /// the token): the file system stores them and sets the VFS flags that follow
    /// ([`LockedINode::set_flags`]). Flags it cannot store are `EOPNOTSUPP`.
    fn fileattr_set(
        _dentry: &DEntry<Self::FileSystem>,
        _inode: &mut LockedINode<'_, Self::FileSystem>,
        _fa: &NewFileAttr<'_>,
    ) -> Result {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }
    // patch: end

    // patch: ns
    /// Makes an unnamed regular file in directory `dir` for an `O_TMPFILE` open (`tmpfile`),
    /// with no lock held (`dir` is only read); `mode` as for
    /// [`INodeOperations::create`]. The call succeeds only by [`TmpFile::instantiate`].
    fn tmpfile<'a>(
        _dir: &INode<Self::FileSystem>,
        _file: TmpFile<'a, Self::FileSystem>,
        _mode: u16,
    ) -> Result<Instantiated<'a>> {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }
    // patch: end
}

/// The `struct inode_operations` of an [`INodeOperations`] implementation `U` of file system `T`,
/// built at compile time, with the methods `U` does not implement left NULL.
pub(crate) struct INodeOperationsVTable<T: FileSystem, U: ?Sized>(
    PhantomData<T>,
    PhantomData<*const U>,
);

impl<T: FileSystem, U: INodeOperations<FileSystem = T> + ?Sized> INodeOperationsVTable<T, U> {
    const VTABLE: bindings::inode_operations = bindings::inode_operations {
        lookup: if U::HAS_LOOKUP {
            Some(Self::lookup_callback)
        } else {
            None
        },
        // patch: link
        get_link: match (U::PAGE_LINK, U::HAS_GET_LINK, U::HAS_INLINE_LINK) {
            (true, false, false) => Some(bindings::page_get_link),
            (false, true, false) => Some(link::get_link_callback::<T, U>),
            (false, false, true) => Some(link::inline_link_callback::<T, U>),
            (false, false, false) => None,
            _ => crate::build_error!("implement one of `get_link`, `inline_link` and `PAGE_LINK`"),
        },
        // patch: end
        // patch: xattr
        listxattr: if U::HAS_LISTXATTR {
            Some(super::xattr::listxattr_callback::<T, U>)
        } else {
            None
        },
        // patch: end
        // patch: attr
        getattr: if U::HAS_GETATTR {
            Some(attr::getattr_callback::<T, U>)
        } else {
            None
        },
        // patch: end
        // patch: attr
        fileattr_get: if U::HAS_FILEATTR_GET {
            Some(attr::fileattr_get_callback::<T, U>)
        } else {
            None
        },
        // patch: end
        // patch: iomap
        fiemap: if U::HAS_FIEMAP {
            Some(super::iomap::fiemap_callback::<T, U>)
        } else {
            None
        },
        // patch: end
        // patch: iwrite
        setattr: if U::HAS_SETATTR {
            Some(write::setattr_callback::<T, U>)
        } else {
            None
        },
        // patch: end
        // patch: create
        create: if U::HAS_CREATE {
            Some(create::create_callback::<T, U>)
        } else {
            None
        },
        unlink: if U::HAS_UNLINK {
            Some(create::unlink_callback::<T, U>)
        } else {
            None
        },
        // patch: end
        // patch: ns
        mkdir: if U::HAS_MKDIR {
            Some(namespace::mkdir_callback::<T, U>)
        } else {
            None
        },
        rmdir: if U::HAS_RMDIR {
            Some(namespace::rmdir_callback::<T, U>)
        } else {
            None
        },
        mknod: if U::HAS_MKNOD {
            Some(namespace::mknod_callback::<T, U>)
        } else {
            None
        },
        symlink: if U::HAS_SYMLINK {
            Some(namespace::symlink_callback::<T, U>)
        } else {
            None
        },
        link: if U::HAS_LINK {
            Some(namespace::link_callback::<T, U>)
        } else {
            None
        },
        rename: if U::HAS_RENAME {
            Some(namespace::rename_callback::<T, U>)
        } else {
            None
        },
        tmpfile: if U::HAS_TMPFILE {
            Some(namespace::tmpfile_callback::<T, U>)
        } else {
            None
        },
        // patch: end
        // patch: aclw
        set_acl: if U::HAS_SET_ACL {
            Some(posix_acl::set_acl_callback::<T, U>)
        } else {
            None
        },
        // patch: end
        // patch: fattr
        fileattr_set: if U::HAS_FILEATTR_SET {
            Some(fileattr::fileattr_set_callback::<T, U>)
        } else {
            None
        },
        // patch: end
        // patch: acl
        get_inode_acl: if U::HAS_GET_INODE_ACL {
            Some(posix_acl::get_inode_acl_callback::<T, U>)
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

    /// Returns the table.
    #[inline]
    pub(crate) const fn build() -> &'static bindings::inode_operations {
        &Self::VTABLE
    }
}

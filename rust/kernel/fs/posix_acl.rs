// SPDX-License-Identifier: GPL-2.0

//! POSIX access control lists.
//!
//! A file system that keeps ACLs returns them from [`INodeOperations::get_inode_acl`]; the VFS
//! caches them in the inode, uses them for permission checks (`generic_permission`) and serves
//! the `system.posix_acl_access`/`system.posix_acl_default` attributes from them, when the
//! superblock has `SB_POSIXACL` ([`SuperBlock::set_posix_acl`](super::sb::SuperBlock)).
//!
//! C headers: [`include/linux/posix_acl.h`](srctree/include/linux/posix_acl.h)

use super::inode::{INode, INodeOperations, RcuINode};
use super::FileSystem;
use crate::bindings;
use crate::error::{code::*, Result};
use crate::prelude::*;
use core::ptr::{self, NonNull};
// patch: aclw
use super::{dentry::DEntry, inode::LockedINode};
// patch: end

/// The name of the attribute that shows the access ACL (`XATTR_NAME_POSIX_ACL_ACCESS`).
pub const XATTR_NAME_ACCESS: &CStr = c"system.posix_acl_access";

/// The name of the attribute that shows the default ACL (`XATTR_NAME_POSIX_ACL_DEFAULT`).
pub const XATTR_NAME_DEFAULT: &CStr = c"system.posix_acl_default";

/// The type of an ACL.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum AclType {
    /// The ACL that permission checks use (`ACL_TYPE_ACCESS`).
    Access,
    /// The ACL that new entries of a directory inherit (`ACL_TYPE_DEFAULT`).
    Default,
}

impl AclType {
    /// Returns the type for a C `ACL_TYPE_*` value, if it is one.
    #[inline]
    pub(crate) fn from_raw(ty: c_int) -> Option<Self> {
        match u32::try_from(ty).ok()? {
            bindings::ACL_TYPE_ACCESS => Some(AclType::Access),
            bindings::ACL_TYPE_DEFAULT => Some(AclType::Default),
            _ => None,
        }
    }
}

/// The tag of an ACL entry: whom it applies to.
///
/// The ids of named entries are in the initial user namespace, as file systems store them (C
/// file systems convert them with `make_kuid(&init_user_ns, ...)`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Tag {
    /// The owner of the file (`ACL_USER_OBJ`).
    UserObj,
    /// The user with this id (`ACL_USER`).
    User(u32),
    /// The owning group of the file (`ACL_GROUP_OBJ`).
    GroupObj,
    /// The group with this id (`ACL_GROUP`).
    Group(u32),
    /// The upper bound of the permissions of named users and groups (`ACL_MASK`).
    Mask,
    /// Everyone else (`ACL_OTHER`).
    Other,
}

impl Tag {
    fn to_raw(self) -> (c_short, u32) {
        let (tag, id) = match self {
            Tag::UserObj => (bindings::ACL_USER_OBJ, 0),
            Tag::User(id) => (bindings::ACL_USER, id),
            Tag::GroupObj => (bindings::ACL_GROUP_OBJ, 0),
            Tag::Group(id) => (bindings::ACL_GROUP, id),
            Tag::Mask => (bindings::ACL_MASK, 0),
            Tag::Other => (bindings::ACL_OTHER, 0),
        };
        // The tags are small constants (at most 0x20).
        (tag as c_short, id)
    }
}

/// An entry of an ACL.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Entry {
    /// Whom the entry applies to.
    pub tag: Tag,
    /// The permissions it grants (`ACL_READ`, `ACL_WRITE`, `ACL_EXECUTE` bits).
    pub perm: u16,
}

/// A POSIX ACL (`struct posix_acl`), reference-counted.
///
/// ACLs are immutable once built: the VFS shares them between inodes and RCU readers.
///
/// # Invariants
///
/// The pointer is a valid `posix_acl` all of whose `a_count` entries are initialised, and this
/// value owns a reference to it.
pub struct Acl(NonNull<bindings::posix_acl>);

// SAFETY: An ACL is immutable after it is built; its reference may be dropped on any thread
// (`posix_acl_release` frees it with `kfree_rcu`).
unsafe impl Send for Acl {}

// SAFETY: `Acl` gives no access to the ACL through shared references but what is immutable.
unsafe impl Sync for Acl {}

impl Acl {
    /// Builds an ACL with `entries`, in that order (`posix_acl_alloc`).
    ///
    /// The entries are not checked (as C file systems do not check what they read): the VFS
    /// handles any list of entries, and refuses what it does not know (`EIO`). Fails with
    /// `EOPNOTSUPP` without `CONFIG_FS_POSIX_ACL`.
    pub fn new(entries: &[Entry]) -> Result<Self> {
        #[cfg(not(CONFIG_FS_POSIX_ACL))]
        {
            let _ = entries;
            Err(EOPNOTSUPP)
        }
        #[cfg(CONFIG_FS_POSIX_ACL)]
        {
            let count = c_uint::try_from(entries.len())?;
            // SAFETY: `posix_acl_alloc` may be called with any count; it returns a new ACL with
            // one reference, whose `count` entries are not initialised yet, or NULL.
            let acl =
                NonNull::new(unsafe { bindings::posix_acl_alloc(count, bindings::GFP_KERNEL) })
                    .ok_or(ENOMEM)?;
            for (i, e) in entries.iter().enumerate() {
                let (tag, id) = e.tag.to_raw();
                // SAFETY: `acl` has `count` entries and `i < count`; nothing else has the ACL.
                unsafe {
                    bindings::posix_acl_set_entry(acl.as_ptr(), i as c_uint, tag, e.perm, id)
                };
            }
            // INVARIANT: All `count` entries are initialised, and the reference is ours.
            Ok(Self(acl))
        }
    }

    // patch: aclw
    /// Returns the number of entries (`a_count`).
    #[inline]
    pub fn len(&self) -> usize {
        // SAFETY: The ACL is valid (type invariants); `a_count` never changes.
        unsafe { bindings::posix_acl_count(self.0.as_ptr()) as usize }
    }

    /// Whether the ACL has no entry.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Returns entry `i`, `None` past the end; `EINVAL` for a tag that [`Tag`] does not know
    /// (C file systems refuse to store those too).
    pub fn entry(&self, i: usize) -> Option<Result<Entry>> {
        if i >= self.len() {
            return None;
        }
        let (mut tag, mut perm, mut id) = (0, 0, 0);
        // SAFETY: The ACL is valid and its `a_count` entries initialised (type invariants);
        // `i` is below the count. The helper converts the id to the initial namespace.
        unsafe {
            bindings::posix_acl_get_entry(
                self.0.as_ptr(),
                i as c_uint,
                &mut tag,
                &mut perm,
                &mut id,
            )
        };
        let tag = match u32::try_from(tag) {
            Ok(bindings::ACL_USER_OBJ) => Tag::UserObj,
            Ok(bindings::ACL_USER) => Tag::User(id),
            Ok(bindings::ACL_GROUP_OBJ) => Tag::GroupObj,
            Ok(bindings::ACL_GROUP) => Tag::Group(id),
            Ok(bindings::ACL_MASK) => Tag::Mask,
            Ok(bindings::ACL_OTHER) => Tag::Other,
            _ => return Some(Err(EINVAL)),
        };
        Some(Ok(Entry { tag, perm }))
    }
    // patch: end

    /// Gives up the reference, for C to own it.
    #[inline]
    pub(crate) fn into_raw(self) -> *mut bindings::posix_acl {
        core::mem::ManuallyDrop::new(self).0.as_ptr()
    }
}

impl Drop for Acl {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: By the type invariants the ACL is valid and we own a reference to it.
        unsafe { bindings::posix_acl_release(self.0.as_ptr()) };
    }
}

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

/// # Safety
///
/// `get_inode_acl` of `struct inode_operations`: `inode_ptr` is an inode of `T`,
/// referenced unless `rcu` is set, in which case its memory is valid for the RCU
/// read-side critical section that spans the call.
pub(crate) unsafe extern "C" fn get_inode_acl_callback<
    T: FileSystem,
    U: INodeOperations<FileSystem = T> + ?Sized,
>(
    inode_ptr: *mut bindings::inode,
    ty: c_int,
    rcu: bool,
) -> *mut bindings::posix_acl {
    let Some(ty) = AclType::from_raw(ty) else {
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

// patch: create
impl<T: FileSystem> INode<T> {
    /// For a file created in this directory with `mode`, returns its mode and the access and
    /// default ACLs it inherits, in that order (`posix_acl_create`): without a default ACL here,
    /// the mode with the umask applied (the VFS leaves that to file systems with `SB_POSIXACL`)
    /// and no ACLs; with one, the mode masked by it and the ACLs to store. Without
    /// `CONFIG_FS_POSIX_ACL` the VFS applied the umask and `mode` is returned as it is.
    pub fn acl_create(&self, mode: u16) -> Result<(u16, Option<Acl>, Option<Acl>)> {
        #[cfg(not(CONFIG_FS_POSIX_ACL))]
        {
            Ok((mode, None, None))
        }
        #[cfg(CONFIG_FS_POSIX_ACL)]
        {
            let mut mode = mode;
            let (mut default, mut access) = (ptr::null_mut(), ptr::null_mut());
            // SAFETY: The inode is a valid directory (a file is being created in it); the
            // pointers are ours to write. On success each is NULL or an ACL with a reference
            // that we own, all of whose entries are initialised.
            crate::error::to_result(unsafe {
                bindings::posix_acl_create(self.as_ptr(), &mut mode, &mut default, &mut access)
            })?;
            // INVARIANT: See above.
            Ok((
                mode,
                NonNull::new(access).map(Acl),
                NonNull::new(default).map(Acl),
            ))
        }
    }
}
// patch: end

// patch: aclw
impl<T: FileSystem> INode<T> {
    /// Makes `acl` (or none) the ACL of type `ty` the VFS keeps for the inode
    /// (`set_cached_acl`: it takes its own reference), as a file system does once it stored
    /// one, so that permission checks see it.
    #[inline]
    pub fn set_cached_acl(&self, ty: AclType, acl: Option<&Acl>) {
        let ty = match ty {
            AclType::Access => bindings::ACL_TYPE_ACCESS,
            AclType::Default => bindings::ACL_TYPE_DEFAULT,
        };
        let acl = acl.map_or(ptr::null_mut(), |a| a.0.as_ptr());
        // SAFETY: The inode is valid; `acl` is NULL or valid, and `set_cached_acl` takes a
        // reference of its own (`posix_acl_dup`) and exchanges the cached pointer atomically.
        unsafe { bindings::set_cached_acl(self.as_ptr(), ty as c_int, acl) };
    }
}

impl<'a, T: FileSystem> LockedINode<'a, T> {
    /// For an access ACL about to be stored, returns the mode it implies and whether the ACL
    /// is still needed (`posix_acl_update_mode`: not if the mode says it all), the set-group-id
    /// bit cleared where the caller may not keep it.
    pub fn acl_update_mode(&self, acl: &Acl) -> Result<(u16, bool)> {
        let mut mode = self.mode();
        let mut p = acl.0.as_ptr();
        // SAFETY: The inode is valid and its `i_rwsem` held (type invariants); `p` is a valid
        // ACL, which `posix_acl_update_mode` only reads, and may set to NULL (no reference
        // changes hands).
        crate::error::to_result(unsafe {
            bindings::posix_acl_update_mode(
                &raw mut bindings::nop_mnt_idmap,
                self.inode().as_ptr(),
                &mut mode,
                &mut p,
            )
        })?;
        Ok((mode, !p.is_null()))
    }

    /// Sets the permission bits (and set-id and sticky bits) of the inode's mode to those of
    /// `mode`; the file type stays. The inode is not marked dirty.
    #[inline]
    pub fn set_mode(&mut self, mode: u16) {
        let mode = (self.mode() & !0o7777) | (mode & 0o7777);
        // SAFETY: The inode is valid and its `i_rwsem` held exclusively (type invariants),
        // under which `i_mode` changes; the type bits are kept.
        unsafe { ptr::write_volatile(&raw mut (*self.inode().as_ptr()).i_mode, mode) };
    }

    /// Updates the access ACL after a change of mode (`posix_acl_chmod`), through
    /// [`INodeOperations::set_acl`], as `setattr` does once the mode changed; `dentry` is the
    /// inode's. Nothing without an ACL.
    pub fn acl_chmod(&mut self, dentry: &DEntry<T>) -> Result {
        if dentry.inode().map(|i| i.as_ptr()) != Some(self.inode().as_ptr()) {
            return Err(EINVAL);
        }
        // SAFETY: The dentry is the inode's, and the inode's `i_rwsem` is held exclusively
        // (type invariants), as `posix_acl_chmod` requires (it calls `set_acl`, which expects
        // the lock).
        crate::error::to_result(unsafe {
            bindings::posix_acl_chmod(
                &raw mut bindings::nop_mnt_idmap,
                dentry.as_ptr(),
                self.mode(),
            )
        })
    }
}

/// # Safety
///
/// `set_acl` of `struct inode_operations`: `dentry` is a valid, positive dentry of `T` whose
/// inode's `i_rwsem` is held exclusively (`vfs_set_acl`, `posix_acl_chmod` in `setattr`),
/// `acl` NULL or a valid ACL referenced for the call.
pub(crate) unsafe extern "C" fn set_acl_callback<
    T: FileSystem,
    U: INodeOperations<FileSystem = T> + ?Sized,
>(
    _idmap: *mut bindings::mnt_idmap,
    dentry: *mut bindings::dentry,
    acl: *mut bindings::posix_acl,
    ty: c_int,
) -> c_int {
    crate::error::from_result(|| {
        let ty = AclType::from_raw(ty).ok_or(EINVAL)?;
        // SAFETY: The VFS passes a valid dentry of this file system for the call.
        let dentry = unsafe { DEntry::<T>::from_raw(dentry) };
        let inode = dentry.inode().ok_or(ENOENT)?;
        // SAFETY: The VFS holds the inode's `i_rwsem` exclusively for the call.
        let mut locked = unsafe { LockedINode::new(inode) };
        // `acl` is NULL or an ACL the caller holds for the call, its entries initialised
        // (`posix_acl_from_xattr`, `__posix_acl_chmod`); it is lent, never released here
        // (`ManuallyDrop`), and the method only gets a shared reference to it.
        let acl = NonNull::new(acl).map(|p| core::mem::ManuallyDrop::new(Acl(p)));
        U::set_acl(dentry, &mut locked, acl.as_deref(), ty)?;
        Ok(0)
    })
}
// patch: end

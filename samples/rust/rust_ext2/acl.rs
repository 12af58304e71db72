// SPDX-License-Identifier: GPL-2.0

//! POSIX ACLs, kept in the xattr block (`fs/ext2/acl.c`).
//!
//! On disk an ACL is a 4-byte header (the version) followed by entries of 4 bytes (tag,
//! permissions) or, for named users and groups, 8 bytes (with the id).

use crate::ext2::{AclEntry, AclEntryShort, AclHeader, Ext2Fs};
use crate::xattr;
use kernel::fs::dentry::DEntry;
use kernel::fs::inode::{AclWalk, INode, LockedINode, Timespec};
use kernel::fs::posix_acl::{Acl, AclType, Entry, Tag};
use kernel::prelude::*;
use kernel::transmute::FromBytes;

const EXT2_ACL_VERSION: u32 = 0x0001;
const HEADER_SIZE: usize = core::mem::size_of::<AclHeader>();
const SHORT_ENTRY_SIZE: usize = core::mem::size_of::<AclEntryShort>();
const ENTRY_SIZE: usize = core::mem::size_of::<AclEntry>();

// On-disk tags (the `ACL_*` values of the VFS).
const ACL_USER_OBJ: u16 = 0x01;
const ACL_USER: u16 = 0x02;
const ACL_GROUP_OBJ: u16 = 0x04;
const ACL_GROUP: u16 = 0x08;
const ACL_MASK: u16 = 0x10;
const ACL_OTHER: u16 = 0x20;

/// The number of entries an ACL of `size` bytes has, if the size is possible
/// (`ext2_acl_count`): up to four short entries, then full ones.
fn count(size: usize) -> Option<usize> {
    let size = size.checked_sub(HEADER_SIZE)?;
    match size.checked_sub(4 * SHORT_ENTRY_SIZE) {
        None => (size % SHORT_ENTRY_SIZE == 0).then_some(size / SHORT_ENTRY_SIZE),
        Some(s) => (s % ENTRY_SIZE == 0).then_some((s / ENTRY_SIZE).saturating_add(4)),
    }
}

/// Converts an on-disk ACL (`ext2_acl_from_disk`); `None` for one without entries.
fn from_disk(value: &[u8]) -> Result<Option<Acl>> {
    let (header, _) = AclHeader::from_bytes_prefix(value).ok_or(EINVAL)?;
    if header.a_version.get() != EXT2_ACL_VERSION {
        return Err(EINVAL);
    }
    let n = count(value.len()).ok_or(EINVAL)?;
    if n == 0 {
        return Ok(None);
    }
    let mut entries = KVec::with_capacity(n, GFP_KERNEL)?;
    let mut p = HEADER_SIZE;
    for _ in 0..n {
        let rest = value.get(p..).ok_or(EINVAL)?;
        let (short, _) = AclEntryShort::from_bytes_prefix(rest).ok_or(EINVAL)?;
        let perm = short.e_perm.get();
        let (tag, size) = match short.e_tag.get() {
            ACL_USER_OBJ => (Tag::UserObj, SHORT_ENTRY_SIZE),
            ACL_GROUP_OBJ => (Tag::GroupObj, SHORT_ENTRY_SIZE),
            ACL_MASK => (Tag::Mask, SHORT_ENTRY_SIZE),
            ACL_OTHER => (Tag::Other, SHORT_ENTRY_SIZE),
            t @ (ACL_USER | ACL_GROUP) => {
                let (full, _) = AclEntry::from_bytes_prefix(rest).ok_or(EINVAL)?;
                let id = full.e_id.get();
                let tag = if t == ACL_USER {
                    Tag::User(id)
                } else {
                    Tag::Group(id)
                };
                (tag, ENTRY_SIZE)
            }
            _ => return Err(EINVAL),
        };
        entries.push(Entry { tag, perm }, GFP_KERNEL)?;
        p = p.saturating_add(size);
    }
    if p != value.len() {
        return Err(EINVAL);
    }
    Acl::new(&entries).map(Some)
}

/// Returns the ACL of type `ty` of an inode (`ext2_get_acl`). Not in RCU walk: reading the
/// xattr block may block.
pub(crate) fn get_acl(walk: AclWalk<'_, Ext2Fs>, ty: AclType) -> Result<Option<Acl>> {
    let AclWalk::Ref(inode) = walk else {
        return Err(ECHILD);
    };
    let index = match ty {
        AclType::Access => xattr::INDEX_POSIX_ACL_ACCESS,
        AclType::Default => xattr::INDEX_POSIX_ACL_DEFAULT,
    };
    match xattr::value(inode, index, b"") {
        Ok(v) => from_disk(&v),
        Err(e) if e == ENODATA => Ok(None),
        Err(e) => Err(e),
    }
}

/// Converts an ACL to its on-disk form (`ext2_acl_to_disk`): short entries for the owner,
/// group, mask and others, full ones with the id for named users and groups.
fn to_disk(acl: &Acl) -> Result<KVec<u8>> {
    let mut v = KVec::new();
    v.extend_from_slice(&EXT2_ACL_VERSION.to_le_bytes(), GFP_KERNEL)?;
    let mut i = 0;
    while let Some(e) = acl.entry(i) {
        let Entry { tag, perm } = e?;
        let (t, id) = match tag {
            Tag::UserObj => (ACL_USER_OBJ, None),
            Tag::User(id) => (ACL_USER, Some(id)),
            Tag::GroupObj => (ACL_GROUP_OBJ, None),
            Tag::Group(id) => (ACL_GROUP, Some(id)),
            Tag::Mask => (ACL_MASK, None),
            Tag::Other => (ACL_OTHER, None),
        };
        v.extend_from_slice(&t.to_le_bytes(), GFP_KERNEL)?;
        v.extend_from_slice(&perm.to_le_bytes(), GFP_KERNEL)?;
        if let Some(id) = id {
            v.extend_from_slice(&id.to_le_bytes(), GFP_KERNEL)?;
        }
        i = i.saturating_add(1);
    }
    Ok(v)
}

/// Stores `acl` (or none) as the ACL of type `ty` of `inode`, whose `i_rwsem` the caller holds
/// or which is new (`__ext2_set_acl`), and caches it: a default ACL only on a directory
/// (elsewhere `EACCES`, or nothing to remove).
pub(crate) fn store(inode: &INode<Ext2Fs>, acl: Option<&Acl>, ty: AclType) -> Result {
    let index = match ty {
        AclType::Access => xattr::INDEX_POSIX_ACL_ACCESS,
        AclType::Default => {
            if !inode.data().is_dir() {
                return if acl.is_some() { Err(EACCES) } else { Ok(()) };
            }
            xattr::INDEX_POSIX_ACL_DEFAULT
        }
    };
    let value = acl.map(to_disk).transpose()?;
    xattr::set(inode, index, b"", value.as_deref(), 0)?;
    inode.set_cached_acl(ty, acl);
    Ok(())
}

/// `ext2_set_acl`: an access ACL first updates the mode (and is dropped if the mode says it
/// all), which is stored once the ACL is.
pub(crate) fn set_acl(
    _dentry: &DEntry<Ext2Fs>,
    inode: &mut LockedINode<'_, Ext2Fs>,
    acl: Option<&Acl>,
    ty: AclType,
) -> Result {
    let mut acl = acl;
    let mut mode = None;
    if let (AclType::Access, Some(a)) = (ty, acl) {
        let (m, keep) = inode.acl_update_mode(a)?;
        if !keep {
            acl = None;
        }
        mode = Some(m);
    }
    store(inode, acl, ty)?;
    if let Some(mode) = mode {
        inode.set_mode(mode);
        inode.set_ctime(Timespec::now());
        inode.mark_dirty();
    }
    Ok(())
}

/// `ext2_init_acl`: the ACLs a new inode inherits from its directory's default ACL
/// (`posix_acl_create` made them), stored.
pub(crate) fn init_acl(inode: &INode<Ext2Fs>, access: Option<Acl>, default: Option<Acl>) -> Result {
    if let Some(default) = &default {
        store(inode, Some(default), AclType::Default)?;
    }
    if let Some(access) = &access {
        store(inode, Some(access), AclType::Access)?;
    }
    Ok(())
}

#[kunit_tests(rust_ext2_acl)]
mod tests {
    use super::*;

    /// `ext2_acl_count`: a 4-byte header, up to four 4-byte short entries, then 8-byte ones;
    /// other sizes are invalid (C's `size_t` arithmetic would underflow below the header).
    #[test]
    fn count_as_c() {
        assert_eq!(count(4), Some(0));
        assert_eq!(count(8), Some(1));
        assert_eq!(count(20), Some(4));
        assert_eq!(count(28), Some(5));
        assert_eq!(count(44), Some(7));
        assert_eq!(count(3), None);
        assert_eq!(count(22), None);
        assert_eq!(count(26), None);
    }

    /// `ext2_acl_from_disk`: the version, the entry sizes by tag, and the total size are checked.
    #[test]
    fn from_disk_as_c() {
        // Version 1, user::rw-, user:1000:r--, group::r--, mask::r--, other::---: 28 bytes, five
        // entries (`count`), which end at the end.
        let ok: [u8; 28] = [
            1, 0, 0, 0, // a_version
            0x01, 0, 6, 0, // ACL_USER_OBJ rw-
            0x02, 0, 4, 0, 0xe8, 3, 0, 0, // ACL_USER 1000 r--
            0x04, 0, 4, 0, // ACL_GROUP_OBJ r--
            0x10, 0, 4, 0, // ACL_MASK r--
            0x20, 0, 0, 0, // ACL_OTHER ---
        ];
        assert!(matches!(from_disk(&ok), Ok(Some(_))));
        // Six short entries in 28 bytes: `count` says five, which end before the end.
        let short: [u8; 28] = [
            1, 0, 0, 0, 0x01, 0, 6, 0, 0x04, 0, 4, 0, 0x10, 0, 4, 0, 0x20, 0, 0, 0, 0x20, 0, 0, 0,
            0x20, 0, 0, 0,
        ];
        assert!(from_disk(&short).is_err());
        // A header alone: no ACL.
        assert!(matches!(from_disk(&[1, 0, 0, 0]), Ok(None)));
        // Another version, a truncated entry, a size no count of entries has.
        let mut v2 = ok;
        v2[0] = 2;
        assert!(from_disk(&v2).is_err());
        assert!(from_disk(&ok[..26]).is_err());
        assert!(from_disk(&ok[..6]).is_err());
        // An unknown tag.
        let mut bad_tag = ok;
        bad_tag[4] = 0x40;
        assert!(from_disk(&bad_tag).is_err());
    }
}

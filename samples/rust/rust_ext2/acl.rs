// SPDX-License-Identifier: GPL-2.0

//! POSIX ACLs, kept in the xattr block (`fs/ext2/acl.c`).
//!
//! On disk an ACL is a 4-byte header (the version) followed by entries of 4 bytes (tag,
//! permissions) or, for named users and groups, 8 bytes (with the id).

use crate::defs::{le16, le32};
use crate::superblock::Ext2Fs;
use crate::xattr;
use kernel::fs::inode::AclWalk;
use kernel::fs::posix_acl::{Acl, AclType, Entry, Tag};
use kernel::prelude::*;

const EXT2_ACL_VERSION: u32 = 0x0001;
const HEADER_SIZE: usize = 4;
const SHORT_ENTRY_SIZE: usize = 4;
const ENTRY_SIZE: usize = 8;

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
    if value.len() < HEADER_SIZE || le32(value, 0) != EXT2_ACL_VERSION {
        return Err(EINVAL);
    }
    let n = count(value.len()).ok_or(EINVAL)?;
    if n == 0 {
        return Ok(None);
    }
    let mut entries = KVec::with_capacity(n, GFP_KERNEL)?;
    let mut p = HEADER_SIZE;
    for _ in 0..n {
        if p.saturating_add(SHORT_ENTRY_SIZE) > value.len() {
            return Err(EINVAL);
        }
        let perm = le16(value, p.saturating_add(2));
        let (tag, size) = match le16(value, p) {
            ACL_USER_OBJ => (Tag::UserObj, SHORT_ENTRY_SIZE),
            ACL_GROUP_OBJ => (Tag::GroupObj, SHORT_ENTRY_SIZE),
            ACL_MASK => (Tag::Mask, SHORT_ENTRY_SIZE),
            ACL_OTHER => (Tag::Other, SHORT_ENTRY_SIZE),
            t @ (ACL_USER | ACL_GROUP) => {
                if p.saturating_add(ENTRY_SIZE) > value.len() {
                    return Err(EINVAL);
                }
                let id = le32(value, p.saturating_add(4));
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
}

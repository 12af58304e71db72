// SPDX-License-Identifier: GPL-2.0

//! Extended attributes in the xattr block of an inode (`fs/ext2/xattr*.c`).
//!
//! ext2 keeps no attributes inside inodes; the block holds a 32-byte header followed by
//! entries (sorted by index and name) whose values are elsewhere in the same block.

use crate::ext2::{Ext2Fs, XattrEntry, XattrHeader};
use crate::superblock::ext2_error;
use kernel::fs::dentry::DEntry;
use kernel::fs::inode::{INode, UncountedINode};
use kernel::fs::ondisk::Le32;
use kernel::fs::posix_acl;
use kernel::fs::xattr::{Handler, Handlers, XattrHandler};
use kernel::prelude::*;
use kernel::transmute::{AsBytes, FromBytes};

const EXT2_XATTR_MAGIC: u32 = 0xEA02_0000;
const HEADER_SIZE: usize = core::mem::size_of::<XattrHeader>();
const ENTRY_SIZE: usize = core::mem::size_of::<XattrEntry>();
const INDEX_USER: u8 = 1;
pub(crate) const INDEX_POSIX_ACL_ACCESS: u8 = 2;
pub(crate) const INDEX_POSIX_ACL_DEFAULT: u8 = 3;
const INDEX_TRUSTED: u8 = 4;
const INDEX_SECURITY: u8 = 6;

pub(crate) const HANDLERS: Handlers<Ext2Fs> = Handlers::new(&[
    Some(Handler::new::<NsHandler<User>>()),
    Some(Handler::new::<NsHandler<Trusted>>()),
    Some(Handler::new::<NsHandler<Security>>()),
    None,
]);

/// An entry of an xattr block.
struct Entry<'a> {
    index: u8,
    name: &'a [u8],
    value: &'a [u8],
}

/// Reads and checks the xattr block of `inode`; `None` if it has none.
///
/// The block is a copy (`buffer::Head::read`), parsed with every bound checked.
fn xattr_block(inode: &INode<Ext2Fs>) -> Result<Option<KVec<u8>>> {
    let acl = inode.data().file_acl;
    if acl == 0 {
        return Ok(None);
    }
    let d = inode.super_block().bread(acl.into())?.to_vec()?;
    let (h, _) = XattrHeader::from_bytes_prefix(&d).ok_or_else(|| bad_block(inode))?;
    if !header_valid(h) {
        return Err(bad_block(inode));
    }
    Ok(Some(d))
}

/// Whether an xattr block's header is one ext2 reads (`ext2_xattr_header_valid`).
fn header_valid(h: &XattrHeader) -> bool {
    h.h_magic.get() == EXT2_XATTR_MAGIC && h.h_blocks.get() == 1
}

fn bad_block(inode: &UncountedINode<Ext2Fs>) -> Error {
    ext2_error!(
        inode.super_block(),
        "inode {}: bad block {}",
        inode.ino(),
        inode.data().file_acl
    );
    EIO
}

/// Calls `f` on each entry of a checked xattr block, stopping when it returns `Some`.
///
/// The arithmetic cannot overflow: `p` stays below `end`, the block size (at most 2^16): it
/// starts at `HEADER_SIZE` and becomes `next` only once `next < end`; `name_len` is below 256,
/// and `value_offs + value_size` is computed only once `value_size <= end`.
#[allow(clippy::arithmetic_side_effects)]
fn for_each_entry<'a, R>(
    inode: &INode<Ext2Fs>,
    d: &'a [u8],
    mut f: impl FnMut(Entry<'a>) -> Result<Option<R>>,
) -> Result<Option<R>> {
    let end = d.len();
    let mut p = HEADER_SIZE;
    loop {
        let rest = d.get(p..).unwrap_or(&[]);
        // `IS_LAST_ENTRY`: four zero bytes (or the end of the block) end the list.
        match Le32::from_bytes_prefix(rest) {
            Some((w, _)) if w.get() != 0 => {}
            _ => break,
        }
        // An entry that does not fit ends past the block (`next >= end` below).
        let (e, _) = XattrEntry::from_bytes_prefix(rest).ok_or_else(|| bad_block(inode))?;
        let name_len = usize::from(e.e_name_len);
        let next = p + ((name_len + ENTRY_SIZE + 3) & !3);
        // `ext2_xattr_entry_valid`
        let value_offs = usize::from(e.e_value_offs.get());
        let value_block = e.e_value_block.get();
        let value_size = e.e_value_size.get() as usize;
        if next >= end || value_block != 0 || value_size > end || value_offs + value_size > end {
            return Err(bad_block(inode));
        }
        let entry = Entry {
            index: e.e_name_index,
            name: d
                .get(p + ENTRY_SIZE..p + ENTRY_SIZE + name_len)
                .ok_or(EIO)?,
            value: d.get(value_offs..value_offs + value_size).ok_or(EIO)?,
        };
        if let Some(r) = f(entry)? {
            return Ok(Some(r));
        }
        p = next;
    }
    Ok(None)
}

/// Calls `f` with the value of attribute `name` of namespace `index` (`ext2_xattr_get`);
/// `ENODATA` if there is none.
fn with_value<R>(
    inode: &INode<Ext2Fs>,
    index: u8,
    name: &[u8],
    f: impl FnOnce(&[u8]) -> Result<R>,
) -> Result<R> {
    if name.len() > 255 {
        return Err(ERANGE);
    }
    let Some(bh) = xattr_block(inode)? else {
        return Err(ENODATA);
    };
    let found = for_each_entry(inode, &bh, |e| {
        Ok((e.index == index && e.name == name).then_some(e.value))
    })?;
    f(found.ok_or(ENODATA)?)
}

/// Reads attribute `name` of namespace `index` into `buf`, or returns its size if `buf` is
/// empty.
fn get(inode: &INode<Ext2Fs>, index: u8, name: &[u8], buf: &mut [u8]) -> Result<usize> {
    with_value(inode, index, name, |value| {
        if !buf.is_empty() {
            buf.get_mut(..value.len())
                .ok_or(ERANGE)?
                .copy_from_slice(value);
        }
        Ok(value.len())
    })
}

/// Returns a copy of the value of attribute `name` of namespace `index`.
pub(crate) fn value(inode: &INode<Ext2Fs>, index: u8, name: &[u8]) -> Result<KVec<u8>> {
    with_value(inode, index, name, |value| {
        let mut v = KVec::new();
        v.extend_from_slice(value, GFP_KERNEL)?;
        Ok(v)
    })
}

/// Lists the attributes of `dentry`'s inode (`ext2_listxattr`).
pub(crate) fn list(dentry: &DEntry<Ext2Fs>, buf: &mut [u8]) -> Result<usize> {
    let inode = dentry.inode().ok_or(EINVAL)?;
    let Some(bh) = xattr_block(inode)? else {
        return Ok(0);
    };
    let user = inode.super_block().data().user_xattr();
    // The ACLs are listed where the VFS serves them (`posix_acl_xattr_list`).
    let acl = inode.super_block().posix_acl();
    let mut len = 0usize;
    for_each_entry(inode, &bh, |e| {
        let prefix: &[u8] = match e.index {
            INDEX_USER if user => User::PREFIX.to_bytes(),
            INDEX_POSIX_ACL_ACCESS if acl => posix_acl::XATTR_NAME_ACCESS.to_bytes(),
            INDEX_POSIX_ACL_DEFAULT if acl => posix_acl::XATTR_NAME_DEFAULT.to_bytes(),
            INDEX_TRUSTED if kernel::fs::xattr::trusted_list_allowed() => {
                Trusted::PREFIX.to_bytes()
            }
            INDEX_SECURITY => Security::PREFIX.to_bytes(),
            _ => return Ok(None::<()>),
        };
        let size = prefix.len().saturating_add(e.name.len()).saturating_add(1);
        if !buf.is_empty() {
            let out = buf.get_mut(len..len.saturating_add(size)).ok_or(ERANGE)?;
            let (p, rest) = out.split_at_mut(prefix.len());
            p.copy_from_slice(prefix);
            let (n, nul) = rest.split_at_mut(e.name.len());
            n.copy_from_slice(e.name);
            nul.fill(0);
        }
        len = len.saturating_add(size);
        Ok(None)
    })?;
    Ok(len)
}

/// A name space of ext2 attributes: its prefix and on-disk index.
trait Namespace {
    const PREFIX: &'static CStr;
    const INDEX: u8;
    /// Whether the namespace is enabled on this superblock (`user_xattr` for `user.`).
    fn enabled(_inode: &INode<Ext2Fs>) -> bool {
        true
    }
}

struct User;
impl Namespace for User {
    const PREFIX: &'static CStr = c"user.";
    const INDEX: u8 = INDEX_USER;
    fn enabled(inode: &INode<Ext2Fs>) -> bool {
        inode.super_block().data().user_xattr()
    }
}

struct Trusted;
impl Namespace for Trusted {
    const PREFIX: &'static CStr = c"trusted.";
    const INDEX: u8 = INDEX_TRUSTED;
}

struct Security;
impl Namespace for Security {
    const PREFIX: &'static CStr = c"security.";
    const INDEX: u8 = INDEX_SECURITY;
}

/// The handler of namespace `N` (`ext2_xattr_{user,trusted,security}_handler`).
struct NsHandler<N>(core::marker::PhantomData<N>);

#[vtable]
impl<N: Namespace> XattrHandler for NsHandler<N> {
    type FileSystem = Ext2Fs;
    const PREFIX: &'static CStr = N::PREFIX;

    fn get(
        _dentry: Option<&DEntry<Ext2Fs>>,
        inode: &INode<Ext2Fs>,
        name: &[u8],
        buf: &mut [u8],
    ) -> Result<usize> {
        if !N::enabled(inode) {
            return Err(EOPNOTSUPP);
        }
        get(inode, N::INDEX, name, buf)
    }
}

/// Releases the xattr block of an unlinked inode being evicted (`ext2_xattr_delete_inode`):
/// freed if this inode was its only user, else its reference count lowered. Errors are
/// reported as C reports them and leave the block alone.
pub(crate) fn delete_inode(inode: &UncountedINode<Ext2Fs>) {
    let acl = inode.data().file_acl;
    if acl == 0 {
        return;
    }
    let sb = inode.super_block();
    if !crate::balloc::data_block_valid(sb.data(), acl, 1) {
        ext2_error!(
            sb,
            "inode {}: xattr block {} is out of data blocks range",
            inode.ino(),
            acl
        );
        return;
    }
    let Ok(bh) = sb.bread(acl.into()) else {
        ext2_error!(sb, "inode {}: block {} read error", inode.ino(), acl);
        return;
    };
    let mut raw = [0u8; HEADER_SIZE];
    let valid = bh.read(0, &mut raw).is_ok()
        && XattrHeader::from_bytes_copy(&raw).is_some_and(|h| header_valid(&h));
    if !valid {
        bad_block(inode);
        return;
    }
    let guard = bh.lock();
    // The count is read under the buffer lock, as C reads it there.
    let at = core::mem::offset_of!(XattrHeader, h_refcount);
    let mut refcount = Le32::default();
    if bh.read(at, refcount.as_bytes_mut()).is_err() {
        return;
    }
    if refcount.get() == 1 {
        crate::balloc::free_blocks(inode, acl, 1);
        drop(guard);
        kernel::fs::buffer::Head::forget(bh);
    } else {
        let _ = bh.write_record(at, &Le32::new(refcount.get().wrapping_sub(1)));
        drop(guard);
        let _ = bh.mark_dirty();
        if inode.needs_sync() {
            let _ = bh.sync();
        }
    }
}

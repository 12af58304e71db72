// SPDX-License-Identifier: GPL-2.0

//! Extended attributes in the xattr block of an inode (`fs/ext2/xattr*.c`).
//!
//! ext2 keeps no attributes inside inodes; the block holds a 32-byte header followed by
//! entries (sorted by index and name) whose values are elsewhere in the same block.

use crate::ext2::{self, Ext2Fs, Ext2InodeWriter, XattrEntry, XattrHeader};
use crate::superblock::ext2_error;
use kernel::fs::buffer::Head;
use kernel::fs::dentry::DEntry;
use kernel::fs::inode::{Created, INode, LockedINode, Negative, UncountedINode};
use kernel::fs::ondisk::Le32;
use kernel::fs::posix_acl;
use kernel::fs::xattr::{Handler, Handlers, XattrHandler};
use kernel::prelude::*;
use kernel::sync::aref::ARef;
use kernel::sync::atomic::Relaxed;
use kernel::transmute::FromBytes;

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
    let acl = inode.data().file_acl.load(Relaxed);
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

/// Offers the xattr block `d` of `inode` to the superblock's cache of shareable blocks
/// (`ext2_xattr_cache_insert`), as C does once it read one.
fn cache_insert(inode: &INode<Ext2Fs>, d: &[u8]) {
    let hash = read_u32(d, 12).unwrap_or(0);
    let block = inode.data().file_acl.load(Relaxed);
    let _ = inode
        .super_block()
        .data()
        .ea_block_cache
        .insert(hash, block.into(), true);
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
        inode.data().file_acl.load(Relaxed)
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
    let _sem = Ext2InodeWriter::of(inode).xattr_sem.lock();
    let Some(bh) = xattr_block(inode)? else {
        return Err(ENODATA);
    };
    let found = for_each_entry(inode, &bh, |e| {
        Ok((e.index == index && e.name == name).then_some(e.value))
    })?;
    cache_insert(inode, &bh);
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
    let _sem = Ext2InodeWriter::of(inode).xattr_sem.lock();
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
    cache_insert(inode, &bh);
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

    /// `ext2_xattr_{user,trusted,security}_set`.
    fn set(
        _dentry: Option<&DEntry<Ext2Fs>>,
        inode: &mut LockedINode<'_, Ext2Fs>,
        name: &[u8],
        value: Option<&[u8]>,
        flags: u32,
    ) -> Result {
        if !N::enabled(inode) {
            return Err(EOPNOTSUPP);
        }
        set(inode, N::INDEX, name, value, flags)
    }
}

/// Releases the xattr block of an unlinked inode being evicted (`ext2_xattr_delete_inode`):
/// freed if this inode was its only user, else its reference count lowered. Errors are
/// reported as C reports them and leave the block alone.
pub(crate) fn delete_inode(inode: &UncountedINode<Ext2Fs>) {
    // Nothing else uses the inode; C takes the semaphore with a trylock that cannot fail.
    let Some(_sem) = Ext2InodeWriter::of(inode).xattr_sem.try_lock() else {
        return;
    };
    let acl = inode.data().file_acl.load(Relaxed);
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
    release_block(inode, bh);
    inode.data().file_acl.store(0, Relaxed);
}

/// Drops `inode`'s use of xattr block `bh` (`ext2_xattr_release_block`): its last user frees it
/// (once no one is about to reuse it through the cache), others lower its reference count.
fn release_block(inode: &UncountedINode<Ext2Fs>, bh: ARef<Head>) {
    let s = inode.super_block().data();
    let block = bh.block();
    loop {
        let guard = bh.lock();
        // The count and hash are read under the buffer lock, as C reads them there.
        let refcount = read_head_u32(&bh, 4);
        if refcount == 1 {
            // Under the buffer lock, so that `cache_find` cannot reuse the block meanwhile.
            if let Some(oe) = s
                .ea_block_cache
                .delete_or_get(read_head_u32(&bh, 12), block)
            {
                // Someone is about to reuse it: wait, then look again.
                drop(guard);
                oe.wait_unused();
                continue;
            }
            crate::balloc::free_blocks(inode, block as u32, 1);
            drop(guard);
            Head::forget(bh);
        } else {
            let _ = bh.write(4, &refcount.wrapping_sub(1).to_le_bytes());
            inode.sub_bytes(u64::from(s.block_size));
            let _ = bh.mark_dirty();
            drop(guard);
            if is_sync(inode) {
                let _ = bh.sync();
            }
        }
        return;
    }
}

/// `IS_SYNC`: the `sync` mount option or the inode's sync flag.
fn is_sync(inode: &UncountedINode<Ext2Fs>) -> bool {
    inode.super_block().synchronous() || inode.data().flags.load(Relaxed) & ext2::fl::SYNC != 0
}

/// A little-endian `u32` of a block image at byte `at`.
fn read_u32(d: &[u8], at: usize) -> Option<u32> {
    let b = d.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// A little-endian `u32` of a buffer at byte `at` (0 if it cannot be read).
fn read_head_u32(bh: &Head, at: usize) -> u32 {
    let mut b = [0u8; 4];
    match bh.read(at, &mut b) {
        Ok(()) => u32::from_le_bytes(b),
        Err(_) => 0,
    }
}

/// `EXT2_XATTR_LEN`: the bytes of an entry with a name of `name_len` bytes.
fn entry_len(name_len: usize) -> usize {
    name_len.saturating_add(ENTRY_SIZE + 3) & !3
}

/// `EXT2_XATTR_SIZE`: the bytes a value of `size` bytes takes.
fn value_size(size: usize) -> usize {
    size.saturating_add(3) & !3
}

/// The fields of the entry at byte `e` of a block image.
struct RawEntry {
    name_len: usize,
    index: u8,
    value_offs: usize,
    value_block: u32,
    value_size: usize,
}

/// Reads the entry at byte `e` of block image `d` (`EIO` past its end).
fn entry_at(d: &[u8], e: usize) -> Result<RawEntry> {
    let (x, _) = XattrEntry::from_bytes_prefix(d.get(e..).ok_or(EIO)?).ok_or(EIO)?;
    Ok(RawEntry {
        name_len: x.e_name_len.into(),
        index: x.e_name_index,
        value_offs: x.e_value_offs.get().into(),
        value_block: x.e_value_block.get(),
        value_size: x.e_value_size.get() as usize,
    })
}

/// `IS_LAST_ENTRY`: four zero bytes at `e` (or the end of the image).
fn is_last(d: &[u8], e: usize) -> bool {
    read_u32(d, e).is_none_or(|w| w == 0)
}

/// Writes little-endian `v` at byte `at` of an image.
fn put(d: &mut [u8], at: usize, v: &[u8]) -> Result {
    d.get_mut(at..at.checked_add(v.len()).ok_or(EIO)?)
        .ok_or(EIO)?
        .copy_from_slice(v);
    Ok(())
}

/// Zeroes `len` bytes at `at` of an image.
fn zero(d: &mut [u8], at: usize, len: usize) -> Result {
    d.get_mut(at..at.checked_add(len).ok_or(EIO)?)
        .ok_or(EIO)?
        .fill(0);
    Ok(())
}

/// Moves `len` bytes of an image from `from` to `to` (`memmove`).
fn move_bytes(d: &mut [u8], from: usize, to: usize, len: usize) -> Result {
    let end = from.checked_add(len).ok_or(EIO)?;
    if end > d.len() || to.checked_add(len).ok_or(EIO)? > d.len() {
        return Err(EIO);
    }
    d.copy_within(from..end, to);
    Ok(())
}

/// `ext2_xattr_cmp_entry`: the order of entries (index, name length, name).
fn cmp_entry(
    index: u8,
    name: &[u8],
    d: &[u8],
    e: usize,
    x: &RawEntry,
) -> Result<core::cmp::Ordering> {
    let n = d
        .get(e.saturating_add(ENTRY_SIZE)..e.saturating_add(ENTRY_SIZE).saturating_add(x.name_len))
        .ok_or(EIO)?;
    Ok(index
        .cmp(&x.index)
        .then(name.len().cmp(&x.name_len))
        .then_with(|| name.cmp(n)))
}

/// Checks the entry at `e` of a block image of `end` bytes (`ext2_xattr_entry_valid`).
fn entry_valid(x: &RawEntry, e: usize, end: usize) -> bool {
    let next = e.saturating_add(entry_len(x.name_len));
    next < end
        && x.value_block == 0
        && x.value_size <= end
        && x.value_offs.saturating_add(x.value_size) <= end
}

const NAME_HASH_SHIFT: u32 = 5;
const VALUE_HASH_SHIFT: u32 = 16;
const BLOCK_HASH_SHIFT: u32 = 16;

/// `ext2_xattr_hash_entry`: the hash of the entry at `e` (its name, as the kernel's unsigned
/// `char`s (`-funsigned-char`), and
/// its value, a 32-bit word at a time), stored in it.
fn hash_entry(d: &mut [u8], e: usize) -> Result {
    let x = entry_at(d, e)?;
    let mut hash = 0u32;
    let name_at = e.saturating_add(ENTRY_SIZE);
    for &c in d
        .get(name_at..name_at.saturating_add(x.name_len))
        .ok_or(EIO)?
    {
        hash = (hash << NAME_HASH_SHIFT) ^ (hash >> (32 - NAME_HASH_SHIFT)) ^ u32::from(c);
    }
    if x.value_block == 0 && x.value_size != 0 {
        for i in 0..value_size(x.value_size) / 4 {
            let w = read_u32(d, x.value_offs.saturating_add(i.saturating_mul(4))).ok_or(EIO)?;
            hash = (hash << VALUE_HASH_SHIFT) ^ (hash >> (32 - VALUE_HASH_SHIFT)) ^ w;
        }
    }
    put(d, e.saturating_add(12), &hash.to_le_bytes())
}

/// `ext2_xattr_rehash`: the entry at `e` rehashed, then the block's hash from its entries'
/// (0, never shared, if one of them has none).
fn rehash(d: &mut [u8], e: usize) -> Result {
    hash_entry(d, e)?;
    let mut hash = 0u32;
    let mut p = HEADER_SIZE;
    while !is_last(d, p) {
        let h = read_u32(d, p.saturating_add(12)).ok_or(EIO)?;
        if h == 0 {
            hash = 0;
            break;
        }
        hash = (hash << BLOCK_HASH_SHIFT) ^ (hash >> (32 - BLOCK_HASH_SHIFT)) ^ h;
        p = p.saturating_add(entry_len(entry_at(d, p)?.name_len));
    }
    put(d, 12, &hash.to_le_bytes())
}

/// `ext2_xattr_cmp`: whether two block images hold the same entries and values (`EIO` for a
/// value in another block).
fn same_entries(a: &[u8], b: &[u8]) -> Result<bool> {
    let (mut p, mut q) = (HEADER_SIZE, HEADER_SIZE);
    while !is_last(a, p) {
        if is_last(b, q) {
            return Ok(false);
        }
        let (x, y) = (entry_at(a, p)?, entry_at(b, q)?);
        fn name(d: &[u8], e: usize, n: usize) -> Option<&[u8]> {
            let at = e.saturating_add(ENTRY_SIZE);
            d.get(at..at.saturating_add(n))
        }
        if read_u32(a, p.saturating_add(12)) != read_u32(b, q.saturating_add(12))
            || x.index != y.index
            || x.name_len != y.name_len
            || x.value_size != y.value_size
            || name(a, p, x.name_len) != name(b, q, y.name_len)
        {
            return Ok(false);
        }
        if x.value_block != 0 || y.value_block != 0 {
            return Err(EIO);
        }
        if a.get(x.value_offs..x.value_offs.saturating_add(x.value_size))
            != b.get(y.value_offs..y.value_offs.saturating_add(x.value_size))
        {
            return Ok(false);
        }
        p = p.saturating_add(entry_len(x.name_len));
        q = q.saturating_add(entry_len(y.name_len));
    }
    Ok(is_last(b, q))
}

/// `EXT2_XATTR_REFCOUNT_MAX`: a block is not shared by more inodes.
const REFCOUNT_MAX: u32 = 1024;

/// `ext2_xattr_cache_find`: a cached block whose entries are those of image `d`; `None` if
/// none (or if `d` has no hash: never shared). Unless it is block `old` (the inode's own),
/// its reference count is raised for `inode` under its lock, as `ext2_xattr_set2` does.
fn cache_find(inode: &INode<Ext2Fs>, d: &[u8], old: Option<u64>) -> Option<ARef<Head>> {
    let hash = read_u32(d, 12)?;
    if hash == 0 {
        return None;
    }
    let sb = inode.super_block();
    let cache = &sb.data().ea_block_cache;
    'again: loop {
        let mut ce = cache.find_first(hash);
        while let Some(e) = ce {
            match sb.bread(e.value()) {
                Err(_) => ext2_error!(sb, "inode {}: block {} read error", inode.ino(), e.value()),
                Ok(bh) => {
                    let guard = bh.lock();
                    // Under the buffer lock the block is stable: an entry unhashed meanwhile
                    // was freed or changed.
                    if !e.is_hashed() {
                        drop(guard);
                        continue 'again;
                    }
                    let refcount = read_head_u32(&bh, 4);
                    let same = bh
                        .to_vec()
                        .ok()
                        .is_some_and(|b| same_entries(d, &b).unwrap_or(false));
                    if refcount <= REFCOUNT_MAX && same {
                        e.touch();
                        if old != Some(bh.block()) {
                            // Reused: one more user (`dquot_alloc_block`: its bytes count).
                            bh.write(4, &refcount.wrapping_add(1).to_le_bytes()).ok()?;
                            inode.add_bytes(sb.data().block_size.into());
                        }
                        drop(guard);
                        return Some(bh);
                    }
                }
            }
            ce = cache.find_next(e);
        }
        return None;
    }
}

/// `ext2_init_security`: the attributes the security modules give a new inode, created in
/// `dir` as the name of `dentry` (none for a temporary file), each stored as a new
/// `security.` attribute (`ext2_initxattrs`).
pub(crate) fn init_security(
    inode: &Created<Ext2Fs>,
    dir: &INode<Ext2Fs>,
    dentry: Option<&Negative<'_, Ext2Fs>>,
) -> Result {
    inode.init_security(dir, dentry, |name, value| {
        set(
            inode,
            INDEX_SECURITY,
            name.to_bytes(),
            Some(value),
            kernel::fs::xattr::flags::CREATE,
        )
    })
}

/// Sets attribute `name` of namespace `index` of `inode`, whose `i_rwsem` the caller holds (or
/// which is new), to `value`, or removes it (`ext2_xattr_set`): the entries of its block,
/// sorted, with values packed from the block's end, changed in place if only this inode uses
/// the block and no one is about to reuse it (cloned otherwise), then stored as
/// `ext2_xattr_set2` does (an identical cached block shared, the block kept, or a new one).
///
/// The arithmetic cannot overflow: offsets stay within the block (at most 2^16 bytes, every
/// entry checked as `ext2_xattr_entry_valid` checks it), `here <= last`, the first value is at
/// or before every other (`min_offs`), value sizes are at least 4 where 4 is subtracted, and a
/// new value fits in the `free` bytes before `min_offs`, checked first.
#[allow(clippy::arithmetic_side_effects)]
pub(crate) fn set(
    inode: &INode<Ext2Fs>,
    index: u8,
    name: &[u8],
    value: Option<&[u8]>,
    flags: u32,
) -> Result {
    let sb = inode.super_block();
    let s = sb.data();
    let bs = s.block_size as usize;
    let value_len = value.map_or(0, |v| v.len());
    if name.len() > 255 || value_len > bs {
        return Err(ERANGE);
    }
    let name_len = name.len();
    let _sem = Ext2InodeWriter::of(inode).xattr_sem.lock();
    let acl = inode.data().file_acl.load(Relaxed);
    let mut min_offs = bs;
    let mut not_found = true;
    let (mut here, mut last);
    let mut free;
    let mut old_bh = None;
    let mut d: KVec<u8>;
    if acl != 0 {
        // The inode already has a block: find the entry, or where it goes.
        let bh = sb.bread(acl.into()).map_err(|_| EIO)?;
        d = bh.to_vec()?;
        let valid = XattrHeader::from_bytes_prefix(&d).is_some_and(|(h, _)| header_valid(h));
        if !valid {
            return Err(bad_block(inode));
        }
        let mut passed = false;
        here = 0;
        last = HEADER_SIZE;
        while !is_last(&d, last) {
            let x = entry_at(&d, last).map_err(|_| bad_block(inode))?;
            if !entry_valid(&x, last, bs) {
                return Err(bad_block(inode));
            }
            if x.value_size != 0 {
                min_offs = min_offs.min(x.value_offs);
            }
            if !passed {
                let c = cmp_entry(index, name, &d, last, &x)?;
                if c != core::cmp::Ordering::Greater {
                    passed = true;
                    not_found = c != core::cmp::Ordering::Equal;
                    here = last;
                }
            }
            last += entry_len(x.name_len);
        }
        if !passed {
            here = last;
        }
        // What is left between the entries (and the four zero bytes after them) and the
        // values; a block whose values overlap its entries is corrupt.
        free = min_offs
            .checked_sub(last + 4)
            .ok_or_else(|| bad_block(inode))?;
        old_bh = Some(bh);
    } else {
        // A new block.
        free = bs - HEADER_SIZE - 4;
        here = HEADER_SIZE;
        last = HEADER_SIZE;
        d = KVec::new();
    }
    if not_found {
        if flags & kernel::fs::xattr::flags::REPLACE != 0 {
            return Err(ENODATA);
        }
        if value.is_none() {
            return Ok(());
        }
    } else {
        if flags & kernel::fs::xattr::flags::CREATE != 0 {
            return Err(EEXIST);
        }
        let x = entry_at(&d, here)?;
        free += value_size(x.value_size) + entry_len(name_len);
    }
    if free < entry_len(name_len) + value_size(value_len) {
        return Err(ENOSPC);
    }

    // Changed in place, under the buffer lock, only if this inode is the block's only user
    // and no one is about to reuse it from the cache; else a copy with one user.
    let mut guard = None;
    if let Some(bh) = &old_bh {
        let g = bh.lock();
        if read_head_u32(bh, 4) == 1
            && s.ea_block_cache
                .delete_or_get(read_head_u32(bh, 12), bh.block())
                .is_none()
        {
            // The image again, under the lock.
            d = bh.to_vec()?;
            guard = Some(g);
        } else {
            drop(g);
            put(&mut d, 4, &1u32.to_le_bytes())?;
        }
    } else {
        d.resize(bs, 0, GFP_KERNEL)?;
        put(&mut d, 0, &EXT2_XATTR_MAGIC.to_le_bytes())?;
        put(&mut d, 4, &1u32.to_le_bytes())?;
        put(&mut d, 8, &1u32.to_le_bytes())?;
    }

    let mut replaced = false;
    if not_found {
        // The new name, at its place in the order.
        let size = entry_len(name_len);
        move_bytes(&mut d, here, here + size, last - here)?;
        zero(&mut d, here, size)?;
        put(&mut d, here, &[name_len as u8, index])?;
        put(&mut d, here + ENTRY_SIZE, name)?;
    } else {
        let x = entry_at(&d, here)?;
        if x.value_size != 0 {
            let first_val = min_offs;
            let offs = x.value_offs;
            let size = value_size(x.value_size);
            if size == value_size(value_len) {
                // The same size: the value replaced where it is.
                put(&mut d, here + 8, &(value_len as u32).to_le_bytes())?;
                zero(&mut d, offs + size - 4, 4)?;
                put(&mut d, offs, value.unwrap_or(&[]))?;
                replaced = true;
            } else {
                // The old value out, the values before it moved up.
                move_bytes(&mut d, first_val, first_val + size, offs - first_val)?;
                zero(&mut d, first_val, size)?;
                min_offs += size;
                let mut p = HEADER_SIZE;
                while !is_last(&d, p) {
                    let y = entry_at(&d, p)?;
                    if y.value_offs < offs {
                        put(&mut d, p + 2, &((y.value_offs + size) as u16).to_le_bytes())?;
                    }
                    p += entry_len(y.name_len);
                }
                put(&mut d, here + 2, &0u16.to_le_bytes())?;
            }
        }
        if value.is_none() && !replaced {
            // The name out.
            let size = entry_len(name_len);
            last -= size;
            move_bytes(&mut d, here + size, here, last - here)?;
            zero(&mut d, last, size)?;
        }
    }
    if let (Some(value), false) = (value, replaced) {
        put(&mut d, here + 8, &(value_len as u32).to_le_bytes())?;
        if value_len != 0 {
            let size = value_size(value_len);
            let val = min_offs - size;
            put(&mut d, here + 2, &(val as u16).to_le_bytes())?;
            zero(&mut d, val + size - 4, 4)?;
            put(&mut d, val, value)?;
        }
    }

    let in_place = guard.is_some();
    if is_last(&d, HEADER_SIZE) {
        // No attribute left: the block goes.
        drop(guard);
        set2(inode, old_bh, None, false)
    } else {
        rehash(&mut d, here)?;
        if let (Some(bh), Some(_)) = (&old_bh, &guard) {
            bh.write(0, &d)?;
        }
        drop(guard);
        set2(inode, old_bh, Some(&d), in_place)
    }
}

/// `ext2_xattr_set2`: the inode's attributes become block image `d` (none if `None`): an
/// identical cached block shared, its own block kept (changed in place), or a new block
/// allocated near the start of its group; then the inode points to it and the old block, if
/// another, is released.
fn set2(
    inode: &INode<Ext2Fs>,
    old_bh: Option<ARef<Head>>,
    d: Option<&[u8]>,
    in_place: bool,
) -> Result {
    let sb = inode.super_block();
    let s = sb.data();
    let old = old_bh.as_ref().map(|bh| bh.block());
    let mut new_bh = None;
    if let Some(d) = d {
        let bh = if let Some(bh) = cache_find(inode, d, old) {
            bh
        } else if let (true, Some(bh)) = (in_place, &old_bh) {
            // This block, as changed.
            let _ = s
                .ea_block_cache
                .insert(read_head_u32(bh, 12), bh.block(), true);
            bh.clone()
        } else {
            // A new block, without a reservation window (`EXT2_ALLOC_NORESERVE`).
            let goal = crate::balloc::group_range(s, inode.data().block_group).0;
            let (block, _) = crate::balloc::new_blocks(inode, goal, 1, None)?;
            let bh = match sb.getblk(block.into()) {
                Ok(bh) => bh,
                Err(e) => {
                    crate::balloc::free_blocks(inode, block, 1);
                    inode.mark_dirty();
                    return Err(e);
                }
            };
            {
                let g = bh.lock();
                bh.write(0, d)?;
                g.set_uptodate();
            }
            let _ = s
                .ea_block_cache
                .insert(read_u32(d, 12).unwrap_or(0), block.into(), true);
            crate::superblock::ext_attr_feature(s)?;
            bh
        };
        bh.mark_dirty()?;
        if is_sync(inode) && bh.sync().is_err() {
            return Err(EIO);
        }
        new_bh = Some(bh);
    }
    let new = new_bh.as_ref().map(|bh| bh.block());
    inode
        .data()
        .file_acl
        .store(new.map_or(0, |b| b as u32), Relaxed);
    // The caller holds the `i_rwsem` (a handler's token, or the inode is new).
    inode.set_ctime_now();
    inode.mark_dirty();
    if is_sync(inode) {
        inode.sync_metadata(true)?;
    }
    if let Some(old_bh) = old_bh {
        if old != new {
            release_block(inode, old_bh);
        }
    }
    Ok(())
}

// SPDX-License-Identifier: GPL-2.0

//! Symbolic links: targets borrowed or owned, `i_link` for targets in inode data, and the
//! usercopy check that decides which targets are handed to the VFS as they are.
//!
//! C headers: [`include/linux/fs.h`](srctree/include/linux/fs.h)

use super::{INode, INodeOperations};
use crate::bindings;
use crate::error::code::*;
use crate::fs::{dentry::DEntry, inode::INodeWithData, FileSystem};
use crate::prelude::*;
use crate::str::CStrExt;

/// A symbolic link target returned by [`INodeOperations::get_link`].
pub enum Link<'a> {
    /// A target that lives at least as long as the inode (e.g. in its data).
    Borrowed(&'a CStr),
    /// A target allocated for this call; the VFS frees it when done with it.
    Owned(KVec<u8>),
}

/// # Safety
///
/// `get_link` of `struct inode_operations`: `inode_ptr` is a valid symlink inode of
/// `T`, `dentry_ptr` is NULL (RCU walk) or its dentry, `delayed_call` is valid for
/// write.
pub(crate) unsafe extern "C" fn get_link_callback<
    T: FileSystem,
    U: INodeOperations<FileSystem = T> + ?Sized,
>(
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
pub(crate) unsafe extern "C" fn inline_link_callback<
    T: FileSystem,
    U: INodeOperations<FileSystem = T> + ?Sized,
>(
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

/// Returns whether the bytes of `s` may be copied to user space as they are, as hardened
/// usercopy will check: they are within the whitelist that [`FileSystem::INODE_DATA_USERCOPY`]
/// declares in the inode object of `inode_ptr`, or in no slab object at all (static data, the
/// page cache).
///
/// A target in any other slab object (elsewhere in this inode's object, in another inode's, in
/// any cache) is checked by hardened usercopy against that object's cache, which the bindings do
/// not see: it is copied instead.
pub(super) fn usercopy_allowed<T: FileSystem>(inode_ptr: *mut bindings::inode, s: &CStr) -> bool {
    let whitelist = T::INODE_DATA_USERCOPY.map(|(off, n)| {
        let obj = inode_ptr
            .addr()
            .wrapping_sub(core::mem::offset_of!(INodeWithData<T>, inode));
        let lo = obj
            .wrapping_add(INodeWithData::<T>::DATA_OFFSET)
            .wrapping_add(off);
        (lo, n)
    });
    target_copyable(s, whitelist)
}

/// Returns whether the bytes of `s` are all within `whitelist` (address, length), or in no slab
/// object at all.
fn target_copyable(s: &CStr, whitelist: Option<(usize, usize)>) -> bool {
    let start = s.as_char_ptr().addr();
    let len = s.to_bytes_with_nul().len();
    let Some(end) = start.checked_add(len) else {
        return false;
    };
    if let Some((lo, n)) = whitelist {
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

#[kunit_tests(rust_fs_link)]
mod tests {
    use super::*;

    #[test]
    fn targets_copyable() -> Result {
        // Static data is in no slab object: hardened usercopy lets it through.
        assert!(target_copyable(c"static", None));
        // A target in a kmalloc'ed object is only copyable within the whitelist.
        let mut v = KVec::new();
        v.extend_from_slice(b"in a slab\0", GFP_KERNEL)?;
        let t = CStr::from_bytes_with_nul(&v).map_err(|_| EINVAL)?;
        let at = v.as_ptr().addr();
        assert!(!target_copyable(t, None));
        assert!(target_copyable(t, Some((at, v.len()))));
        assert!(target_copyable(t, Some((at - 8, v.len() + 8))));
        // One byte (the NUL) outside, before or after.
        assert!(!target_copyable(t, Some((at, v.len() - 1))));
        assert!(!target_copyable(t, Some((at + 1, v.len()))));
        Ok(())
    }
}

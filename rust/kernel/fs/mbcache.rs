// SPDX-License-Identifier: GPL-2.0

//! The metadata block cache (`mbcache`): file systems such as ext2 and ext4 find there the
//! blocks of extended attributes that they can share between inodes, keyed by a hash of the
//! block's contents, the value being the block number.
//!
//! C header: [`include/linux/mbcache.h`](srctree/include/linux/mbcache.h)

use crate::{bindings, error::to_result, prelude::*};
use core::ptr::NonNull;

/// A cache of (key, block) entries (`struct mb_cache`), made with [`MbCache::new`] and
/// destroyed when dropped.
///
/// # Invariants
///
/// The pointer is a cache made by `mb_cache_create`, owned by this value.
pub struct MbCache(NonNull<bindings::mb_cache>);

// SAFETY: The cache serialises its users with its own locks (hash chain bit locks, a list
// lock); it can be used and dropped from any thread.
unsafe impl Send for MbCache {}
// SAFETY: As above: every method takes `&self` and the C functions lock what they change.
unsafe impl Sync for MbCache {}

impl MbCache {
    /// Makes a cache with `2^bucket_bits` hash buckets (`mb_cache_create`); its entries are
    /// reclaimed under memory pressure through a shrinker.
    pub fn new(bucket_bits: u32) -> Result<Self> {
        let bits = c_int::try_from(bucket_bits).map_err(|_| EINVAL)?;
        // SAFETY: `mb_cache_create` may be called from process context with any bit count;
        // it returns NULL on failure.
        let cache = unsafe { bindings::mb_cache_create(bits) };
        // INVARIANT: Made just now, ours.
        Ok(Self(NonNull::new(cache).ok_or(ENOMEM)?))
    }

    /// Adds an entry for `value` (a block number) under `key` (`mb_cache_entry_create`), which
    /// [`MbCache::find_first`] returns while it is `reusable`. An entry already there for the pair
    /// is kept (`EBUSY` is not an error).
    pub fn insert(&self, key: u32, value: u64, reusable: bool) -> Result {
        // SAFETY: The cache is valid (type invariants).
        let r = unsafe {
            bindings::mb_cache_entry_create(
                self.0.as_ptr(),
                bindings::GFP_KERNEL,
                key,
                value,
                reusable,
            )
        };
        match to_result(r) {
            Err(e) if e == EBUSY => Ok(()),
            r => r,
        }
    }

    /// Removes the entry for (`key`, `value`) unless someone uses it
    /// (`mb_cache_entry_delete_or_get`): `None` if it was removed or not there, else the entry
    /// in use, which the caller then leaves alone or waits for ([`MbEntry::wait_unused`]).
    pub fn delete_or_get(&self, key: u32, value: u64) -> Option<MbEntry<'_>> {
        // SAFETY: The cache is valid (type invariants); the returned entry, if any, carries a
        // reference that the `MbEntry` owns.
        let e = unsafe { bindings::mb_cache_entry_delete_or_get(self.0.as_ptr(), key, value) };
        // INVARIANT: The reference is ours.
        NonNull::new(e).map(|e| MbEntry(e, self))
    }

    /// Returns the first reusable entry under `key` (`mb_cache_entry_find_first`); the next
    /// ones come from [`MbCache::find_next`].
    pub fn find_first(&self, key: u32) -> Option<MbEntry<'_>> {
        // SAFETY: The cache is valid (type invariants); a returned entry carries a reference,
        // which the `MbEntry` owns.
        let e = unsafe { bindings::mb_cache_entry_find_first(self.as_ptr(), key) };
        // INVARIANT: The reference is ours.
        NonNull::new(e).map(|e| MbEntry(e, self))
    }

    /// Returns the reusable entry after `entry` under its key (`mb_cache_entry_find_next`),
    /// which takes over (and drops) `entry`'s reference.
    pub fn find_next<'a>(&'a self, entry: MbEntry<'a>) -> Option<MbEntry<'a>> {
        let entry = core::mem::ManuallyDrop::new(entry);
        // SAFETY: The entry is of this cache (it borrows it) and referenced by us; the
        // reference goes to `mb_cache_entry_find_next`, and `entry` is not dropped. A returned
        // entry carries a new one.
        let e = unsafe { bindings::mb_cache_entry_find_next(self.as_ptr(), entry.0.as_ptr()) };
        // INVARIANT: The reference is ours.
        NonNull::new(e).map(|e| MbEntry(e, self))
    }

    #[inline]
    fn as_ptr(&self) -> *mut bindings::mb_cache {
        self.0.as_ptr()
    }
}

impl Drop for MbCache {
    fn drop(&mut self) {
        // SAFETY: The cache is ours (type invariants); entries borrow it, so none is held.
        unsafe { bindings::mb_cache_destroy(self.0.as_ptr()) };
    }
}

/// A referenced entry of an [`MbCache`] (`struct mb_cache_entry`), released when dropped
/// (`mb_cache_entry_put`).
///
/// # Invariants
///
/// The entry is of the cache and we own one reference to it.
pub struct MbEntry<'a>(NonNull<bindings::mb_cache_entry>, &'a MbCache);

impl MbEntry<'_> {
    /// The value of the entry (a block number), stable while it lives.
    #[inline]
    pub fn value(&self) -> u64 {
        // SAFETY: The entry is valid while referenced (type invariants); `e_value` never
        // changes.
        unsafe { (*self.0.as_ptr()).e_value }
    }

    /// Whether the entry is still in the cache's hash (it is removed, under the lock of the
    /// block it names, when the block is freed or changed): a user that locked the block
    /// checks it to know the block is still the one cached.
    #[inline]
    pub fn is_hashed(&self) -> bool {
        // SAFETY: The entry is valid (type invariants); the helper reads its hash list node.
        !unsafe { bindings::mb_cache_entry_unhashed(self.0.as_ptr()) }
    }

    /// Marks the entry as used lately (`mb_cache_entry_touch`), which keeps it from the
    /// shrinker a while longer.
    #[inline]
    pub fn touch(&self) {
        // SAFETY: The entry and its cache are valid (type invariants).
        unsafe { bindings::mb_cache_entry_touch(self.1.as_ptr(), self.0.as_ptr()) };
    }

    /// Waits until only we and the cache use the entry (`mb_cache_entry_wait_unused`), as a
    /// file system does before it retries freeing a block someone was about to reuse.
    #[inline]
    pub fn wait_unused(&self) {
        // SAFETY: The entry is valid and referenced by us (type invariants).
        unsafe { bindings::mb_cache_entry_wait_unused(self.0.as_ptr()) };
    }
}

impl Drop for MbEntry<'_> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: We own a reference to the entry of this cache (type invariants).
        unsafe { bindings::mb_cache_entry_put(self.1.as_ptr(), self.0.as_ptr()) };
    }
}

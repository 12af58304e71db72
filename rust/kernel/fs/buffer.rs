// SPDX-License-Identifier: GPL-2.0

//! File system buffers (buffer heads).
//!
//! C headers: [`include/linux/buffer_head.h`](srctree/include/linux/buffer_head.h)

use super::sb::{State, SuperBlock};
use super::FileSystem;
use crate::error::{code::*, Result};
use crate::prelude::*;
// patch: rw
use crate::transmute::AsBytes;
// patch: end
use crate::sync::aref::{ARef, AlwaysRefCounted};
use crate::{bindings, types::Opaque};
use core::ptr::NonNull;

/// A buffer head: a block of a block device in the buffer cache.
///
/// Obtained from [`SuperBlock::bread`](super::sb::SuperBlock::bread) as an `ARef<Head>`, which
/// owns a reference (`brelse` when dropped).
///
/// # Invariants
///
/// Instances of this type are always ref-counted (`get_bh`/`brelse`), and their data is up to
/// date (they come from `sb_bread`).
#[repr(transparent)]
pub struct Head(Opaque<bindings::buffer_head>);

impl Head {
    /// Returns the size of the block in bytes.
    #[inline]
    pub fn size(&self) -> usize {
        // SAFETY: `b_size` of a mapped, referenced buffer does not change.
        unsafe { (*self.0.get()).b_size }
    }

    /// Copies bytes of the block, from `offset` on, into `buf`.
    ///
    /// The block lives in the page cache of the block device, which may be written while the
    /// file system reads it (by the file system itself once it writes, or by anyone who opened
    /// the device for writing, `CONFIG_BLK_DEV_WRITE_MOUNTED`): so the bytes are copied by C
    /// `memcpy` into memory that the caller owns, a snapshot that may mix old and new bytes.
    /// Fails with `EINVAL` if the range is not within the block.
    #[inline]
    pub fn read(&self, offset: usize, buf: &mut [u8]) -> Result {
        let end = offset.checked_add(buf.len()).ok_or(EINVAL)?;
        if end > self.size() {
            return Err(EINVAL);
        }
        // SAFETY: The buffer head is valid and referenced, so its data stays mapped at `b_data`
        // for `b_size` bytes while the reference lives, and `offset..end` is within them.
        // Concurrent writes to it are outside Rust's memory model: C copies the bytes into `buf`,
        // which only we use.
        unsafe {
            let src = (*self.0.get()).b_data.cast::<u8>().add(offset);
            bindings::memcpy(buf.as_mut_ptr().cast(), src.cast(), buf.len());
        }
        Ok(())
    }

    /// Returns a copy of the whole block (see [`Head::read`]).
    #[inline]
    pub fn to_vec(&self) -> Result<KVec<u8>> {
        let mut v = KVec::from_elem(0u8, self.size(), GFP_KERNEL)?;
        self.read(0, &mut v)?;
        Ok(v)
    }

    /// Returns the block number of the buffer on its device.
    #[inline]
    pub fn block(&self) -> u64 {
        // SAFETY: `b_blocknr` of a mapped, referenced buffer does not change.
        unsafe { (*self.0.get()).b_blocknr }
    }
}

// patch: rw
impl Head {
    /// Copies `bytes` into the block at `offset`, with C `memcpy` (the block's bytes are never a
    /// Rust reference: see [`Head::read`]). Fails with `EINVAL` if the range is not within the
    /// block.
    ///
    /// The write is not ordered with other writers of the same bytes: the file system
    /// serialises them with the lock C uses for that metadata. The buffer is not marked dirty
    /// ([`Head::mark_dirty`]).
    #[inline]
    pub fn write(&self, offset: usize, bytes: &[u8]) -> Result {
        let end = offset.checked_add(bytes.len()).ok_or(EINVAL)?;
        if end > self.size() {
            return Err(EINVAL);
        }
        // SAFETY: The buffer head is valid and referenced, so its data stays mapped at `b_data`
        // for `b_size` bytes while the reference lives, and `offset..end` is within them. The
        // bytes are the page cache's, never referenced by Rust: C copies into them.
        unsafe {
            let dst = (*self.0.get()).b_data.cast::<u8>().add(offset);
            bindings::memcpy(dst.cast(), bytes.as_ptr().cast(), bytes.len());
        }
        Ok(())
    }

    /// Copies the bytes of `record` into the block at `offset` (see [`Head::write`]).
    #[inline]
    pub fn write_record<R: AsBytes>(&self, offset: usize, record: &R) -> Result {
        self.write(offset, record.as_bytes())
    }

    /// Marks the buffer dirty (`mark_buffer_dirty`): writeback writes it to the device.
    #[inline]
    pub fn mark_dirty(&self) {
        // SAFETY: The buffer head is valid and referenced, and up to date (type invariants), as
        // `mark_buffer_dirty` expects.
        unsafe { bindings::mark_buffer_dirty(self.0.get()) };
    }

    /// Clears the mark of a failed write of the buffer, and returns whether there was one: C's
    /// retry of a buffer it keeps (`buffer_write_io_error`, `clear_buffer_write_io_error`,
    /// `set_buffer_uptodate`, as `ext2_clear_super_error`).
    #[inline]
    pub fn clear_write_io_error(&self) -> bool {
        // SAFETY: The buffer head is valid and referenced; the flags are atomic bit operations.
        unsafe {
            let failed = bindings::buffer_write_io_error(self.0.get());
            if failed {
                bindings::clear_buffer_write_io_error(self.0.get());
                bindings::set_buffer_uptodate(self.0.get());
            }
            failed
        }
    }

    /// Writes the buffer to the device if it is dirty and waits for it (`sync_dirty_buffer`).
    /// Fails with `EIO` if the write failed. May sleep.
    #[inline]
    pub fn sync(&self) -> Result {
        // SAFETY: The buffer head is valid and referenced.
        crate::error::to_result(unsafe { bindings::sync_dirty_buffer(self.0.get()) })
    }
}
// patch: end

// SAFETY: The type invariants guarantee that `Head` is always ref-counted.
unsafe impl AlwaysRefCounted for Head {
    #[inline]
    fn inc_ref(&self) {
        // SAFETY: The existence of a shared reference means that the refcount is nonzero.
        unsafe { bindings::get_bh(self.0.get()) };
    }

    #[inline]
    unsafe fn dec_ref(obj: NonNull<Self>) {
        // SAFETY: The safety requirements guarantee that the refcount is nonzero.
        unsafe { bindings::__brelse(obj.cast().as_ptr()) }
    }
}

// SAFETY: Buffer heads are reference counted atomically, and may be used and released from any
// thread in process context.
unsafe impl Send for Head {}
// SAFETY: Shared references only read immutable fields and copy the data with C (see
// `Head::read`).
unsafe impl Sync for Head {}

impl<T: FileSystem, S: State> SuperBlock<T, S> {
    /// Reads block number `block` (in units of the current block size) of the backing block
    /// device through the buffer cache (`sb_bread`).
    ///
    /// Fails with `EIO` if the superblock has no block device or the block cannot be read.
    pub fn bread(&self, block: u64) -> Result<ARef<Head>> {
        // SAFETY: `s_bdev` of a valid superblock is NULL or valid for the superblock's life.
        let bdev = unsafe { (*self.as_ptr()).s_bdev };
        if bdev.is_null() {
            return Err(EIO);
        }
        // SAFETY: The superblock is valid.
        let size = unsafe { (*self.as_ptr()).s_blocksize };
        // `sb_bread` (a static inline function) without a helper call: this runs for every
        // inode read. Buffer cache pages of a superblock's device are movable, as in C.
        // SAFETY: `bdev` is the superblock's valid block device, `size` its block size.
        let bh = unsafe {
            bindings::__bread_gfp(
                bdev,
                block,
                u32::try_from(size).map_err(|_| EIO)?,
                1 << bindings::___GFP_MOVABLE_BIT,
            )
        };
        let bh = NonNull::new(bh).ok_or(EIO)?;
        // SAFETY: `__bread_gfp` returned a buffer head with a reference that we now own.
        Ok(unsafe { ARef::from_raw(bh.cast()) })
    }
}

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
// patch: fsync
use super::inode::{INodeWithData, UncountedINode};
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
/// Instances of this type are always ref-counted (`get_bh`/`brelse`); their data stays mapped
/// while they are.
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
    /// `EIO` if its data is not up to date (a failed write, or a buffer from `getblk` not
    /// filled yet), which C would warn about and whose stale bytes must not be written.
    #[inline]
    pub fn mark_dirty(&self) -> Result {
        // SAFETY: The buffer head is valid and referenced; the flag is an atomic bit.
        if !unsafe { bindings::buffer_uptodate(self.0.get()) } {
            return Err(EIO);
        }
        // SAFETY: The buffer head is valid and referenced, and up to date, as
        // `mark_buffer_dirty` expects.
        unsafe { bindings::mark_buffer_dirty(self.0.get()) };
        Ok(())
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

// patch: bwrite
impl Head {
    /// Returns whether the buffer's data is up to date (`buffer_uptodate`): read from the device
    /// or written in full since. A buffer from [`SuperBlock::getblk`] is not, until the file
    /// system fills it under the buffer lock ([`HeadGuard::set_uptodate`]); a failed write
    /// clears it.
    #[inline]
    pub fn is_uptodate(&self) -> bool {
        // SAFETY: The buffer head is valid and referenced; the flag is an atomic bit.
        unsafe { bindings::buffer_uptodate(self.0.get()) }
    }

    /// Reads the buffer's block from the device unless its data is up to date (`bh_read`), and
    /// returns whether it was up to date already: C file systems check what they read only on
    /// a fresh read (`read_block_bitmap`). `EIO` if the read failed. May sleep.
    #[inline]
    pub fn read_in(&self) -> Result<bool> {
        // SAFETY: The buffer head is valid and referenced; `bh_read` locks it for the read.
        match unsafe { bindings::bh_read(self.0.get(), 0) } {
            0 => Ok(false),
            r if r > 0 => Ok(true),
            _ => Err(EIO),
        }
    }

    /// Locks the buffer (`lock_buffer`), which serialises with its I/O and with other lockers,
    /// until the guard is dropped (`unlock_buffer`). May sleep.
    #[inline]
    pub fn lock(&self) -> HeadGuard<'_> {
        // SAFETY: The buffer head is valid and referenced.
        unsafe { bindings::lock_buffer(self.0.get()) };
        // INVARIANT: The buffer is locked, by this guard.
        HeadGuard(self)
    }

    /// Returns a pointer to the block's data as `unsigned long`s, if bit `nr` is within it.
    #[inline]
    fn bitmap(&self, nr: usize) -> Result<*mut c_void> {
        if nr >= self.size().saturating_mul(8) {
            return Err(EINVAL);
        }
        // SAFETY: The buffer head is valid and referenced: `b_data` stays mapped.
        Ok(unsafe { (*self.0.get()).b_data.cast() })
    }

    /// Sets bit `nr` of the block, read as a little-endian bitmap, atomically
    /// (`test_and_set_bit_le`, ext2's `ext2_set_bit_atomic`), and returns whether it was set.
    /// `EINVAL` if `nr` is not within the block.
    #[inline]
    pub fn test_and_set_bit_le(&self, nr: usize) -> Result<bool> {
        let addr = self.bitmap(nr)?;
        // SAFETY: `addr` is the block's data, aligned to its size (at least 512 bytes, more than
        // `unsigned long`'s alignment), and bit `nr` is within it (`bitmap`); the operation is
        // atomic, as are its concurrent users' (the bytes are never a Rust reference).
        Ok(unsafe { bindings::test_and_set_bit_le(nr as c_int, addr) } != 0)
    }

    /// Clears bit `nr` of the block atomically (`test_and_clear_bit_le`), and returns whether it
    /// was set. `EINVAL` if `nr` is not within the block.
    #[inline]
    pub fn test_and_clear_bit_le(&self, nr: usize) -> Result<bool> {
        let addr = self.bitmap(nr)?;
        // SAFETY: As in `test_and_set_bit_le`.
        Ok(unsafe { bindings::test_and_clear_bit_le(nr as c_int, addr) } != 0)
    }

    /// Returns whether bit `nr` of the block is set (`test_bit_le`). `EINVAL` if `nr` is not
    /// within the block.
    #[inline]
    pub fn test_bit_le(&self, nr: usize) -> Result<bool> {
        let addr = self.bitmap(nr)?;
        // SAFETY: As in `test_and_set_bit_le`; a read of one word.
        Ok(unsafe { bindings::test_bit_le(nr as c_int, addr) } != 0)
    }

    /// Returns the first clear bit at `offset` or after it among the first `size` bits of the
    /// block (`find_next_zero_bit_le`), or `size` if there is none. `size` is at most the
    /// block's bits. The bits may change meanwhile (C's search without the lock): the caller
    /// claims the bit with [`Head::test_and_set_bit_le`].
    #[inline]
    pub fn find_next_zero_bit_le(&self, size: usize, offset: usize) -> usize {
        let size = size.min(self.size().saturating_mul(8));
        if offset >= size {
            return size;
        }
        // SAFETY: The data is valid for the block's bits, of which `size` at most are read.
        unsafe { bindings::find_next_zero_bit_le((*self.0.get()).b_data.cast(), size, offset) }
    }

    /// As [`Head::find_next_zero_bit_le`], for a set bit (`find_next_bit_le`).
    #[inline]
    pub fn find_next_bit_le(&self, size: usize, offset: usize) -> usize {
        let size = size.min(self.size().saturating_mul(8));
        if offset >= size {
            return size;
        }
        // SAFETY: As in `find_next_zero_bit_le`.
        unsafe { bindings::find_next_bit_le((*self.0.get()).b_data.cast(), size, offset) }
    }

    /// Releases the reference, and the buffer's dirty state with it (`bforget`): for a block
    /// the file system freed, whose contents need not reach the device.
    #[inline]
    pub fn forget(this: ARef<Self>) {
        let ptr = ARef::into_raw(this);
        // SAFETY: We own the reference `into_raw` gave up, which `bforget` drops.
        unsafe { bindings::bforget(ptr.as_ptr().cast()) };
    }
}

/// A locked buffer head (see [`Head::lock`]): unlocked when dropped.
///
/// # Invariants
///
/// The buffer is locked by this guard.
pub struct HeadGuard<'a>(&'a Head);

impl HeadGuard<'_> {
    /// Fills the whole block with zeros (C `memset`).
    #[inline]
    pub fn zero(&self) {
        // SAFETY: The buffer's data is mapped for `b_size` bytes while we hold a reference; C
        // writes it, the bytes are never a Rust reference.
        unsafe { bindings::memset((*self.0 .0.get()).b_data.cast(), 0, self.0.size()) };
    }

    /// Marks the buffer's data up to date (`set_buffer_uptodate`): the caller wrote all of it,
    /// under this lock.
    #[inline]
    pub fn set_uptodate(&self) {
        // SAFETY: The buffer head is valid and referenced; the flag is an atomic bit.
        unsafe { bindings::set_buffer_uptodate(self.0 .0.get()) };
    }
}

impl core::ops::Deref for HeadGuard<'_> {
    type Target = Head;

    #[inline]
    fn deref(&self) -> &Head {
        self.0
    }
}

impl Drop for HeadGuard<'_> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: The buffer is locked by this guard (type invariants).
        unsafe { bindings::unlock_buffer(self.0 .0.get()) };
    }
}
// patch: end

// patch: fsync
impl Head {
    /// Marks the buffer dirty and puts it on `inode`'s list of metadata buffers
    /// (`mmb_mark_buffer_dirty`, C's `mark_buffer_dirty_inode`): an `fsync` of the inode writes
    /// it ([`UncountedINode::sync_metadata_buffers`]), as for ext2's indirect blocks. `EIO` if
    /// its data is not up to date (see [`Head::mark_dirty`]). A buffer on another inode's list
    /// stays there (C's answer to blocks claimed twice on a corrupt file system).
    #[inline]
    pub fn mark_dirty_inode<T: FileSystem>(&self, inode: &UncountedINode<T>) -> Result {
        if !self.is_uptodate() {
            return Err(EIO);
        }
        // SAFETY: The buffer head is valid, referenced and up to date; the inode is alive (we
        // have a reference to it) and was allocated by the bindings (every inode of `T` is), so
        // its list is initialised; the list is emptied before the inode is freed, an RCU grace
        // period before its memory goes (`remove_assoc_queue` reaches it under RCU).
        unsafe {
            bindings::mmb_mark_buffer_dirty(self.0.get(), INodeWithData::<T>::mmb(inode.as_ptr()))
        };
        Ok(())
    }
}

impl<T: FileSystem> UncountedINode<T> {
    /// Writes the buffers on the inode's list of metadata buffers ([`Head::mark_dirty_inode`])
    /// and waits for them (`mmb_sync`), as an `fsync` must. Fails with `EIO` if a write failed.
    /// May sleep.
    #[inline]
    pub fn sync_metadata_buffers(&self) -> Result {
        // SAFETY: The inode is alive and was allocated by the bindings: its list is initialised.
        crate::error::to_result(unsafe {
            bindings::mmb_sync(INodeWithData::<T>::mmb(self.as_ptr()))
        })
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

    // patch: bwrite
    /// Returns the buffer of block number `block` of the backing device without reading it
    /// (`sb_getblk`): for a block the file system is about to fill, such as one it just
    /// allocated. Its data is up to date only if it was before ([`Head::is_uptodate`]).
    ///
    /// Fails with `EIO` if the superblock has no block device, `ENOMEM` if no buffer could be
    /// had.
    pub fn getblk(&self, block: u64) -> Result<ARef<Head>> {
        // SAFETY: `s_bdev` of a valid superblock is NULL or valid for the superblock's life.
        if unsafe { (*self.as_ptr()).s_bdev }.is_null() {
            return Err(EIO);
        }
        // SAFETY: The superblock is valid and has a block device.
        let bh = unsafe { bindings::sb_getblk(self.as_ptr(), block) };
        let bh = NonNull::new(bh).ok_or(ENOMEM)?;
        // SAFETY: `sb_getblk` returned a buffer head with a reference that we now own.
        Ok(unsafe { ARef::from_raw(bh.cast()) })
    }
    // patch: end
}

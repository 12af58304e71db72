// SPDX-License-Identifier: GPL-2.0

//! Address spaces (page cache mappings), their operations and folios.
//!
//! C headers: [`include/linux/fs.h`](srctree/include/linux/fs.h),
//! [`include/linux/pagemap.h`](srctree/include/linux/pagemap.h) and
//! [`include/linux/mpage.h`](srctree/include/linux/mpage.h)

use super::file::{DirEmitter, DirEntryType, File, Offset};
use super::registration::from_err_ptr;
use super::{inode::INode, inode::NewINode, inode::UncountedINode, FileSystem};
// patch: trunc
use super::inode::{LockedINode, WritebackControl};
// patch: end
use crate::error::{code::*, from_result, Result};
use crate::prelude::*;
use crate::sync::aref::{ARef, AlwaysRefCounted};
use crate::{bindings, types::Opaque};
// patch: ondisk
use crate::transmute::FromBytes;
use core::mem::{size_of, MaybeUninit};
// patch: end
// patch: create
use crate::transmute::AsBytes;
// patch: end
use core::{marker::PhantomData, ptr::NonNull};

/// A folio of the page cache of an inode of file system `T`.
///
/// Wraps the kernel's `struct folio`.
///
/// # Invariants
///
/// The folio is valid, referenced for the lifetime of the reference, and belongs to the mapping
/// of an inode of file system `T`.
#[repr(transparent)]
pub struct Folio<T: FileSystem>(Opaque<bindings::folio>, PhantomData<T>);

impl<T: FileSystem> Folio<T> {
    #[inline]
    fn as_ptr(&self) -> *mut bindings::folio {
        self.0.get()
    }

    /// Returns the size of the folio in bytes.
    #[inline]
    pub fn size(&self) -> usize {
        // SAFETY: The folio is valid by the type invariants.
        unsafe { bindings::folio_size(self.as_ptr()) }
    }

    /// Returns the byte position of the folio in its file.
    #[inline]
    pub fn pos(&self) -> i64 {
        // SAFETY: The folio is valid by the type invariants.
        unsafe { bindings::folio_pos(self.as_ptr()) }
    }

    /// Returns whether the folio's contents are up to date.
    #[inline]
    pub fn test_uptodate(&self) -> bool {
        // SAFETY: The folio is valid by the type invariants.
        unsafe { bindings::folio_test_uptodate(self.as_ptr()) }
    }

    /// Returns whether the folio is marked as checked (`PG_checked`): file systems use it to
    /// remember that they validated the metadata in it (as `ext2_check_folio` does).
    #[inline]
    pub fn test_checked(&self) -> bool {
        // SAFETY: The folio is valid by the type invariants.
        unsafe { bindings::folio_test_checked(self.as_ptr()) }
    }

    /// Marks the folio as checked (`folio_set_checked`).
    #[inline]
    pub fn set_checked(&self) {
        // SAFETY: The folio is valid by the type invariants; the flag is set atomically.
        unsafe { bindings::folio_set_checked(self.as_ptr()) };
    }

    /// Copies bytes of an up-to-date folio, from `offset` on, into `buf`.
    ///
    /// The bytes are a snapshot: the page cache may be written while they are copied (through
    /// a shared mapping, or the block device for buffer cache folios), so they are copied by
    /// C `memcpy` into memory that the caller owns, and the copy may mix old and new bytes.
    /// Fails with `EINVAL` if the range is not within the folio and with `EIO` if the folio is
    /// not up to date.
    pub fn read(&self, offset: usize, buf: &mut [u8]) -> Result {
        let end = offset.checked_add(buf.len()).ok_or(EINVAL)?;
        if end > self.size() {
            return Err(EINVAL);
        }
        if !self.test_uptodate() {
            return Err(EIO);
        }
        // A page at a time, each copied by `MappedBytes::read`.
        let mut done = 0;
        while done < buf.len() {
            let rest = &mut buf[done..];
            done += self.with_mapped(offset + done, |page| {
                let n = page.len().min(rest.len());
                page.read(0, &mut rest[..n]).map(|()| n)
            })??;
        }
        Ok(())
    }

    /// Runs `f` on the bytes of an up-to-date folio from `offset` to the end of the page that
    /// contains it, mapped in place (`kmap_local_folio`) rather than copied.
    ///
    /// The mapping lasts as long as the call: `f` cannot keep the [`MappedBytes`]. Fails with
    /// `EINVAL` if `offset` is not within the folio and with `EIO` if the folio is not up to date.
    pub fn with_mapped<R>(
        &self,
        offset: usize,
        f: impl FnOnce(&MappedBytes<'_>) -> R,
    ) -> Result<R> {
        // A folio is at least a page: no need to ask its size for an offset in the first page.
        if offset >= bindings::PAGE_SIZE && offset >= self.size() {
            return Err(EINVAL);
        }
        if !self.test_uptodate() {
            return Err(EIO);
        }
        // SAFETY: The folio is valid and referenced for the duration of the call, and `offset` is
        // within it.
        let ptr = unsafe { bindings::kmap_local_folio(self.as_ptr(), offset) };
        // INVARIANT: `kmap_local_folio` maps the page containing `offset` from `offset` to the end
        // of the page; the mapping is released below, after `f` returns, and `f` cannot keep the
        // value (it only gets a reference, for any lifetime `f` must accept).
        let bytes = MappedBytes {
            ptr: ptr.cast_const().cast(),
            len: bindings::PAGE_SIZE - offset % bindings::PAGE_SIZE,
            _p: PhantomData,
        };
        let ret = f(&bytes);
        // SAFETY: `ptr` was returned by `kmap_local_folio` above, and mappings made by `f` (if it
        // made any) were released before it returned: they are released in reverse order.
        unsafe { bindings::kunmap_local(ptr) };
        Ok(ret)
    }
}

/// Bytes of a page of the page cache, mapped in place: see [`Folio::with_mapped`].
///
/// The page cache may be written while it is read (through a shared mapping of the file, or
/// through the block device for buffer cache folios), so no Rust reference to these bytes is
/// ever made. Runs of bytes are copied with C `memcpy` into memory the caller owns
/// ([`MappedBytes::read`]) or handed to C ([`DirEmitter::emit_mapped`]); the few bytes of a
/// record (`MappedBytes::read_record`) and names being compared ([`MappedBytes::matches`]) are read
/// with volatile loads, which the kernel treats as C's `READ_ONCE` (as upstream `File::flags`
/// does for a field other threads write): a racing write gives old or new bytes. Two reads of
/// the same bytes may differ, so a caller that checked some bytes must still bound every value
/// it reads again.
///
/// # Invariants
///
/// `ptr` is a kernel mapping of `len` bytes of an up-to-date page, valid during `'a`. The value is
/// neither `Send` nor `Sync`: the mapping is local to the thread that made it.
pub struct MappedBytes<'a> {
    ptr: *const u8,
    len: usize,
    _p: PhantomData<&'a ()>,
}

impl MappedBytes<'_> {
    /// Returns the number of mapped bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Returns whether no bytes are mapped (never the case: at least one byte is).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    fn range(&self, offset: usize, len: usize) -> Result<*const u8> {
        match offset.checked_add(len) {
            Some(end) if end <= self.len => {
                // SAFETY: `offset <= len`, so the result is within the mapping or at its end.
                Ok(unsafe { self.ptr.add(offset) })
            }
            _ => Err(EINVAL),
        }
    }

    /// Copies the bytes at `offset..offset + buf.len()` into `buf`.
    ///
    /// Fails with `EINVAL` if the range is not within the mapped bytes.
    #[inline]
    pub fn read(&self, offset: usize, buf: &mut [u8]) -> Result {
        let src = self.range(offset, buf.len())?;
        // SAFETY: By the type invariants and `range`, `src` has `buf.len()` mapped bytes; `buf`
        // is ours. Concurrent writes to the page are outside Rust's memory model here: the copy
        // is done by C, into memory only we use.
        unsafe { bindings::memcpy(buf.as_mut_ptr().cast(), src.cast(), buf.len()) };
        Ok(())
    }

    // patch: ondisk
    /// Copies the record at `offset` out of the mapped bytes (an on-disk record, see
    /// [`on_disk_record!`](crate::on_disk_record)), read with volatile loads and no call: a 32-bit
    /// load per word if `offset` is aligned for it and the record is made of words, else a load
    /// per byte. A concurrent write to the page gives, for each load, the old or the new bytes.
    ///
    /// Fails with `EINVAL` if the record is not within the mapped bytes.
    #[inline]
    pub fn read_record<R: FromBytes>(&self, offset: usize) -> Result<R> {
        let n = size_of::<R>();
        let src = self.range(offset, n)?;
        let mut r = MaybeUninit::<R>::uninit();
        let dst = r.as_mut_ptr().cast::<u8>();
        if n % 4 == 0 && src.cast::<u32>().is_aligned() {
            for k in 0..n / 4 {
                // SAFETY: By the type invariants and `range`, `src` has `n` mapped bytes, which
                // are `n / 4` aligned words, and `k < n / 4`; `dst` is valid for `n` bytes of
                // writes (the record), at any alignment with `write_unaligned`. The load is
                // volatile, as `READ_ONCE`.
                unsafe {
                    let w = src.cast::<u32>().add(k).read_volatile();
                    dst.add(4 * k).cast::<u32>().write_unaligned(w);
                }
            }
        } else {
            for k in 0..n {
                // SAFETY: As above, `src` has `n` mapped bytes and `dst` room for `n`; `k < n`.
                unsafe { dst.add(k).write(src.add(k).read_volatile()) };
            }
        }
        // SAFETY: All `n` bytes of the record were written above, and any bytes are a valid `R`
        // (`FromBytes`).
        Ok(unsafe { r.assume_init() })
    }
    // patch: end

    /// Returns whether the bytes at `offset` are `bytes`; `false` if they are not all within the
    /// mapped bytes. The mapped bytes are read with volatile loads, as records are
    /// ([`MappedBytes::read_record`]).
    #[inline]
    pub fn matches(&self, offset: usize, bytes: &[u8]) -> bool {
        let Ok(src) = self.range(offset, bytes.len()) else {
            return false;
        };
        bytes.iter().enumerate().all(|(k, &b)| {
            // SAFETY: As in `read_record`: `src` has `bytes.len()` mapped bytes and `k` is below
            // that.
            unsafe { src.add(k).read_volatile() == b }
        })
    }
}

impl DirEmitter {
    /// Emits a directory entry whose name is the `len` bytes at `offset` of a mapped page (see
    /// [`DirEmitter::emit`]): the name is read by C (`filldir` copies it to the user) in place,
    /// without a copy of its own.
    ///
    /// Fails with `EINVAL` if the name is not within the mapped bytes; otherwise returns what
    /// [`DirEmitter::emit`] returns.
    #[inline]
    pub fn emit_mapped(
        &mut self,
        pos_inc: Offset,
        page: &MappedBytes<'_>,
        offset: usize,
        len: usize,
        ino: u64,
        etype: DirEntryType,
    ) -> Result<bool> {
        let name = page.range(offset, len)?;
        // SAFETY: By the invariants of `MappedBytes` and `range`, `name` has `len` mapped bytes
        // during the call, and only C reads them.
        Ok(unsafe { self.emit_raw(pos_inc, name, len, ino, etype) })
    }
}

impl<T: FileSystem> NewINode<T> {
    /// Sets the address space operations of the new inode's page cache (`i_mapping->a_ops`) to
    /// those of `U`; without this it keeps the empty default.
    pub fn set_aops<U: AddressSpaceOperations<FileSystem = T>>(&mut self) -> &mut Self {
        // SAFETY: The inode is new and exclusively ours; its mapping is valid; the table is
        // static.
        unsafe {
            let mapping = (*self.as_ptr()).i_mapping;
            (*mapping).a_ops = AddressSpaceOperationsVTable::<T, U>::build();
            if U::LARGE_FOLIOS {
                bindings::mapping_set_large_folios(mapping);
            }
        }
        self
    }
}

// SAFETY: Folios are always reference counted (`folio_get`/`folio_put`).
unsafe impl<T: FileSystem> AlwaysRefCounted for Folio<T> {
    #[inline]
    fn inc_ref(&self) {
        // SAFETY: The existence of a shared reference means that the refcount is nonzero.
        unsafe { bindings::folio_get(self.as_ptr()) };
    }

    #[inline]
    unsafe fn dec_ref(obj: NonNull<Self>) {
        // SAFETY: The safety requirements guarantee that the refcount is nonzero.
        unsafe { bindings::folio_put(obj.cast().as_ptr()) }
    }
}

impl<T: FileSystem> INode<T> {
    /// Returns folio number `index` of the inode's page cache, reading it with the inode's
    /// [`AddressSpaceOperations`] if needed (`read_mapping_folio`). The folio is up to date.
    ///
    /// Fails with `EINVAL` if the inode's address space cannot read folios (no
    /// [`AddressSpaceOperations::read_folio`], see [`NewINode::set_aops`]).
    pub fn read_mapping_folio(&self, index: u64) -> Result<ARef<Folio<T>>> {
        let index = usize::try_from(index).map_err(|_| EINVAL)?;
        // SAFETY: The inode is valid, and so is its mapping.
        let mapping = unsafe { (*self.as_ptr()).i_mapping };
        // `read_cache_folio` with no filler calls `a_ops->read_folio`: it must exist. The
        // operations of a mapping are set once, while the inode is new.
        // SAFETY: The mapping is valid; its operations table is NULL or valid.
        let aops = unsafe { (*mapping).a_ops };
        // SAFETY: `aops` is not NULL, so it is valid.
        if aops.is_null() || unsafe { (*aops).read_folio }.is_none() {
            return Err(EINVAL);
        }
        // SAFETY: The mapping is valid and has `read_folio`; a NULL file is allowed.
        let folio = from_err_ptr(unsafe {
            bindings::read_cache_folio(mapping, index, None, core::ptr::null_mut())
        })?;
        let folio = NonNull::new(folio).ok_or(EIO)?;
        // SAFETY: `read_cache_folio` returned a referenced folio of this inode's mapping.
        Ok(unsafe { ARef::from_raw(folio.cast()) })
    }
}

/// Copies `data` into `folio` at `offset`, a page at a time (`kmap_local_folio`), with C
/// `memcpy`: the bytes are never referenced by Rust.
///
/// # Safety
///
/// `folio` must be valid for the call, `offset..offset + data.len()` within it, and the caller
/// allowed to write those bytes (it holds the folio's lock).
unsafe fn copy_into_folio(folio: *mut bindings::folio, offset: usize, data: &[u8]) {
    let mut done = 0;
    while done < data.len() {
        let off = offset + done;
        let n = (bindings::PAGE_SIZE - off % bindings::PAGE_SIZE).min(data.len() - done);
        // SAFETY: `off` is within the folio (caller); the mapping reaches to the end of `off`'s
        // page, which holds the `n` bytes copied, and is released before the next one is made.
        unsafe {
            let dst = bindings::kmap_local_folio(folio, off);
            bindings::memcpy(dst, data[done..].as_ptr().cast(), n);
            bindings::kunmap_local(dst);
        }
        done += n;
    }
}

/// A locked folio being read: given to [`AddressSpaceOperations::read_folio`] to fill.
///
/// The bindings own it and end the read when `read_folio` returns, so a file system cannot leave
/// the folio locked (it only gets `&mut`, which it can neither keep nor forget): on success the
/// bytes it did not write are zeroed, the folio is marked up to date and unlocked
/// (`folio_end_read`); on failure it is unlocked and stays not up to date, and readers get `EIO`.
/// Alternatively the read is handed to C, which ends it ([`mpage_read_folio`]).
///
/// While locked and not up to date no one else reads or writes its contents (readers wait for
/// the lock or for `PG_uptodate`, and writers and mappings need the folio up to date and locked),
/// so this value may write them. The pages of a new folio hold whatever their last user left
/// there: the bindings track how far the contents are written (`filled`) and zero every byte
/// below that the file system skipped, then the rest at the end, so only written bytes or zeros
/// ever become visible.
///
/// # Invariants
///
/// While `owned`, the folio is locked, the lock is owned by this value, the folio is in the page
/// cache of an inode of `T` and not up to date, and bytes `0..filled` of it are initialised
/// (written or zeroed through this value). When not `owned`, the lock was handed to C.
pub struct LockedFolio<'a, T: FileSystem> {
    folio: &'a Folio<T>,
    filled: usize,
    owned: bool,
}

impl<'a, T: FileSystem> LockedFolio<'a, T> {
    /// Creates a locked folio from a raw pointer.
    ///
    /// # Safety
    ///
    /// `ptr` must be a valid, locked folio of an inode of `T`, not up to date, valid during `'a`,
    /// whose lock is transferred to the new value.
    #[inline]
    unsafe fn from_raw(ptr: *mut bindings::folio) -> Self {
        // INVARIANT: The caller transfers the lock of a folio of `T` that is not up to date;
        // nothing is written yet.
        Self {
            // SAFETY: The cast is okay because `Folio<T>` is `repr(transparent)` over the C
            // folio, and the caller guarantees that it is valid during `'a`.
            folio: unsafe { &*ptr.cast::<Folio<T>>() },
            filled: 0,
            owned: true,
        }
    }

    /// Hands the lock over to C, which ends the read; fails with `EINVAL` if it was handed over
    /// already.
    #[inline]
    fn hand_off(&mut self) -> Result<*mut bindings::folio> {
        if !self.owned {
            return Err(EINVAL);
        }
        // INVARIANT: The lock now belongs to the C code the pointer is given to.
        self.owned = false;
        Ok(self.folio.as_ptr())
    }

    /// Ends the read as [`AddressSpaceOperations::read_folio`] returned: zeroes what was not
    /// written, marks the folio up to date and unlocks it if `ok`, else only unlocks it. Does
    /// nothing if the lock was handed over.
    fn finish(mut self, ok: bool) {
        if !self.owned {
            return;
        }
        self.owned = false;
        let ptr = self.folio.as_ptr();
        let size = self.folio.size();
        // SAFETY: By the type invariants the folio was locked by us until now (the lock is
        // released here), and bytes from `filled` to its size are within it.
        unsafe {
            if ok {
                if self.filled < size {
                    bindings::folio_zero_range(ptr, self.filled, size - self.filled);
                }
                bindings::flush_dcache_folio(ptr);
            }
            bindings::folio_end_read(ptr, ok);
        }
    }

    /// Returns the inode whose page cache the folio is in.
    #[inline]
    pub fn inode(&self) -> &INode<T> {
        // SAFETY: The folio is in the page cache of an inode of `T` and locked, by us or by the
        // C code we handed it to for the duration of `read_folio`: its mapping is stable while
        // it is locked (truncation takes the folio lock), and the inode outlives its page cache.
        unsafe {
            let mapping = bindings::folio_mapping_once(self.folio.as_ptr());
            INode::from_raw((*mapping).host)
        }
    }

    /// Checks that `offset..offset + len` is within the folio and that the folio is still ours,
    /// then zeroes the bytes between what was written so far and `offset`, so that bytes
    /// `0..offset + len` are initialised once the caller has written its range.
    fn prepare(&mut self, offset: usize, len: usize) -> Result<usize> {
        let end = offset.checked_add(len).ok_or(EINVAL)?;
        if end > self.folio.size() || !self.owned {
            return Err(EINVAL);
        }
        if offset > self.filled {
            // SAFETY: By the type invariants the folio is locked by us and not up to date; the
            // range is within it.
            unsafe {
                bindings::folio_zero_range(self.folio.as_ptr(), self.filled, offset - self.filled)
            };
        }
        Ok(end)
    }

    /// Copies `data` into the folio at `offset`.
    ///
    /// Fails with `EINVAL` if it does not fit in the folio or the read was handed to C.
    pub fn write(&mut self, offset: usize, data: &[u8]) -> Result {
        let end = self.prepare(offset, data.len())?;
        // SAFETY: The folio is valid and locked by us (checked by `prepare`) and not up to date,
        // so no one else accesses its contents; the range is within it.
        unsafe { copy_into_folio(self.folio.as_ptr(), offset, data) };
        // INVARIANT: Bytes up to `offset` were initialised by `prepare`, the rest just now.
        self.filled = self.filled.max(end);
        Ok(())
    }

    /// Zeroes `len` bytes of the folio from `offset`.
    ///
    /// Fails with `EINVAL` if the range is not within the folio or the read was handed to C.
    #[inline]
    pub fn zero_out(&mut self, offset: usize, len: usize) -> Result {
        let end = self.prepare(offset, len)?;
        // SAFETY: The folio is valid and locked by us (checked by `prepare`), and the range is
        // within it.
        unsafe { bindings::folio_zero_range(self.folio.as_ptr(), offset, len) };
        // INVARIANT: Bytes up to `offset` were initialised by `prepare`, the rest just now.
        self.filled = self.filled.max(end);
        Ok(())
    }
}

impl<T: FileSystem> core::ops::Deref for LockedFolio<'_, T> {
    type Target = Folio<T>;
    #[inline]
    fn deref(&self) -> &Folio<T> {
        self.folio
    }
}

impl<T: FileSystem> Drop for LockedFolio<'_, T> {
    #[inline]
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: By the type invariants we own the folio lock; the folio stays not up to
            // date (a read that did not finish).
            unsafe { bindings::folio_unlock(self.folio.as_ptr()) };
        }
    }
}

/// A readahead request (`struct readahead_control`).
pub struct ReadaheadControl<'a, T: FileSystem>(
    *mut bindings::readahead_control,
    PhantomData<&'a T>,
);

impl<T: FileSystem> ReadaheadControl<'_, T> {
    /// Returns the byte position in the file where the readahead starts.
    #[inline]
    pub fn pos(&self) -> i64 {
        // SAFETY: The request is valid while this exists.
        unsafe { bindings::readahead_pos(self.0) }
    }

    /// Returns the number of pages to read.
    #[inline]
    pub fn count(&self) -> u32 {
        // SAFETY: The request is valid while this exists.
        unsafe { bindings::readahead_count(self.0) }
    }
}

/// Operations of an address space: the Rust side of `struct address_space_operations`.
#[vtable]
pub trait AddressSpaceOperations {
    /// The file system whose inodes' page cache this applies to.
    type FileSystem: FileSystem;

    /// Whether the page cache of inodes with these operations can use large folios.
    const LARGE_FOLIOS: bool = false;

    /// Reads the contents of `folio` (`read_folio`), with [`LockedFolio::write`] and
    /// [`LockedFolio::zero_out`] or by handing it to a reader such as [`mpage_read_folio`].
    ///
    /// When it returns the bindings end the read: on success the bytes not written are zeroed
    /// and the folio is marked up to date; on failure it stays not up to date, and readers get
    /// `EIO`. Either way it is unlocked.
    fn read_folio(
        _file: Option<&File<Self::FileSystem>>,
        _folio: &mut LockedFolio<'_, Self::FileSystem>,
    ) -> Result {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }

    /// Starts reading the folios of a readahead request (`readahead`).
    fn readahead(_ractl: &mut ReadaheadControl<'_, Self::FileSystem>) {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }

    /// Returns the device block that holds logical block `block` of `inode`, or 0 for a hole
    /// (`bmap`, the `FIBMAP` ioctl); see [`generic_block_bmap`]. Without it, `FIBMAP` gives
    /// `EINVAL`.
    fn bmap(_inode: &INode<Self::FileSystem>, _block: u64) -> u64 {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }
    // patch: trunc

    /// Writes dirty folios of `inode`'s page cache to the device as `wbc` asks (`writepages`),
    /// e.g. with [`mpage_writepages`]. Writeback calls it with no reference to the inode.
    ///
    /// Implementing it makes the page cache writable: folios are dirtied with their buffers
    /// (`dirty_folio` is `block_dirty_folio`). Without it, nothing the file system does may
    /// dirty them (such as [`block_truncate_page`]): they would never be written.
    fn writepages(
        _inode: &UncountedINode<Self::FileSystem>,
        _wbc: &mut WritebackControl,
    ) -> Result {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }
    // patch: end
    // patch: write

    /// Prepares a buffered write of `len` bytes at `pos` of `inode` (`write_begin`), with
    /// [`block_write_begin`]: returns the locked folio the bytes are copied into. The write
    /// path of [`FileOperations::WRITE`](crate::fs::file::FileOperations::WRITE) calls it with
    /// the inode's `i_rwsem` held exclusively, hence the [`LockedINode`]; the folio must be for
    /// exactly `pos` and `len` (else the write fails with `EINVAL`).
    ///
    /// Implemented with [`AddressSpaceOperations::write_end`] and
    /// [`AddressSpaceOperations::writepages`], it makes the page cache writable; without all
    /// three, `write_begin` and `write_end` stay NULL and no file of the inode may be written.
    fn write_begin<'a>(
        _file: Option<&File<Self::FileSystem>>,
        _inode: &mut LockedINode<'a, Self::FileSystem>,
        _pos: i64,
        _len: usize,
    ) -> Result<WriteFolio<'a, Self::FileSystem>> {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }

    /// Ends the buffered write that [`AddressSpaceOperations::write_begin`] prepared, after
    /// `copied` bytes (at most `len`) were copied into `folio` (`write_end`), with
    /// [`WriteFolio::generic_write_end`], which unlocks the folio and returns how many bytes
    /// were written. A result over `copied` is taken as `copied`.
    fn write_end<'a>(
        _file: Option<&File<Self::FileSystem>>,
        _inode: &mut LockedINode<'a, Self::FileSystem>,
        _folio: WriteFolio<'a, Self::FileSystem>,
        _pos: i64,
        _len: usize,
        _copied: usize,
    ) -> Result<usize> {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }
    // patch: end
}

/// The `struct address_space_operations` of an [`AddressSpaceOperations`] implementation `U` of
/// file system `T`, built at compile time.
pub(crate) struct AddressSpaceOperationsVTable<T: FileSystem, U: ?Sized>(
    PhantomData<T>,
    PhantomData<*const U>,
);

impl<T: FileSystem, U: AddressSpaceOperations<FileSystem = T> + ?Sized>
    AddressSpaceOperationsVTable<T, U>
{
    const VTABLE: bindings::address_space_operations = bindings::address_space_operations {
        read_folio: if U::HAS_READ_FOLIO {
            Some(Self::read_folio_callback)
        } else {
            None
        },
        readahead: if U::HAS_READAHEAD {
            Some(Self::readahead_callback)
        } else {
            None
        },
        invalidate_folio: INVALIDATE_FOLIO,
        bmap: if U::HAS_BMAP {
            Some(Self::bmap_callback)
        } else {
            None
        },
        // patch: trunc
        writepages: if U::HAS_WRITEPAGES {
            Some(Self::writepages_callback)
        } else {
            None
        },
        dirty_folio: if U::HAS_WRITEPAGES { DIRTY_FOLIO } else { None },
        // patch: end
        // patch: write
        write_begin: if Self::WRITABLE {
            Some(Self::write_begin_callback)
        } else {
            None
        },
        write_end: if Self::WRITABLE {
            Some(Self::write_end_callback)
        } else {
            None
        },
        // patch: end
        ..pin_init::zeroed()
    };

    /// # Safety
    ///
    /// `read_folio` of `struct address_space_operations`: `folio` is a valid, locked folio
    /// of a mapping whose inode got this table, and `file` is NULL or the file it is read
    /// through.
    unsafe extern "C" fn read_folio_callback(
        file: *mut bindings::file,
        folio: *mut bindings::folio,
    ) -> c_int {
        from_result(|| {
            // SAFETY: The C API guarantees that `file` is NULL or a valid file.
            let file = (!file.is_null()).then(|| unsafe { File::<T>::from_raw(file) });
            // SAFETY: The C contract guarantees that the folio is valid and locked, not up
            // to date, with ownership of the lock transferred to the callee (which must
            // unlock it); it belongs to a mapping whose inode got this table, hence to
            // `T`.
            let mut locked = unsafe { LockedFolio::from_raw(folio) };
            let ret = U::read_folio(file, &mut locked);
            locked.finish(ret.is_ok());
            ret.map(|()| 0)
        })
    }

    /// # Safety
    ///
    /// `bmap` of `struct address_space_operations`: `mapping` is the valid mapping of a
    /// referenced inode that got this table.
    unsafe extern "C" fn bmap_callback(
        mapping: *mut bindings::address_space,
        block: bindings::sector_t,
    ) -> bindings::sector_t {
        // SAFETY: The mapping's host is its inode, of file system `T` (it got this
        // table), referenced by the caller (`bmap()` is called on an open file's inode).
        let inode = unsafe { INode::<T>::from_raw((*mapping).host) };
        U::bmap(inode, block)
    }

    /// # Safety
    ///
    /// `readahead` of `struct address_space_operations`: `ractl` is a valid readahead
    /// request on a mapping whose inode got this table.
    unsafe extern "C" fn readahead_callback(ractl: *mut bindings::readahead_control) {
        let mut ractl = ReadaheadControl(ractl, PhantomData);
        U::readahead(&mut ractl);
    }

    // patch: trunc
    /// # Safety
    ///
    /// `writepages` of `struct address_space_operations`: `mapping` is the valid mapping of an
    /// inode that got this table, `wbc` valid and ours for the call.
    unsafe extern "C" fn writepages_callback(
        mapping: *mut bindings::address_space,
        wbc: *mut bindings::writeback_control,
    ) -> c_int {
        // SAFETY: The mapping's host is an initialised inode of `T` (it got this table) on a
        // live superblock (writeback holds `s_umount` or an active reference); writeback may
        // hold no reference to it, but eviction waits for it (`inode_wait_for_writeback`).
        let inode = unsafe { UncountedINode::<T>::from_raw((*mapping).host) };
        // SAFETY: `wbc` is valid and ours for the call.
        let wbc = unsafe { WritebackControl::from_raw_mut(wbc) };
        from_result(|| U::writepages(inode, wbc).map(|()| 0))
    }
    // patch: end
    // patch: write

    /// Whether the page cache can be written through this table: the write path needs all of
    /// `write_begin`, `write_end` and `writepages`.
    const WRITABLE: bool = U::HAS_WRITE_BEGIN && U::HAS_WRITE_END && U::HAS_WRITEPAGES;

    /// # Safety
    ///
    /// `write_begin` of `struct address_space_operations`: `mapping` is the valid mapping of a
    /// referenced inode that got this table, `foliop` and `fsdata` valid for writes, `iocb`
    /// NULL or the valid request being written.
    unsafe extern "C" fn write_begin_callback(
        iocb: *const bindings::kiocb,
        mapping: *mut bindings::address_space,
        pos: bindings::loff_t,
        len: c_uint,
        foliop: *mut *mut bindings::folio,
        fsdata: *mut *mut c_void,
    ) -> c_int {
        // Only `generic_perform_write` calls this with a request, and its callers hold the
        // inode's `i_rwsem` exclusively (`__generic_file_write_iter`, through the file
        // operations' `write_iter`). Callers without one (`page_symlink`,
        // `generic_cont_expand_simple`) make no such promise: they get `EINVAL`.
        if iocb.is_null() {
            return EINVAL.to_errno();
        }
        from_result(|| {
            // SAFETY: `iocb` is valid and its file is the open file being written, of an inode
            // of `T` (it got this table), referenced for the call.
            let file = unsafe { File::<T>::from_raw((*iocb).ki_filp) };
            // SAFETY: The mapping's host is its inode, of file system `T`, referenced by the
            // open file; its `i_rwsem` is held exclusively for the call (see above).
            let mut inode = unsafe { LockedINode::new(INode::<T>::from_raw((*mapping).host)) };
            let len = len as usize;
            let wf = U::write_begin(Some(file), &mut inode, pos, len)?;
            // The copy goes to `pos..pos + len` of the folio: it must be the one prepared.
            if wf.mapping != mapping || wf.pos != pos || wf.len != len {
                return Err(EINVAL);
            }
            // SAFETY: `foliop` and `fsdata` are valid for writes. The folio's lock and
            // reference go to the caller, which hands them to `write_end`.
            unsafe {
                *foliop = wf.into_raw();
                *fsdata = core::ptr::null_mut();
            }
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// `write_end` of `struct address_space_operations`: the arguments are those of a
    /// `write_begin_callback` that succeeded (a locked, referenced folio of `mapping` prepared
    /// for `pos` and `len`), with `copied` bytes copied.
    unsafe extern "C" fn write_end_callback(
        iocb: *const bindings::kiocb,
        mapping: *mut bindings::address_space,
        pos: bindings::loff_t,
        len: c_uint,
        copied: c_uint,
        folio: *mut bindings::folio,
        _fsdata: *mut c_void,
    ) -> c_int {
        let len = len as usize;
        // SAFETY: As in `write_begin_callback`, which returned `folio`, prepared for `pos` and
        // `len`, whose lock and reference we now own; `iocb` is not NULL (it refused NULL) and
        // the inode's `i_rwsem` is still held exclusively.
        let (file, mut inode, wf) = unsafe {
            (
                File::<T>::from_raw((*iocb).ki_filp),
                LockedINode::new(INode::<T>::from_raw((*mapping).host)),
                WriteFolio::from_raw(folio, mapping, pos, len),
            )
        };
        let copied = (copied as usize).min(len);
        match U::write_end(Some(file), &mut inode, wf, pos, len, copied) {
            // At most `copied`, which fits in `c_int` (`len` is at most a folio's size).
            Ok(n) => n.min(copied) as c_int,
            Err(e) => e.to_errno(),
        }
    }
    // patch: end

    /// Returns the table.
    #[inline]
    pub(crate) const fn build() -> &'static bindings::address_space_operations {
        &Self::VTABLE
    }
}

/// Buffer heads attached to folios (`mpage_read_folio` falls back to `block_read_full_folio`,
/// which attaches them) are released when the folio is truncated or evicted. The bindings give
/// file systems no other use of `folio->private`, and for folios without buffers this does
/// nothing. Without `CONFIG_BUFFER_HEAD` nothing attaches buffers: the VFS default (none) does.
#[cfg(CONFIG_BUFFER_HEAD)]
const INVALIDATE_FOLIO: Option<unsafe extern "C" fn(*mut bindings::folio, usize, usize)> =
    Some(bindings::block_invalidate_folio);
#[cfg(not(CONFIG_BUFFER_HEAD))]
const INVALIDATE_FOLIO: Option<unsafe extern "C" fn(*mut bindings::folio, usize, usize)> = None;

// patch: trunc
/// Folios of writable page caches are dirtied with their buffers, which the bindings' writers
/// (`mpage_writepages`, `block_truncate_page`) attach.
#[cfg(CONFIG_BUFFER_HEAD)]
const DIRTY_FOLIO: DirtyFolio = Some(bindings::block_dirty_folio);
#[cfg(not(CONFIG_BUFFER_HEAD))]
const DIRTY_FOLIO: DirtyFolio = Some(bindings::filemap_dirty_folio);

/// The type of `dirty_folio`.
type DirtyFolio =
    Option<unsafe extern "C" fn(*mut bindings::address_space, *mut bindings::folio) -> bool>;
// patch: end

/// Device blocks that logical blocks of a file map to: what [`BlockMapper::map_blocks`] returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockRun {
    /// The device block the first logical block maps to.
    pub block: u64,
    /// The number of logical blocks, from the first, that map to contiguous device blocks from
    /// `block` on (at least 1, at most the `max` asked for; other values are clamped).
    pub count: usize,
    /// Whether the block after the run is mapped through metadata the mapper has not read yet,
    /// such as the next indirect block (`set_buffer_boundary`, as `ext2_get_block` does at the
    /// end of an indirect block): the `mpage` readers then submit the blocks gathered so far
    /// before they map on, so that the metadata read can join them on the device.
    pub boundary: bool,
}

/// Maps logical blocks of a file to blocks of the device, for the generic `mpage` readers.
///
/// This is the Rust side of a C `get_block_t` used for reading.
pub trait BlockMapper {
    /// The file system of the inodes being mapped.
    type FileSystem: FileSystem;

    /// Maps logical block `iblock` of `inode` to a device block.
    ///
    /// Returns `None` for a hole, or the run of device blocks that `iblock` and the at most
    /// `max - 1` logical blocks after it map to.
    ///
    /// The inode may have no reference (writeback maps the blocks of inodes that are being
    /// evicted), hence the view that cannot be ref-counted; [`INode`] dereferences to it.
    fn map_blocks(
        inode: &UncountedINode<Self::FileSystem>,
        iblock: u64,
        max: usize,
    ) -> Result<Option<BlockRun>>;
}

/// # Safety
///
/// A `get_block_t` for the `mpage` readers: `inode` is a valid inode of
/// `M::FileSystem` whose mapping is being read and `bh` a valid, caller-owned buffer head.
#[cfg(CONFIG_BUFFER_HEAD)]
unsafe extern "C" fn get_block_callback<M: BlockMapper>(
    inode: *mut bindings::inode,
    iblock: bindings::sector_t,
    bh: *mut bindings::buffer_head,
    create: c_int,
) -> c_int {
    from_result(|| {
        if create != 0 {
            return Err(EROFS);
        }
        // SAFETY: The mpage and buffer code call this with the valid, initialised inode of the
        // mapping being read or written, of file system `M::FileSystem` (the aops that use this
        // mapper belong to it), on a live superblock; writeback may hold no reference, but
        // eviction waits for it (`inode_wait_for_writeback`), so the inode lives for the call.
        let inode = unsafe { UncountedINode::<M::FileSystem>::from_raw(inode) };
        // SAFETY: `bh` is a valid, caller-owned temporary buffer head; `b_size` says how many
        // bytes the caller would like mapped.
        let (sb, bits, want) = unsafe {
            (
                (*inode.as_ptr()).i_sb,
                (*inode.as_ptr()).i_blkbits,
                (*bh).b_size,
            )
        };
        let max = (want >> bits).max(1);
        if let Some(run) = M::map_blocks(inode, iblock, max)? {
            // Blocks of a superblock without a block device (`sb::Backing::Independent`): the
            // read would submit a bio to a NULL device.
            // SAFETY: `sb` is the valid superblock of the inode; `s_bdev` is set before it is
            // filled and stable for its life.
            if unsafe { (*sb).s_bdev }.is_null() {
                return Err(EIO);
            }
            let count = run.count.clamp(1, max);
            // SAFETY: `bh` and `sb` are valid. `map_bh` sets the device, block number and size.
            unsafe {
                bindings::map_bh(bh, sb, run.block);
                (*bh).b_size = count << bits;
                // A clamped run does not reach the boundary.
                if run.boundary && run.count <= max {
                    bindings::set_buffer_boundary(bh);
                }
            }
        }
        Ok(0)
    })
}

/// Reads a folio with the generic block-based reader (`mpage_read_folio`), mapping its blocks
/// with `M`.
#[cfg(CONFIG_BUFFER_HEAD)]
///
/// Fails with `EINVAL` if the folio was handed to C already.
#[inline]
pub fn mpage_read_folio<M: BlockMapper>(folio: &mut LockedFolio<'_, M::FileSystem>) -> Result {
    let ptr = folio.hand_off()?;
    // SAFETY: The folio is valid, locked and not up to date; `mpage_read_folio` takes over the
    // lock (it ends the read, unlocking the folio, when the I/O completes or fails).
    crate::error::to_result(unsafe {
        bindings::mpage_read_folio(ptr, Some(get_block_callback::<M>))
    })
}

/// Reads the folios of a readahead request with the generic block-based reader
/// (`mpage_readahead`), mapping their blocks with `M`.
#[cfg(CONFIG_BUFFER_HEAD)]
#[inline]
pub fn mpage_readahead<M: BlockMapper>(ractl: &mut ReadaheadControl<'_, M::FileSystem>) {
    // SAFETY: The request is valid for the duration of the `readahead` callback.
    unsafe { bindings::mpage_readahead(ractl.0, Some(get_block_callback::<M>)) };
}

/// Maps logical block `block` of `inode` with `M` for `FIBMAP` (`generic_block_bmap`): the device
/// block, or 0 for a hole or an error.
#[cfg(CONFIG_BUFFER_HEAD)]
pub fn generic_block_bmap<M: BlockMapper>(inode: &INode<M::FileSystem>, block: u64) -> u64 {
    // SAFETY: The inode is valid, and so is its mapping; `generic_block_bmap` calls
    // `get_block_callback` with its inode and a temporary buffer head.
    unsafe {
        bindings::generic_block_bmap(
            (*inode.as_ptr()).i_mapping,
            block,
            Some(get_block_callback::<M>),
        )
    }
}

// patch: trunc
/// Writes the dirty folios of `inode`'s page cache as `wbc` asks with the generic block-based
/// writer (`mpage_writepages`), mapping their blocks with `M`. Blocks that `M` maps are
/// written; a dirty block that it does not map fails the write with `EROFS` (the mapper does
/// not allocate).
#[cfg(CONFIG_BUFFER_HEAD)]
#[inline]
pub fn mpage_writepages<M: BlockMapper>(
    inode: &UncountedINode<M::FileSystem>,
    wbc: &mut WritebackControl,
) -> Result {
    // SAFETY: The writer calls `get_block_callback` with the inode, whose mapping it writes.
    unsafe { writepages_with(inode, wbc, get_block_callback::<M>) }
}

/// `mpage_writepages` of `inode`'s mapping with `get_block`.
///
/// # Safety
///
/// `get_block` must accept being called by the `mpage` writer with `inode` and buffer heads of
/// the folio it writes (which it locks).
#[cfg(CONFIG_BUFFER_HEAD)]
unsafe fn writepages_with<T: FileSystem>(
    inode: &UncountedINode<T>,
    wbc: &mut WritebackControl,
    get_block: unsafe extern "C" fn(
        *mut bindings::inode,
        bindings::sector_t,
        *mut bindings::buffer_head,
        c_int,
    ) -> c_int,
) -> Result {
    // SAFETY: The inode is valid for the call and so is its mapping; `wbc` is valid and ours;
    // `get_block` may be called as the writer calls it (safety requirements).
    crate::error::to_result(unsafe {
        bindings::__mpage_writepages(
            (*inode.as_ptr()).i_mapping,
            wbc.as_ptr(),
            Some(get_block),
            None,
        )
    })
}

/// Zeroes the bytes of the block that holds offset `from` from `from` to the end of the block,
/// in the page cache, if the block is mapped (`block_truncate_page`): what a truncate to
/// `from` leaves of the last block must read as zeros once the file grows again. The buffer is
/// marked dirty; writeback writes it with the file system's
/// [`AddressSpaceOperations::writepages`]. `EINVAL` for a negative `from`, `EIO` if the block
/// could not be read.
#[cfg(CONFIG_BUFFER_HEAD)]
pub fn block_truncate_page<M: BlockMapper>(
    inode: &LockedINode<'_, M::FileSystem>,
    from: i64,
) -> Result {
    if from < 0 {
        return Err(EINVAL);
    }
    // SAFETY: The inode is valid and referenced, and so is its mapping. `block_truncate_page`
    // locks the folio it zeroes and maps its block with `get_block_callback` without
    // allocating.
    crate::error::to_result(unsafe {
        bindings::block_truncate_page(
            (*inode.as_ptr()).i_mapping,
            from,
            Some(get_block_callback::<M>),
        )
    })
}
// patch: end

// patch: write
/// What [`BlockAllocator::alloc_blocks`] returns: the mapped run, and whether its blocks were
/// allocated by this call (their contents are stale: the writer zeroes what it does not write,
/// `set_buffer_new`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocRun {
    /// The device blocks.
    pub run: BlockRun,
    /// Whether they are newly allocated.
    pub new: bool,
}

/// A [`BlockMapper`] that also allocates: the Rust side of a C `get_block_t` called with
/// `create` set (`ext2_get_block`), for buffered writes ([`block_write_begin`]).
pub trait BlockAllocator: BlockMapper {
    /// Maps logical block `iblock` of `inode`, allocating it (and the at most `max - 1` blocks
    /// after it, if it can) if it is a hole. A buffered write calls it with the inode's
    /// `i_rwsem` held; writeback may call it with no lock of the inode and no reference to it
    /// ([`mpage_writepages_alloc`])
    /// and lock-free readers ([`BlockMapper::map_blocks`]) run meanwhile: the file system
    /// serialises its allocations and truncates of the inode itself, as C's do with a mutex
    /// of the inode (ext2's `truncate_mutex`).
    fn alloc_blocks(
        inode: &UncountedINode<Self::FileSystem>,
        iblock: u64,
        max: usize,
    ) -> Result<AllocRun>;
    // patch: end
    // patch: diow

    /// Frees what a failed or short write up to byte `to` allocated past the size
    /// (`ext2_write_failed`), after a direct write
    /// ([`DirectIo::new_writing`](crate::fs::iomap::DirectIo::new_writing)) that failed or
    /// stopped short. Nothing by default.
    fn write_failed(inode: &mut LockedINode<'_, Self::FileSystem>, to: i64) {
        let _ = (inode, to);
    }
    // patch: end
    // patch: write
}

/// # Safety
///
/// A `get_block_t` for the buffer and `mpage` code, called with `create` by a writer of the
/// folio: `inode` is a valid inode of `A::FileSystem` (referenced by a buffered write, or in
/// writeback, which eviction waits for), `bh` a valid buffer head of the folio being prepared
/// or written.
#[cfg(CONFIG_BUFFER_HEAD)]
unsafe extern "C" fn get_block_alloc_callback<A: BlockAllocator>(
    inode: *mut bindings::inode,
    iblock: bindings::sector_t,
    bh: *mut bindings::buffer_head,
    create: c_int,
) -> c_int {
    if create == 0 {
        // SAFETY: The caller's guarantees are a superset of `get_block_callback`'s.
        return unsafe { get_block_callback::<A>(inode, iblock, bh, create) };
    }
    from_result(|| {
        // SAFETY: `inode` is a valid, initialised inode of `A::FileSystem` on a live superblock,
        // not destroyed before the call returns (the caller is a writer of one of its folios).
        let uncounted = unsafe { UncountedINode::<A::FileSystem>::from_raw(inode) };
        // SAFETY: `bh` is valid; `b_size` says how many bytes the caller would like mapped.
        let (sb, bits, want) = unsafe { ((*inode).i_sb, (*inode).i_blkbits, (*bh).b_size) };
        // SAFETY: `sb` is the inode's valid superblock; `s_bdev` is stable for its life.
        if unsafe { (*sb).s_bdev }.is_null() {
            return Err(EIO);
        }
        let max = (want >> bits).max(1);
        let AllocRun { run, new } = A::alloc_blocks(uncounted, iblock, max)?;
        let count = run.count.clamp(1, max);
        // SAFETY: `bh` and `sb` are valid; `map_bh` sets the device, block number and size.
        unsafe {
            bindings::map_bh(bh, sb, run.block);
            (*bh).b_size = count << bits;
            if new {
                bindings::set_buffer_new(bh);
            }
            if run.boundary && run.count <= max {
                bindings::set_buffer_boundary(bh);
            }
        }
        Ok(0)
    })
}

/// Writes the dirty folios of `inode`'s page cache as `wbc` asks with the generic block-based
/// writer (`mpage_writepages`), allocating with `A` the blocks that are holes: what shared
/// writable mappings dirty (`filemap_page_mkwrite` only dirties the folio), as C ext2's
/// `ext2_writepages` does with `ext2_get_block`. A failed allocation (`ENOSPC`) is the
/// mapping's error, which `fsync` and `msync` report.
#[cfg(CONFIG_BUFFER_HEAD)]
#[inline]
pub fn mpage_writepages_alloc<A: BlockAllocator>(
    inode: &UncountedINode<A::FileSystem>,
    wbc: &mut WritebackControl,
) -> Result {
    // SAFETY: The writer calls `get_block_alloc_callback` with the inode (which eviction waits
    // for) and buffer heads of the folio it writes.
    unsafe { writepages_with(inode, wbc, get_block_alloc_callback::<A>) }
}

/// A locked, referenced folio prepared for a buffered write (by [`block_write_begin`]), for
/// the bytes `pos..pos + len` of the file, all in it. It is the file system's until
/// [`WriteFolio::generic_write_end`] commits what was copied, unlocks and releases it; dropped
/// without that, it commits nothing and leaves the size alone (the blocks allocated for it are
/// zeroed, not left stale).
///
/// # Invariants
///
/// `folio` is locked and referenced by this value, a folio of `mapping`, the mapping of an inode
/// of `T` whose `i_rwsem` is held exclusively for `'a`; `pos..pos + len` is within it.
pub struct WriteFolio<'a, T: FileSystem> {
    folio: NonNull<bindings::folio>,
    mapping: *mut bindings::address_space,
    pos: i64,
    len: usize,
    _p: PhantomData<&'a INode<T>>,
}

impl<'a, T: FileSystem> WriteFolio<'a, T> {
    /// # Safety
    ///
    /// The arguments satisfy the type invariants, and the caller gives up the folio's lock and
    /// reference.
    #[inline]
    unsafe fn from_raw(
        folio: *mut bindings::folio,
        mapping: *mut bindings::address_space,
        pos: i64,
        len: usize,
    ) -> Self {
        Self {
            // SAFETY: The caller guarantees the folio is valid.
            folio: unsafe { NonNull::new_unchecked(folio) },
            mapping,
            pos,
            len,
            _p: PhantomData,
        }
    }

    /// Gives up the folio's lock and reference to the caller.
    #[inline]
    fn into_raw(self) -> *mut bindings::folio {
        let folio = self.folio.as_ptr();
        core::mem::forget(self);
        folio
    }

    /// Returns the folio.
    #[inline]
    pub fn folio(&self) -> &Folio<T> {
        // SAFETY: The folio is valid and referenced while `self` lives (type invariants), and a
        // folio of an inode of `T`.
        unsafe { &*self.folio.as_ptr().cast() }
    }

    /// Commits the first `copied` bytes of the write (`generic_write_end`): their buffers are
    /// marked dirty (a short copy into a folio that is not up to date commits nothing), the
    /// inode's size grows to the end of what was written, the folio is unlocked and released.
    /// Returns the number of bytes written.
    #[inline]
    pub fn generic_write_end(self, copied: usize) -> usize {
        let copied = copied.min(self.len);
        let (folio, mapping, pos, len) = (self.folio.as_ptr(), self.mapping, self.pos, self.len);
        core::mem::forget(self);
        // SAFETY: By the type invariants the folio is locked and referenced (both given to C
        // here), prepared for `pos..pos + len` of `mapping`, whose inode's `i_rwsem` is held:
        // `generic_write_end` sets the size under it. `len` fits in `c_uint` (within a folio).
        // The request is not used.
        let n = unsafe {
            bindings::generic_write_end(
                core::ptr::null(),
                mapping,
                pos,
                len as c_uint,
                copied as c_uint,
                folio,
                core::ptr::null_mut(),
            )
        };
        n.max(0) as usize
    }
}

impl<T: FileSystem> Drop for WriteFolio<'_, T> {
    #[inline]
    fn drop(&mut self) {
        let folio = self.folio.as_ptr();
        // SAFETY: By the type invariants the folio is locked and referenced by `self`, prepared
        // for `pos..pos + len`; `block_write_end` with nothing copied zeroes the new buffers in
        // the range (no stale block is left) and commits nothing; the size stays as it is
        // (`generic_write_end` would move it to `pos`). Then the lock and reference go; `self` is
        // not used again.
        unsafe {
            bindings::block_write_end(self.pos, self.len as c_uint, 0, folio);
            bindings::folio_unlock(folio);
            bindings::folio_put(folio);
        }
    }
}

/// Prepares a buffered write of `len` bytes at `pos` of `inode` with the generic block-based
/// writer (`block_write_begin`): the folio is found or created and locked, the blocks under
/// `pos..pos + len` mapped or allocated with `A` (new blocks are zeroed outside the range), the
/// others in the folio read if it is not up to date. `EINVAL` for a negative `pos` or a range
/// that is not within the page at `pos`. On failure the caller undoes what `A` allocated
/// beyond the size, as C's `ext2_write_failed`. May sleep.
#[cfg(CONFIG_BUFFER_HEAD)]
pub fn block_write_begin<'a, A: BlockAllocator>(
    inode: &LockedINode<'a, A::FileSystem>,
    pos: i64,
    len: usize,
) -> Result<WriteFolio<'a, A::FileSystem>> {
    let in_page = usize::try_from(pos).map_err(|_| EINVAL)? % bindings::PAGE_SIZE;
    if len > bindings::PAGE_SIZE - in_page {
        return Err(EINVAL);
    }
    let ino: &'a INode<A::FileSystem> = inode.inode();
    // SAFETY: The inode is valid and referenced, and so is its mapping.
    let mapping = unsafe { (*ino.as_ptr()).i_mapping };
    let mut folio = core::ptr::null_mut();
    // SAFETY: `mapping` is valid, `folio` ours to write; the range is within one page;
    // `get_block_alloc_callback` is called with the inode, whose `i_rwsem` `inode` says is held
    // exclusively for `'a`.
    crate::error::to_result(unsafe {
        bindings::block_write_begin(
            mapping,
            pos,
            len as c_uint,
            &mut folio,
            Some(get_block_alloc_callback::<A>),
        )
    })?;
    if folio.is_null() {
        return Err(EIO);
    }
    // SAFETY: `block_write_begin` succeeded: `folio` is a locked, referenced folio of `mapping`
    // holding `pos..pos + len`, whose lock and reference are ours.
    Ok(unsafe { WriteFolio::from_raw(folio, mapping, pos, len) })
}
// patch: end

// patch: create
impl<'a, T: FileSystem> WriteFolio<'a, T> {
    /// Prepares bytes `pos..pos + len` of `folio`, an up-to-date folio of `inode` the caller
    /// read ([`INode::read_mapping_folio`]), for a change in place, as C's directory code does
    /// (`folio_lock`, then `__block_write_begin`: `ext2_prepare_chunk`): the folio is locked
    /// and the blocks under the range are mapped or allocated with `A`. The bytes are then
    /// written with [`WriteFolio::write`] and committed with [`WriteFolio::commit`].
    ///
    /// `EINVAL` for an empty range or one not within the folio, `EAGAIN` if the folio is no
    /// longer in the inode's page cache or up to date (the caller reads it again). May sleep.
    #[cfg(CONFIG_BUFFER_HEAD)]
    pub fn prepare<A: BlockAllocator<FileSystem = T>>(
        inode: &LockedINode<'a, T>,
        folio: ARef<Folio<T>>,
        pos: i64,
        len: usize,
    ) -> Result<Self> {
        let off = pos
            .checked_sub(folio.pos())
            .and_then(|o| usize::try_from(o).ok())
            .ok_or(EINVAL)?;
        if len == 0 || off.checked_add(len).ok_or(EINVAL)? > folio.size() {
            return Err(EINVAL);
        }
        let ino: &'a INode<T> = inode.inode();
        // SAFETY: The inode is valid and referenced, and so is its mapping.
        let mapping = unsafe { (*ino.as_ptr()).i_mapping };
        let ptr = ARef::into_raw(folio).as_ptr().cast::<bindings::folio>();
        // SAFETY: We own a reference to the folio (given up by the `ARef`). Under its lock its
        // mapping is stable: a folio truncated or reclaimed meanwhile has another one (NULL).
        // Only a folio still of `mapping` and up to date is prepared: it is valid, locked, and
        // `pos..pos + len` is within it; `get_block_alloc_callback` is called with the inode,
        // whose `i_rwsem` `inode` says is held exclusively for `'a`. `len` is within a folio,
        // so it fits in `c_uint`.
        let ret = unsafe {
            bindings::folio_lock(ptr);
            if bindings::folio_mapping_once(ptr) == mapping && bindings::folio_test_uptodate(ptr) {
                bindings::__block_write_begin(
                    ptr,
                    pos,
                    len as c_uint,
                    Some(get_block_alloc_callback::<A>),
                )
            } else {
                EAGAIN.to_errno()
            }
        };
        if let Err(e) = crate::error::to_result(ret) {
            // SAFETY: Locked and referenced by us above (`__block_write_begin` zeroed the new
            // buffers it failed to fill); the lock and the reference are given up.
            unsafe {
                bindings::folio_unlock(ptr);
                bindings::folio_put(ptr);
            }
            return Err(e);
        }
        // SAFETY: The folio is locked and referenced, both ours to give; it is a folio of the
        // mapping of `inode`, whose `i_rwsem` is held for `'a`, and holds `pos..pos + len`.
        Ok(unsafe { WriteFolio::from_raw(ptr, mapping, pos, len) })
    }

    /// Copies `data` into the folio at `offset` (bytes from the start of the folio), which must
    /// be within the prepared range; `EINVAL` otherwise. The folio may be up to date, and then
    /// read meanwhile (`read(2)` copies from it without its lock): the bytes are written by C
    /// `memcpy`, never through a Rust reference.
    pub fn write(&mut self, offset: usize, data: &[u8]) -> Result {
        let begin = self
            .pos
            .checked_sub(self.folio().pos())
            .and_then(|b| usize::try_from(b).ok())
            .ok_or(EINVAL)?;
        let end = offset.checked_add(data.len()).ok_or(EINVAL)?;
        if offset < begin || end > begin + self.len {
            return Err(EINVAL);
        }
        // SAFETY: The folio is valid, locked and referenced by us (type invariants), and the
        // range is within the prepared one, within it.
        unsafe { copy_into_folio(self.folio.as_ptr(), offset, data) };
        Ok(())
    }

    /// Copies the bytes of `record` into the folio at `offset` (see [`WriteFolio::write`]).
    #[inline]
    pub fn write_record<R: AsBytes>(&mut self, offset: usize, record: &R) -> Result {
        self.write(offset, record.as_bytes())
    }

    /// Commits the whole prepared range (`block_write_end`, the size grown to its end if it
    /// was beyond, the inode then marked dirty, as `ext2_commit_chunk`), unlocks and releases
    /// the folio. `EIO` if less was committed (the folio was not up to date).
    #[inline]
    pub fn commit(self) -> Result {
        let len = self.len;
        if self.generic_write_end(len) != len {
            return Err(EIO);
        }
        Ok(())
    }
}
// patch: end

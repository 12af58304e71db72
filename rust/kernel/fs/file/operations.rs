// SPDX-License-Identifier: GPL-2.0

//! File operations of file systems: the Rust side of `struct file_operations`.
//!
//! C headers: [`include/linux/fs.h`](srctree/include/linux/fs.h)

use super::{File, LocalFile, Offset};
use crate::bindings;
use crate::error::{from_result, Result};
// patch: iomap
use crate::fs::iomap;
// patch: end
use crate::fs::{inode::INode, inode::NewINode, FileSystem};
use crate::prelude::*;
use core::marker::PhantomData;

impl<T: FileSystem> File<T> {
    /// Creates a typed file reference from a raw pointer.
    ///
    /// # Safety
    ///
    /// `ptr` must be a valid file, opened on an inode of file system `T`, for the duration of
    /// `'a`.
    #[inline]
    pub(crate) unsafe fn from_raw<'a>(ptr: *mut bindings::file) -> &'a Self {
        // SAFETY: The cast is okay because `File` is `repr(transparent)` over `struct file`, which
        // the caller guarantees to be valid for `'a`.
        unsafe { &*ptr.cast::<Self>() }
    }

    /// Returns the inode that the file was opened on (`file_inode`).
    #[inline]
    pub fn inode(&self) -> &INode<T> {
        // SAFETY: `f_inode` is immutable and valid while the file is; it belongs to `T`.
        unsafe { INode::from_raw((*self.inner.get()).f_inode) }
    }

    // patch: write
    /// Returns whether the file was opened for writing (`FMODE_WRITE`).
    #[inline]
    pub fn is_writable(&self) -> bool {
        // SAFETY: The file is valid; `f_mode` is set when it is opened and its `FMODE_WRITE`
        // bit does not change afterwards (a volatile read sees the bits set at open).
        unsafe {
            core::ptr::read_volatile(&raw const (*self.inner.get()).f_mode) & bindings::FMODE_WRITE
                != 0
        }
    }
    // patch: end

    // patch: fattr
    /// Gets write access to the file's mount (`mnt_want_write_file`), as ioctls that change an
    /// inode do: `EROFS` on a read-only mount; waits while the file system is frozen. Given
    /// back when the guard is dropped (`mnt_drop_write_file`). May sleep.
    #[inline]
    pub fn want_write(&self) -> Result<MountWriteGuard<'_, T>> {
        // SAFETY: The file is valid and opened.
        crate::error::to_result(unsafe { bindings::mnt_want_write_file(self.inner.get()) })?;
        // INVARIANT: Taken just now.
        Ok(MountWriteGuard(self))
    }
    // patch: end

    /// Returns the untyped view of the file.
    #[inline]
    pub fn untyped(&self) -> &LocalFile {
        // SAFETY: The file is valid for the lifetime of `self`. `LocalFile` makes no claim about
        // `fdget_pos`: file operations may run under an `fdget_pos` that skipped `f_pos_lock`
        // (e.g. `getdents` on a file with one reference), which `LocalFile` allows, being
        // neither `Send` nor `Sync`.
        unsafe { LocalFile::from_raw_file(self.inner.get()) }
    }
}

// patch: fattr
/// Write access to a file's mount (see [`File::want_write`]).
///
/// # Invariants
///
/// `mnt_want_write_file` succeeded on the file, which is valid for `'a`.
pub struct MountWriteGuard<'a, T: FileSystem>(&'a File<T>);

impl<T: FileSystem> Drop for MountWriteGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: Taken on this file (type invariants).
        unsafe { bindings::mnt_drop_write_file(self.0.inner.get()) };
    }
}
// patch: end

impl<T: FileSystem> NewINode<T> {
    /// Sets the file operations of the new inode (`i_fop`) to those of `U`; without this it keeps
    /// the default (devices and fifos get theirs when they are initialised).
    #[inline]
    pub fn set_file_ops<U: FileOperations<FileSystem = T>>(&mut self) -> &mut Self {
        // SAFETY: The inode is new and exclusively ours; the table is static.
        unsafe { bindings::inode_set_fop(self.as_ptr(), FileOperationsVTable::<T, U>::build()) };
        // All but directory tables read through the page cache (`read(2)`, `splice`, `mmap`):
        // `init` checks that it can be filled.
        self.1 |= !U::HAS_READ_DIR;
        self
    }

    /// Sets the file operations of the new inode to C's `generic_ro_fops`: a read-only regular
    /// file read through the page cache.
    #[inline]
    pub fn set_generic_ro_file_ops(&mut self) -> &mut Self {
        // SAFETY: The inode is new and exclusively ours; `generic_ro_fops` is a static table
        // that never changes.
        unsafe { bindings::inode_set_fop(self.as_ptr(), &bindings::generic_ro_fops) };
        // `init` checks that the page cache these operations read can be filled.
        self.1 = true;
        self
    }
}

/// The type of a directory entry, as reported by [`DirEmitter::emit`] (`DT_*`).
#[repr(u32)]
#[derive(Copy, Clone, PartialEq, Eq)]
pub enum DirEntryType {
    /// Unknown type.
    Unknown = bindings::DT_UNKNOWN,
    /// Named pipe (first-in, first-out) type.
    Fifo = bindings::DT_FIFO,
    /// Character device type.
    Chr = bindings::DT_CHR,
    /// Directory type.
    Dir = bindings::DT_DIR,
    /// Block device type.
    Blk = bindings::DT_BLK,
    /// Regular file type.
    Reg = bindings::DT_REG,
    /// Symbolic link type.
    Lnk = bindings::DT_LNK,
    /// Named unix-domain socket type.
    Sock = bindings::DT_SOCK,
    /// White-out type.
    Wht = bindings::DT_WHT,
}

impl From<crate::fs::inode::FileType> for DirEntryType {
    fn from(value: crate::fs::inode::FileType) -> Self {
        use crate::fs::inode::FileType;
        match value {
            FileType::Dir => DirEntryType::Dir,
            FileType::Reg => DirEntryType::Reg,
            FileType::Lnk => DirEntryType::Lnk,
            FileType::Fifo => DirEntryType::Fifo,
            FileType::Chr(_) => DirEntryType::Chr,
            FileType::Blk(_) => DirEntryType::Blk,
            FileType::Sock => DirEntryType::Sock,
        }
    }
}

/// Directory entry emitter: wraps the kernel's `struct dir_context`.
///
/// Given to [`FileOperations::read_dir`], which reports entries starting at [`DirEmitter::pos`].
#[repr(transparent)]
pub struct DirEmitter(bindings::dir_context);

impl DirEmitter {
    /// Returns the current position of the reader (`ctx->pos`).
    #[inline]
    pub fn pos(&self) -> Offset {
        self.0.pos
    }

    /// Sets the position of the reader, e.g. to skip an unused record.
    #[inline]
    pub fn set_pos(&mut self, pos: Offset) {
        self.0.pos = pos;
    }

    /// Emits a directory entry (`dir_emit`).
    ///
    /// On success the position is advanced by `pos_inc`. Returns `false` when the entry could
    /// not be emitted, typically because the user buffer is full; the caller must then stop and
    /// leave the position where it is, so the next call resumes with this entry.
    #[inline]
    pub fn emit(&mut self, pos_inc: Offset, name: &[u8], ino: u64, etype: DirEntryType) -> bool {
        // SAFETY: `name` is valid for reads of `name.len()` bytes during the call.
        unsafe { self.emit_raw(pos_inc, name.as_ptr(), name.len(), ino, etype) }
    }

    /// Emits a directory entry whose name is the `len` bytes at `name`: see [`Self::emit`].
    ///
    /// # Safety
    ///
    /// `name` must be valid for reads of `len` bytes during the call. The bytes are read only by
    /// C (the `filldir` actor), so they may change while they are read.
    #[inline]
    pub(crate) unsafe fn emit_raw(
        &mut self,
        pos_inc: Offset,
        name: *const u8,
        len: usize,
        ino: u64,
        etype: DirEntryType,
    ) -> bool {
        let Ok(name_len) = i32::try_from(len) else {
            return false;
        };
        let Some(new_pos) = self.0.pos.checked_add(pos_inc) else {
            return false;
        };
        let Some(actor) = self.0.actor else {
            return false;
        };
        // `dir_emit` is a static inline function: call the actor as it does, without a helper
        // (this runs once per directory entry).
        let dt_mask = bindings::S_DT_MASK | self.0.dt_flags_mask;
        let pos = self.0.pos;
        // SAFETY: `self.0` is a valid `dir_context` (the VFS passed it to `iterate_shared`) whose
        // `actor` takes these arguments, and `name` is valid for `name_len` bytes during the call
        // (safety requirements).
        let ret = unsafe {
            actor(
                &mut self.0,
                name.cast(),
                name_len,
                pos,
                ino,
                etype as u32 & dt_mask,
            )
        };
        if ret {
            self.0.pos = new_pos;
        }
        ret
    }
}

/// How `fsync(2)` and `fdatasync(2)` are served: the `fsync` of `struct file_operations`, one of
/// the C library's.
#[derive(Copy, Clone, PartialEq, Eq)]
pub enum Fsync {
    /// No `fsync`: the calls fail with `EINVAL`.
    Unsupported,
    /// `noop_fsync`: nothing to write, success (in-memory file systems).
    Noop,
    /// `simple_fsync`: writes the dirty pages, the inode if it is dirty, and flushes the device's
    /// write cache (ext2's).
    Simple,
}

impl Fsync {
    #[inline]
    const fn callback(
        self,
    ) -> Option<unsafe extern "C" fn(*mut bindings::file, i64, i64, c_int) -> c_int> {
        match self {
            Fsync::Unsupported => None,
            Fsync::Noop => Some(bindings::noop_fsync),
            Fsync::Simple => Some(bindings::simple_fsync),
        }
    }
}

/// Operations of open files: the Rust side of `struct file_operations`.
///
/// The tables the bindings build use the generic C helpers for what is not implemented: for
/// directories (implementations of [`FileOperations::read_dir`]) `generic_file_llseek` and
/// `generic_read_dir`; for other files `generic_file_llseek`, `generic_file_read_iter`,
/// `filemap_splice_read` and the read-only mmap, which read through the page cache and hence the
/// inode's [`AddressSpaceOperations`](crate::fs::address_space::AddressSpaceOperations); their
/// opens go through `generic_file_open` (files over 2 GiB need `O_LARGEFILE`).
#[vtable]
pub trait FileOperations {
    /// The file system that the files belong to.
    type FileSystem: FileSystem;

    /// How `fsync(2)` and `fdatasync(2)` are served (by default they fail with `EINVAL`).
    const FSYNC: Fsync = Fsync::Unsupported;

    /// Whether `F_SETLEASE` grants leases, through `generic_setlease` (by default it fails with
    /// `EINVAL`, as for C tables without `setlease`).
    const LEASES: bool = false;

    // patch: iomap
    /// Direct I/O reads for regular files: with it, files can be opened with `O_DIRECT` and
    /// their direct reads go to iomap (see [`iomap::DirectIo`]).
    const DIRECT_IO: Option<iomap::DirectIo<Self::FileSystem>> = None;
    // patch: end
    // patch: write

    /// Whether regular files are written through the page cache: `write_iter` is
    /// `generic_file_write_iter` (under the inode's `i_rwsem`, with the inode's
    /// [`write_begin`](crate::fs::address_space::AddressSpaceOperations::write_begin) and
    /// [`write_end`](crate::fs::address_space::AddressSpaceOperations::write_end), which it
    /// must implement:
    /// [`SuperBlock::iget`](crate::fs::sb::SuperBlock::iget) refuses an inode whose address
    /// space cannot be written) and `splice_write` `iter_file_splice_write`. With
    /// [`FileOperations::DIRECT_IO`], `O_DIRECT` writes go through the page cache and are written
    /// and dropped from it before the call returns (C's `direct_write_fallback`). Files are
    /// mapped as C's `generic_file_mmap_prepare` maps them, shared writable mappings included:
    /// their page faults only dirty the folios (`filemap_page_mkwrite`), whose blocks writeback
    /// must then allocate
    /// ([`mpage_writepages_alloc`](crate::fs::address_space::mpage_writepages_alloc)).
    const WRITE: bool = false;
    // patch: end

    /// Reads directory entries from directory `file` (`iterate_shared`), starting at
    /// [`DirEmitter::pos`].
    fn read_dir(_file: &File<Self::FileSystem>, _emitter: &mut DirEmitter) -> Result {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }

    /// Handles `ioctl(2)` command `cmd` on `file` (`unlocked_ioctl`), after the VFS's own
    /// (`FS_IOC_GETFLAGS`, `FIBMAP`, ...). `arg` is what user space passed, often an address:
    /// use [`UserSlice`](crate::uaccess::UserSlice) to read or write there. Return `ENOTTY` for
    /// commands the file system does not know.
    fn ioctl(_file: &File<Self::FileSystem>, _cmd: u32, _arg: usize) -> Result<i32> {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }

    /// Handles `ioctl(2)` command `cmd` of a 32-bit process on `file` (`compat_ioctl`, set only
    /// with `CONFIG_COMPAT`): for commands whose number or argument differs for 32-bit callers.
    /// `arg` is already widened (`compat_ptr` is the identity on the architectures with
    /// `CONFIG_COMPAT`). Return `ENOIOCTLCMD` for commands the VFS should handle as
    /// incompatible.
    fn compat_ioctl(_file: &File<Self::FileSystem>, _cmd: u32, _arg: usize) -> Result<i32> {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }
    // patch: write

    /// Called when the last reference to `file` goes (`release`: all its descriptors closed,
    /// its mappings gone), for a regular file's table; what it returns is ignored, as by the
    /// VFS. Such as `ext2_release_file`, which drops the inode's reservation window when a
    /// writer closes the file.
    fn release(_file: &File<Self::FileSystem>) {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }
    // patch: end
}

/// The `struct file_operations` of a [`FileOperations`] implementation `U` of file system `T`,
/// built at compile time.
pub(crate) struct FileOperationsVTable<T: FileSystem, U: ?Sized>(
    PhantomData<T>,
    PhantomData<*const U>,
);

impl<T: FileSystem, U: FileOperations<FileSystem = T> + ?Sized> FileOperationsVTable<T, U> {
    const VTABLE: bindings::file_operations = if U::HAS_READ_DIR {
        bindings::file_operations {
            llseek: Some(bindings::generic_file_llseek),
            read: Some(bindings::generic_read_dir),
            iterate_shared: Some(Self::read_dir_callback),
            unlocked_ioctl: Self::IOCTL,
            compat_ioctl: Self::COMPAT_IOCTL,
            fsync: U::FSYNC.callback(),
            setlease: Self::SETLEASE,
            ..pin_init::zeroed()
        }
    } else {
        bindings::file_operations {
            llseek: Some(bindings::generic_file_llseek),
            // patch: !iomap
            // read_iter: Some(bindings::generic_file_read_iter),
            // patch: end
            // patch: iomap
            read_iter: if U::DIRECT_IO.is_some() {
                Some(Self::read_iter_callback)
            } else {
                Some(bindings::generic_file_read_iter)
            },
            open: if U::DIRECT_IO.is_some() {
                Some(Self::open_callback)
            } else {
                Some(bindings::generic_file_open)
            },
            // patch: end
            // patch: !iomap
            // open: Some(bindings::generic_file_open),
            // patch: end
            splice_read: Some(bindings::filemap_splice_read),
            // patch: write
            write_iter: if U::WRITE {
                Some(Self::write_iter_callback)
            } else {
                None
            },
            splice_write: if U::WRITE {
                Some(bindings::iter_file_splice_write)
            } else {
                None
            },
            // patch: end
            // patch: !write
            // mmap_prepare: Some(bindings::generic_file_readonly_mmap_prepare),
            // patch: end
            // patch: write
            mmap_prepare: if U::WRITE {
                Some(bindings::generic_file_mmap_prepare)
            } else {
                Some(bindings::generic_file_readonly_mmap_prepare)
            },
            release: if U::HAS_RELEASE {
                Some(Self::release_callback)
            } else {
                None
            },
            // patch: end
            unlocked_ioctl: Self::IOCTL,
            compat_ioctl: Self::COMPAT_IOCTL,
            fsync: U::FSYNC.callback(),
            setlease: Self::SETLEASE,
            ..pin_init::zeroed()
        }
    };

    const SETLEASE: Option<
        unsafe extern "C" fn(
            *mut bindings::file,
            c_int,
            *mut *mut bindings::file_lease,
            *mut *mut c_void,
        ) -> c_int,
    > = if U::LEASES {
        Some(bindings::generic_setlease)
    } else {
        None
    };

    const IOCTL: Option<unsafe extern "C" fn(*mut bindings::file, c_uint, c_ulong) -> c_long> =
        if U::HAS_IOCTL {
            Some(Self::ioctl_callback::<false>)
        } else {
            None
        };

    // patch: iomap
    /// # Safety
    ///
    /// `open` of `struct file_operations`: `file` is a file being opened.
    unsafe extern "C" fn open_callback(
        inode: *mut bindings::inode,
        file: *mut bindings::file,
    ) -> c_int {
        // SAFETY: `inode` and `file` are valid: the file is being opened on the inode.
        let ret = unsafe { bindings::generic_file_open(inode, file) };
        if ret != 0 {
            return ret;
        }
        // Only tables with `DIRECT_IO` have this callback: direct reads are served.
        // SAFETY: The file is being opened, not shared yet, so nothing else writes
        // `f_mode`.
        unsafe { (*file).f_mode |= bindings::FMODE_CAN_ODIRECT };
        0
    }

    /// # Safety
    ///
    /// `read_iter` of `struct file_operations`: `iocb` and `to` are valid for the call,
    /// on a file opened on an inode of `T`.
    unsafe extern "C" fn read_iter_callback(
        iocb: *mut bindings::kiocb,
        to: *mut bindings::iov_iter,
    ) -> isize {
        // SAFETY: `iocb` is valid.
        let direct = unsafe { (*iocb).ki_flags } & bindings::IOCB_DIRECT as c_int != 0;
        match U::DIRECT_IO {
            // SAFETY: The arguments are valid, on a file of an inode of `T`.
            Some(dio) if direct => unsafe { dio.read(iocb, to) },
            // SAFETY: The arguments are valid.
            _ => unsafe { bindings::generic_file_read_iter(iocb, to) },
        }
    }
    // patch: end
    // patch: write

    /// # Safety
    ///
    /// `release` of `struct file_operations`: `file` is a valid file opened on an inode of
    /// `T`, whose last reference is being dropped.
    unsafe extern "C" fn release_callback(
        _inode: *mut bindings::inode,
        file: *mut bindings::file,
    ) -> c_int {
        // SAFETY: The VFS calls this with the file valid for the call (`__fput`), opened on an
        // inode that got this table, hence of `T`.
        U::release(unsafe { File::<T>::from_raw(file) });
        0
    }

    /// # Safety
    ///
    /// `write_iter` of `struct file_operations`: `iocb` and `from` are valid for the call, on a
    /// file opened on an inode of `T`.
    unsafe extern "C" fn write_iter_callback(
        iocb: *mut bindings::kiocb,
        from: *mut bindings::iov_iter,
    ) -> isize {
        let direct = bindings::IOCB_DIRECT as c_int;
        // SAFETY: `iocb` is valid, and ours to change for the call.
        let flags = unsafe { (*iocb).ki_flags };
        if flags & direct == 0 || U::DIRECT_IO.is_none() {
            // SAFETY: The arguments are valid; the inode's address space has `write_begin` and
            // `write_end` (`NewINode::init` checked it for tables with `write_iter`).
            return unsafe { bindings::generic_file_write_iter(iocb, from) };
        }
        // patch: end
        // patch: diow
        match U::DIRECT_IO {
            // SAFETY: The arguments are valid, a direct write on a file of an inode of `T`.
            Some(dio) if dio.writes() => return unsafe { dio.write(iocb, from) },
            _ => {}
        }
        // patch: end
        // patch: write
        // A direct write through the page cache: written as a buffered one, then the range
        // written to the device and dropped from the page cache (`direct_write_fallback`, as C
        // ext2 does where iomap gives up, with nothing written directly).
        // SAFETY: As above; the flag is restored for the caller. `direct_write_fallback` gets
        // the request after the buffered write of `ret` bytes ending at `ki_pos`.
        unsafe {
            (*iocb).ki_flags = flags & !direct;
            let ret = bindings::generic_file_write_iter(iocb, from);
            (*iocb).ki_flags = flags;
            if ret <= 0 {
                return ret;
            }
            bindings::direct_write_fallback(iocb, from, 0, ret)
        }
    }
    // patch: end

    const COMPAT_IOCTL: Option<
        unsafe extern "C" fn(*mut bindings::file, c_uint, c_ulong) -> c_long,
    > = if cfg!(CONFIG_COMPAT) && U::HAS_COMPAT_IOCTL {
        Some(Self::ioctl_callback::<true>)
    } else {
        None
    };

    /// # Safety
    ///
    /// `unlocked_ioctl` (`COMPAT` false) or `compat_ioctl` (`COMPAT` true) of
    /// `struct file_operations`: `file` is a valid file opened on an inode of `T`.
    unsafe extern "C" fn ioctl_callback<const COMPAT: bool>(
        file: *mut bindings::file,
        cmd: c_uint,
        arg: c_ulong,
    ) -> c_long {
        // SAFETY: The C API guarantees that `file` is valid for the duration of the
        // call, opened on an inode that got this table, hence of file system `T`.
        let file = unsafe { File::<T>::from_raw(file) };
        let r = if COMPAT {
            U::compat_ioctl(file, cmd, arg)
        } else {
            U::ioctl(file, cmd, arg)
        };
        match r {
            Ok(r) => r as c_long,
            Err(e) => e.to_errno() as c_long,
        }
    }

    /// # Safety
    ///
    /// `iterate_shared` of `struct file_operations`: `file` is a valid file opened on a
    /// directory of `T` and `ctx_ptr` a valid `dir_context` used only by this call.
    unsafe extern "C" fn read_dir_callback(
        file: *mut bindings::file,
        ctx_ptr: *mut bindings::dir_context,
    ) -> c_int {
        from_result(|| {
            // SAFETY: The C API guarantees that `file` is valid for the duration of the
            // call, opened on an inode that got this table, hence of file system `T`.
            let file = unsafe { File::<T>::from_raw(file) };
            // SAFETY: The C API guarantees that this is the only reference to the
            // `dir_context` instance during the call.
            let emitter = unsafe { &mut *ctx_ptr.cast::<DirEmitter>() };
            U::read_dir(file, emitter)?;
            Ok(0)
        })
    }

    /// Returns the table.
    #[inline]
    pub(crate) const fn build() -> &'static bindings::file_operations {
        &Self::VTABLE
    }
}

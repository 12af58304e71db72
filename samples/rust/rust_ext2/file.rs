// SPDX-License-Identifier: GPL-2.0

//! Regular files (`fs/ext2/file.c`): read through the page cache or, with `O_DIRECT`, iomap,
//! written through the page cache, and the ext2 ioctls.

use crate::ext2::Ext2Fs;
use kernel::fs::file::{File, FileOperations, Fsync};
use kernel::fs::iomap::DirectIo;
use kernel::prelude::*;

/// `ext2_file_operations`: buffered writes, `O_DIRECT` reads and writes through iomap, shared
/// writable mappings (blocks allocated at writeback).
pub(crate) struct FileFops;

#[vtable]
impl FileOperations for FileFops {
    type FileSystem = Ext2Fs;
    const FSYNC: Fsync = Fsync::Simple;
    const LEASES: bool = true;
    /// `ext2_dio_read_iter`, `ext2_dio_write_iter`.
    const DIRECT_IO: Option<DirectIo<Ext2Fs>> =
        Some(DirectIo::new_writing::<crate::inode::Mapper>());
    /// `generic_file_write_iter`, `iter_file_splice_write`.
    const WRITE: bool = true;

    /// `ext2_release_file`: a writer's last close gives up the inode's reservation window.
    fn release(file: &File<Ext2Fs>) {
        if file.is_writable() {
            crate::inode::discard_reservation(file.inode());
        }
    }

    fn ioctl(file: &File<Ext2Fs>, cmd: u32, arg: usize) -> Result<i32> {
        crate::ioctl::ioctl(file, cmd, arg)
    }

    fn compat_ioctl(file: &File<Ext2Fs>, cmd: u32, arg: usize) -> Result<i32> {
        crate::ioctl::compat_ioctl(file, cmd, arg)
    }
}

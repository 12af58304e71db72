// SPDX-License-Identifier: GPL-2.0

//! The ext2 ioctls (`fs/ext2/ioctl.c`); `FS_IOC_GETFLAGS` and `FS_IOC_FSGETXATTR` are the
//! VFS's, from `fileattr_get`.

use crate::ext2::mnt;
use crate::ext2::Ext2Fs;
use kernel::fs::file::File;
use kernel::fs::inode::Timespec;
use kernel::ioctl::{_IOR, _IOW};
use kernel::prelude::*;
use kernel::uaccess::{UserPtr, UserSlice};

/// `EXT2_IOC_GETVERSION` (`FS_IOC_GETVERSION`).
const GETVERSION: u32 = _IOR::<c_long>(b'v' as u32, 1);
/// `EXT2_IOC_SETVERSION` (`FS_IOC_SETVERSION`).
const SETVERSION: u32 = _IOW::<c_long>(b'v' as u32, 2);
/// `EXT2_IOC_GETRSVSZ`.
const GETRSVSZ: u32 = _IOR::<c_long>(b'f' as u32, 5);
/// `EXT2_IOC_SETRSVSZ`.
const SETRSVSZ: u32 = _IOW::<c_long>(b'f' as u32, 6);

/// `EXT2_IOC32_GETVERSION`: the same call with an `int` in the number.
const GETVERSION32: u32 = _IOR::<i32>(b'v' as u32, 1);
/// `EXT2_IOC32_SETVERSION`.
const SETVERSION32: u32 = _IOW::<i32>(b'v' as u32, 2);

/// `ext2_compat_ioctl`: the two commands whose number has a `long` in it, for 32-bit callers.
pub(crate) fn compat_ioctl(file: &File<Ext2Fs>, cmd: u32, arg: usize) -> Result<i32> {
    let cmd = match cmd {
        GETVERSION32 => GETVERSION,
        SETVERSION32 => SETVERSION,
        _ => return Err(ENOIOCTLCMD),
    };
    ioctl(file, cmd, arg)
}

/// `ext2_ioctl`.
pub(crate) fn ioctl(file: &File<Ext2Fs>, cmd: u32, arg: usize) -> Result<i32> {
    let inode = file.inode();
    // Both take an `int`.
    let user = || UserSlice::new(UserPtr::from_addr(arg), size_of::<i32>());
    let reservation = inode.super_block().data().test_opt(mnt::RESERVATION);
    match cmd {
        GETVERSION => {
            user().writer().write(&inode.generation())?;
            Ok(0)
        }
        SETVERSION if !inode.owner_or_capable() => Err(EPERM),
        SETVERSION => {
            let _write = file.want_write()?;
            let generation: i32 = user().reader().read()?;
            inode.with_lock(|locked| {
                locked.set_ctime(Timespec::now());
                locked.set_generation(generation as u32);
            });
            inode.mark_dirty();
            Ok(0)
        }
        // Reservation windows exist only once a regular file was written.
        GETRSVSZ if !reservation || !inode.data().is_reg() => Err(ENOTTY),
        GETRSVSZ => {
            let info = crate::ext2::Ext2InodeWriter::of(inode)
                .truncate_mutex
                .lock();
            let size = info.rsv.as_ref().map(|r| i32::from(r.goal_size));
            drop(info);
            user().writer().write(&size.ok_or(ENOTTY)?)?;
            Ok(0)
        }
        SETRSVSZ if !reservation || !inode.data().is_reg() => Err(ENOTTY),
        SETRSVSZ if !inode.owner_or_capable() => Err(EACCES),
        SETRSVSZ => {
            // C reads an `int` into an `unsigned short`.
            let size = user().reader().read::<i32>()? as u16;
            let _write = file.want_write()?;
            let size = size.min(crate::balloc::MAX_RESERVE_BLOCKS);
            let mut info = crate::ext2::Ext2InodeWriter::of(inode)
                .truncate_mutex
                .lock();
            // `ext2_init_block_alloc_info` first, if the file has not been written.
            info.rsv.get_or_insert_with(Default::default).goal_size = size;
            Ok(0)
        }
        _ => Err(ENOTTY),
    }
}

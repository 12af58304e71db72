// SPDX-License-Identifier: GPL-2.0

//! Inode types and modes, device numbers and times.
//!
//! C headers: [`include/linux/fs.h`](srctree/include/linux/fs.h),
//! [`include/uapi/linux/stat.h`](srctree/include/uapi/linux/stat.h)

use crate::{bindings, prelude::*};

/// The type of an inode.
#[derive(Copy, Clone, PartialEq, Eq)]
pub enum FileType {
    /// Directory.
    Dir,
    /// Regular file.
    Reg,
    /// Symbolic link.
    Lnk,
    /// Named pipe (first-in, first-out).
    Fifo,
    /// Character device, with its device number.
    Chr(Dev),
    /// Block device, with its device number.
    Blk(Dev),
    /// Unix-domain socket.
    Sock,
}

impl FileType {
    pub(super) fn mode_bits(self) -> u32 {
        match self {
            FileType::Dir => bindings::S_IFDIR,
            FileType::Reg => bindings::S_IFREG,
            FileType::Lnk => bindings::S_IFLNK,
            FileType::Fifo => bindings::S_IFIFO,
            FileType::Chr(_) => bindings::S_IFCHR,
            FileType::Blk(_) => bindings::S_IFBLK,
            FileType::Sock => bindings::S_IFSOCK,
        }
    }
}

/// The file type bits of an inode mode (`S_IF*` of `include/uapi/linux/stat.h`), for file
/// systems whose on-disk modes use the Linux encoding.
pub mod mode {
    use crate::bindings;

    /// Mask of the file type bits.
    pub const S_IFMT: u16 = bindings::S_IFMT as u16;
    /// Unix-domain socket.
    pub const S_IFSOCK: u16 = bindings::S_IFSOCK as u16;
    /// Symbolic link.
    pub const S_IFLNK: u16 = bindings::S_IFLNK as u16;
    /// Regular file.
    pub const S_IFREG: u16 = bindings::S_IFREG as u16;
    /// Block device.
    pub const S_IFBLK: u16 = bindings::S_IFBLK as u16;
    /// Directory.
    pub const S_IFDIR: u16 = bindings::S_IFDIR as u16;
    /// Character device.
    pub const S_IFCHR: u16 = bindings::S_IFCHR as u16;
    /// Named pipe.
    pub const S_IFIFO: u16 = bindings::S_IFIFO as u16;
}

/// A device number, as major and minor numbers.
///
/// # Examples
///
/// The two on-disk encodings of Linux file systems (`old_decode_dev`, `new_decode_dev`):
///
/// ```
/// use kernel::fs::inode::Dev;
///
/// let old = Dev::from_old(0x0801);
/// assert!(old.major == 8 && old.minor == 1);
/// // New encoding: minor bits 0-7 and 20-31, major bits 8-19.
/// let new = Dev::from_new(0x1234_5678);
/// assert!(new.major == 0x456 && new.minor == 0x12378);
/// assert!(Dev::from_new(0x0801) == Dev::from_old(0x0801));
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Default)]
pub struct Dev {
    /// Major number (12 bits in the kernel's `dev_t`).
    pub major: u32,
    /// Minor number (20 bits in the kernel's `dev_t`).
    pub minor: u32,
}

impl Dev {
    /// Decodes the old 16-bit encoding of a device number (`old_decode_dev`).
    #[inline]
    pub fn from_old(val: u16) -> Self {
        Dev {
            major: u32::from(val >> 8) & 0xff,
            minor: u32::from(val) & 0xff,
        }
    }

    /// Decodes the new 32-bit encoding of a device number (`new_decode_dev`).
    #[inline]
    pub fn from_new(val: u32) -> Self {
        Dev {
            major: (val & 0xfff00) >> 8,
            minor: (val & 0xff) | ((val >> 12) & 0xfff00),
        }
    }

    #[inline]
    pub(super) fn to_kdev(self) -> bindings::dev_t {
        ((self.major & 0xfff) << 20) | (self.minor & 0xfffff)
    }

    // patch: ns
    /// Decodes the kernel's `dev_t` (`MAJOR`, `MINOR`).
    #[inline]
    pub(super) fn from_kdev(dev: bindings::dev_t) -> Self {
        Dev {
            major: dev >> 20,
            minor: dev & 0xfffff,
        }
    }
    // patch: end

    // patch: iwrite
    /// Encodes the device number in the old 16-bit encoding (`old_encode_dev`), if it fits
    /// (`old_valid_dev`).
    #[inline]
    pub fn to_old(self) -> Option<u16> {
        let (major, minor) = (self.major & 0xfff, self.minor & 0xfffff);
        if major < 256 && minor < 256 {
            Some(((major << 8) | minor) as u16)
        } else {
            None
        }
    }

    /// Encodes the device number in the new 32-bit encoding (`new_encode_dev`).
    #[inline]
    pub fn to_new(self) -> u32 {
        let (major, minor) = (self.major & 0xfff, self.minor & 0xfffff);
        (minor & 0xff) | (major << 8) | ((minor & !0xff) << 12)
    }
    // patch: end
}

// patch: iwrite
/// The user id stored where only 16 bits fit (`fs_high2lowuid`): ids above 65535 become the
/// overflow id (`/proc/sys/fs/overflowuid`).
#[inline]
pub fn high2low_uid(uid: u32) -> u16 {
    // SAFETY: `fs_overflowuid` is a kernel global written only by its sysctl; a volatile read
    // sees a whole value.
    let overflow = unsafe { core::ptr::read_volatile(&raw const bindings::fs_overflowuid) };
    u16::try_from(uid).unwrap_or(overflow as u16)
}

/// The group id stored where only 16 bits fit (`fs_high2lowgid`).
#[inline]
pub fn high2low_gid(gid: u32) -> u16 {
    // SAFETY: As in `high2low_uid`, for `fs_overflowgid`.
    let overflow = unsafe { core::ptr::read_volatile(&raw const bindings::fs_overflowgid) };
    u16::try_from(gid).unwrap_or(overflow as u16)
}
// patch: end

/// A timestamp: seconds and nanoseconds since the epoch.
#[derive(Copy, Clone, PartialEq, Eq, Default)]
pub struct Timespec {
    /// Seconds (may be negative, before 1970).
    pub secs: i64,
    /// Nanoseconds, below one billion (more are carried into the seconds when the time is
    /// stored in an inode).
    pub nsecs: u32,
}

impl Timespec {
    /// The same time with the nanoseconds below one billion: the whole seconds in them are
    /// carried into the seconds (saturating), as the VFS expects of `i_*time_nsec`.
    #[inline]
    pub(super) fn normalized(self) -> Self {
        const NSEC_PER_SEC: u32 = 1_000_000_000;
        Self {
            secs: self
                .secs
                .saturating_add(i64::from(self.nsecs / NSEC_PER_SEC)),
            nsecs: self.nsecs % NSEC_PER_SEC,
        }
    }

    /// The time as the inode's file system keeps it (`timestamp_truncate`: normalised, clamped
    /// to the superblock's time range and cut to its granularity), as `current_time` and
    /// `setattr_copy` give times to inodes: a time kept finer than the file system stores
    /// would change when the inode is read back, and would be out of order with the times the
    /// VFS sets (relatime compares them).
    ///
    /// # Safety
    ///
    /// `inode` is valid and its superblock set.
    #[inline]
    pub(super) unsafe fn truncated(self, inode: *mut bindings::inode) -> bindings::timespec64 {
        let ts = self.normalized();
        let ts = bindings::timespec64 {
            tv_sec: ts.secs,
            // Below one billion (normalised).
            tv_nsec: ts.nsecs as crate::ffi::c_long,
        };
        // SAFETY: `inode` is valid with its superblock set (the caller guarantees it);
        // `timestamp_truncate` only reads the superblock's time range and granularity.
        unsafe { bindings::timestamp_truncate(ts, inode) }
    }
}

/// The Unix epoch, as a [`Timespec`].
pub const UNIX_EPOCH: Timespec = Timespec { secs: 0, nsecs: 0 };

// patch: rw
impl Timespec {
    /// The current wall-clock time as the VFS stamps inodes with it (`current_time`, the
    /// coarse clock `ktime_get_coarse_real_ts64`): times set with it are in order with those
    /// the VFS sets (a chmod right after a create never goes back in time), and its seconds
    /// are what C stamps other metadata with (`ktime_get_real_seconds`).
    #[inline]
    pub fn now() -> Self {
        let mut ts = bindings::timespec64::default();
        // SAFETY: `ts` is valid for write.
        unsafe { bindings::ktime_get_coarse_real_ts64(&mut ts) };
        // The nanoseconds of a `timespec64` the kernel made are below one billion.
        Self {
            secs: ts.tv_sec,
            nsecs: ts.tv_nsec as u32,
        }
    }
}
// patch: end

#[kunit_tests(rust_fs_inode)]
mod tests {
    use super::*;

    #[test]
    fn timespec_normalized() {
        let t = Timespec {
            secs: 5,
            nsecs: 2_500_000_000,
        };
        assert!(
            t.normalized()
                == Timespec {
                    secs: 7,
                    nsecs: 500_000_000
                }
        );
        // Already normal, before 1970.
        let t = Timespec {
            secs: -1,
            nsecs: 999_999_999,
        };
        assert!(t.normalized() == t);
        // The seconds saturate.
        let t = Timespec {
            secs: i64::MAX,
            nsecs: u32::MAX,
        }
        .normalized();
        assert!(t.secs == i64::MAX && t.nsecs == u32::MAX % 1_000_000_000);
    }

    #[test]
    fn dev_to_kdev() {
        // The kernel's `dev_t`: major in bits 20-31, minor in bits 0-19 (`MKDEV`).
        let dev = Dev::from_new(0x1234_5678);
        assert!(dev.to_kdev() == (0x456 << 20) | 0x12378);
        let dev = Dev::from_old(0xffff);
        assert!(dev.to_kdev() == (0xff << 20) | 0xff);
    }

    // patch: iwrite
    #[test]
    fn dev_encodings_round_trip() {
        // `new_encode_dev(new_decode_dev(x)) == x` for every 32-bit `x`, as in C.
        for x in [0u32, 0x1234_5678, 0xffff_ffff, 0x0000_0801] {
            assert!(Dev::from_new(x).to_new() == x);
        }
        assert!(Dev::from_old(0x0801).to_old() == Some(0x0801));
        // Majors or minors above 255 have no old encoding (`old_valid_dev`).
        assert!(Dev::from_new(0x1234_5678).to_old().is_none());
        assert!(Dev::from_new(0x0000_0801).to_old() == Some(0x0801));
    }
    // patch: end
}

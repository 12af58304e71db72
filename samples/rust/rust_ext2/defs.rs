// SPDX-License-Identifier: GPL-2.0

//! The ext2 on-disk format (`fs/ext2/ext2.h`), read from little-endian bytes.
//!
//! Every reader takes a byte slice and an offset and returns zero when the field is not inside
//! the slice: callers check sizes first, and nothing here can fail or panic.

/// Magic number of ext2 superblocks.
pub(crate) const EXT2_SUPER_MAGIC: u16 = 0xEF53;
/// The unit of `sb=` (C's `BLOCK_SIZE`): the primary superblock is at 1 (byte 1024).
pub(crate) const SB_UNIT: u64 = 1024;
/// Size of the superblock structure.
pub(crate) const SB_SIZE: usize = 1024;
/// Revision 0 (fixed inode size and first inode).
pub(crate) const EXT2_GOOD_OLD_REV: u32 = 0;
/// Inode size of revision 0.
pub(crate) const EXT2_GOOD_OLD_INODE_SIZE: u32 = 128;
/// First non-reserved inode of revision 0.
pub(crate) const EXT2_GOOD_OLD_FIRST_INO: u32 = 11;
/// Inode number of the root directory.
pub(crate) const EXT2_ROOT_INO: u64 = 2;
/// Largest `s_log_block_size`: 64 KiB blocks.
pub(crate) const EXT2_MAX_BLOCK_LOG_SIZE: u32 = 16;
/// Longest name in a directory.
pub(crate) const EXT2_NAME_LEN: usize = 255;
/// Number of direct blocks in `i_block`.
pub(crate) const EXT2_NDIR_BLOCKS: usize = 12;
/// Number of block pointers in `i_block`.
pub(crate) const EXT2_N_BLOCKS: usize = 15;
/// Size of a group descriptor.
pub(crate) const GROUP_DESC_SIZE: usize = 32;

/// `s_feature_compat`: the file system has a journal (ext3).
pub(crate) const EXT3_FEATURE_COMPAT_HAS_JOURNAL: u32 = 0x0004;
/// `s_feature_incompat`: directory entries record the file type.
pub(crate) const EXT2_FEATURE_INCOMPAT_FILETYPE: u32 = 0x0002;
/// `s_feature_incompat`: meta block groups.
pub(crate) const EXT2_FEATURE_INCOMPAT_META_BG: u32 = 0x0010;
/// `s_feature_incompat` features this driver supports.
pub(crate) const EXT2_FEATURE_INCOMPAT_SUPP: u32 =
    EXT2_FEATURE_INCOMPAT_FILETYPE | EXT2_FEATURE_INCOMPAT_META_BG;
/// `s_feature_ro_compat`: only some groups have superblock backups.
pub(crate) const EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER: u32 = 0x0001;
/// `s_default_mount_opts`: the options a mount has unless told otherwise (`EXT2_DEFM_*`).
pub(crate) const EXT2_DEFM_DEBUG: u32 = 0x0001;
pub(crate) const EXT2_DEFM_BSDGROUPS: u32 = 0x0002;
pub(crate) const EXT2_DEFM_XATTR_USER: u32 = 0x0004;
pub(crate) const EXT2_DEFM_ACL: u32 = 0x0008;
pub(crate) const EXT2_DEFM_UID16: u32 = 0x0010;
/// `s_errors`: what to do on errors (`EXT2_ERRORS_*`).
pub(crate) const EXT2_ERRORS_CONTINUE: u16 = 1;
pub(crate) const EXT2_ERRORS_PANIC: u16 = 3;
/// `s_def_resuid`, `s_def_resgid` that show no option (`EXT2_DEF_RESUID`, `EXT2_DEF_RESGID`).
pub(crate) const EXT2_DEF_RESID: u16 = 0;

/// Mount options (`EXT2_MOUNT_*`).
pub(crate) mod mnt {
    pub(crate) const OLDALLOC: u32 = 0x000002;
    pub(crate) const GRPID: u32 = 0x000004;
    pub(crate) const DEBUG: u32 = 0x000008;
    pub(crate) const ERRORS_CONT: u32 = 0x000010;
    pub(crate) const ERRORS_RO: u32 = 0x000020;
    pub(crate) const ERRORS_PANIC: u32 = 0x000040;
    pub(crate) const ERRORS_MASK: u32 = 0x000070;
    pub(crate) const MINIX_DF: u32 = 0x000080;
    pub(crate) const NO_UID32: u32 = 0x000200;
    pub(crate) const XATTR_USER: u32 = 0x004000;
    pub(crate) const POSIX_ACL: u32 = 0x008000;
    pub(crate) const USRQUOTA: u32 = 0x020000;
    pub(crate) const GRPQUOTA: u32 = 0x040000;
    pub(crate) const RESERVATION: u32 = 0x080000;
}

/// Directory entry file types (`EXT2_FT_*`).
pub(crate) const EXT2_FT_REG_FILE: u8 = 1;
pub(crate) const EXT2_FT_DIR: u8 = 2;
pub(crate) const EXT2_FT_CHRDEV: u8 = 3;
pub(crate) const EXT2_FT_BLKDEV: u8 = 4;
pub(crate) const EXT2_FT_FIFO: u8 = 5;
pub(crate) const EXT2_FT_SOCK: u8 = 6;
pub(crate) const EXT2_FT_SYMLINK: u8 = 7;

/// Reads a little-endian `u16` at `off`, or 0 if out of bounds.
pub(crate) fn le16(b: &[u8], off: usize) -> u16 {
    match b.get(off..off.wrapping_add(2)) {
        Some(&[x0, x1]) => u16::from_le_bytes([x0, x1]),
        _ => 0,
    }
}

/// Reads a little-endian `u32` at `off`, or 0 if out of bounds.
pub(crate) fn le32(b: &[u8], off: usize) -> u32 {
    match b.get(off..off.wrapping_add(4)) {
        Some(&[x0, x1, x2, x3]) => u32::from_le_bytes([x0, x1, x2, x3]),
        _ => 0,
    }
}

/// Reads a little-endian `u64` at `off`, or 0 if out of bounds.
pub(crate) fn le64(b: &[u8], off: usize) -> u64 {
    u64::from(le32(b, off)) | (u64::from(le32(b, off.wrapping_add(4))) << 32)
}

/// Reads a byte at `off`, or 0 if out of bounds.
pub(crate) fn byte(b: &[u8], off: usize) -> u8 {
    b.get(off).copied().unwrap_or(0)
}

/// Field offsets of `struct ext2_super_block`.
pub(crate) mod sb {
    pub(crate) const INODES_COUNT: usize = 0;
    pub(crate) const BLOCKS_COUNT: usize = 4;
    pub(crate) const R_BLOCKS_COUNT: usize = 8;
    pub(crate) const FIRST_DATA_BLOCK: usize = 20;
    pub(crate) const LOG_BLOCK_SIZE: usize = 24;
    pub(crate) const LOG_FRAG_SIZE: usize = 28;
    pub(crate) const BLOCKS_PER_GROUP: usize = 32;
    pub(crate) const INODES_PER_GROUP: usize = 40;
    pub(crate) const MAGIC: usize = 56;
    pub(crate) const ERRORS: usize = 60;
    pub(crate) const REV_LEVEL: usize = 76;
    pub(crate) const DEF_RESUID: usize = 80;
    pub(crate) const DEF_RESGID: usize = 82;
    pub(crate) const FIRST_INO: usize = 84;
    pub(crate) const INODE_SIZE: usize = 88;
    pub(crate) const FEATURE_COMPAT: usize = 92;
    pub(crate) const FEATURE_INCOMPAT: usize = 96;
    pub(crate) const FEATURE_RO_COMPAT: usize = 100;
    pub(crate) const UUID: usize = 104;
    pub(crate) const DEFAULT_MOUNT_OPTS: usize = 256;
    pub(crate) const FIRST_META_BG: usize = 260;
}

/// Field offsets of `struct ext2_group_desc`.
pub(crate) mod gd {
    pub(crate) const BLOCK_BITMAP: usize = 0;
    pub(crate) const INODE_BITMAP: usize = 4;
    pub(crate) const INODE_TABLE: usize = 8;
    pub(crate) const FREE_BLOCKS_COUNT: usize = 12;
    pub(crate) const FREE_INODES_COUNT: usize = 14;
}

/// Inode flags (`i_flags`, `EXT2_*_FL`).
pub(crate) mod fl {
    /// Compressed file (`EXT2_COMPR_FL`).
    pub(crate) const COMPR: u32 = 0x0000_0004;
    /// Synchronous updates (`EXT2_SYNC_FL`).
    pub(crate) const SYNC: u32 = 0x0000_0008;
    /// Immutable file (`EXT2_IMMUTABLE_FL`).
    pub(crate) const IMMUTABLE: u32 = 0x0000_0010;
    /// Writes may only append (`EXT2_APPEND_FL`).
    pub(crate) const APPEND: u32 = 0x0000_0020;
    /// Not to be dumped (`EXT2_NODUMP_FL`).
    pub(crate) const NODUMP: u32 = 0x0000_0040;
    /// No access time updates (`EXT2_NOATIME_FL`).
    pub(crate) const NOATIME: u32 = 0x0000_0080;
    /// Synchronous directory changes (`EXT2_DIRSYNC_FL`).
    pub(crate) const DIRSYNC: u32 = 0x0001_0000;
    /// The flags users see (`EXT2_FL_USER_VISIBLE`, `FS_FL_USER_VISIBLE`).
    pub(crate) const USER_VISIBLE: u32 = 0x0003_DFFF;
}

/// Field offsets of `struct ext2_inode`.
pub(crate) mod ino {
    pub(crate) const MODE: usize = 0;
    pub(crate) const UID: usize = 2;
    pub(crate) const SIZE: usize = 4;
    pub(crate) const ATIME: usize = 8;
    pub(crate) const CTIME: usize = 12;
    pub(crate) const MTIME: usize = 16;
    pub(crate) const DTIME: usize = 20;
    pub(crate) const GID: usize = 24;
    pub(crate) const LINKS_COUNT: usize = 26;
    pub(crate) const BLOCKS: usize = 28;
    pub(crate) const FLAGS: usize = 32;
    pub(crate) const BLOCK: usize = 40;
    pub(crate) const GENERATION: usize = 100;
    pub(crate) const FILE_ACL: usize = 104;
    pub(crate) const SIZE_HIGH: usize = 108;
    pub(crate) const UID_HIGH: usize = 120;
    pub(crate) const GID_HIGH: usize = 122;
}

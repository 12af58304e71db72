// SPDX-License-Identifier: GPL-2.0

//! What every part of the file system shares (`fs/ext2/ext2.h`): the on-disk format, as
//! constants and as records read from bytes ([`kernel::on_disk_record!`]), and the in-memory
//! superblock and inode data.

use kernel::fs::buffer::Head;
use kernel::fs::inode::{mode, UncountedINode};
use kernel::fs::ondisk::{Le16, Le32};
use kernel::prelude::*;
use kernel::sync::aref::ARef;
use kernel::sync::atomic::{Atomic, Relaxed};
use kernel::sync::{new_mutex, Mutex, SpinLock};
use kernel::transmute::{AsBytes, FromBytes};

/// Magic number of ext2 superblocks.
pub(crate) const EXT2_SUPER_MAGIC: u16 = 0xEF53;
/// The unit of `sb=` (C's `BLOCK_SIZE`): the primary superblock is at 1 (byte 1024).
pub(crate) const SB_UNIT: u64 = 1024;
/// Size of the superblock structure.
pub(crate) const SB_SIZE: usize = core::mem::size_of::<DiskSuperBlock>();
/// Smallest block size, in powers of 2 (`EXT2_MIN_BLOCK_LOG_SIZE`).
pub(crate) const EXT2_MIN_BLOCK_LOG_SIZE: u32 = 10;
/// Smallest block size (`EXT2_MIN_BLOCK_SIZE`).
pub(crate) const EXT2_MIN_BLOCK_SIZE: i32 = 1 << EXT2_MIN_BLOCK_LOG_SIZE;
/// Revision 0 (fixed inode size and first inode).
pub(crate) const EXT2_GOOD_OLD_REV: u32 = 0;
/// Inode size of revision 0: `struct ext2_inode`.
pub(crate) const EXT2_GOOD_OLD_INODE_SIZE: u32 = core::mem::size_of::<DiskInode>() as u32;
/// First non-reserved inode of revision 0.
pub(crate) const EXT2_GOOD_OLD_FIRST_INO: u32 = 11;
/// Inode number of the root directory.
pub(crate) const EXT2_ROOT_INO: u64 = 2;
/// Largest `s_log_block_size`: 64 KiB blocks.
pub(crate) const EXT2_MAX_BLOCK_LOG_SIZE: u32 = 16;
/// Longest name in a directory.
pub(crate) const EXT2_NAME_LEN: usize = 255;
/// The largest link count (`EXT2_LINK_MAX`).
pub(crate) const EXT2_LINK_MAX: u32 = 32000;
/// Number of direct blocks in `i_block`.
pub(crate) const EXT2_NDIR_BLOCKS: usize = 12;
/// Number of block pointers in `i_block`.
pub(crate) const EXT2_N_BLOCKS: usize = 15;
/// Size of a group descriptor.
pub(crate) const GROUP_DESC_SIZE: usize = core::mem::size_of::<DiskGroupDesc>();

/// `s_feature_compat`: the file system has a journal (ext3).
pub(crate) const EXT3_FEATURE_COMPAT_HAS_JOURNAL: u32 = 0x0004;
/// `s_feature_compat`: extended attribute blocks (`EXT2_FEATURE_COMPAT_EXT_ATTR`).
pub(crate) const EXT2_FEATURE_COMPAT_EXT_ATTR: u32 = 0x0008;
/// `s_feature_incompat`: directory entries record the file type.
pub(crate) const EXT2_FEATURE_INCOMPAT_FILETYPE: u32 = 0x0002;
/// `s_feature_incompat`: meta block groups.
pub(crate) const EXT2_FEATURE_INCOMPAT_META_BG: u32 = 0x0010;
/// `s_feature_incompat` features this driver supports.
pub(crate) const EXT2_FEATURE_INCOMPAT_SUPP: u32 =
    EXT2_FEATURE_INCOMPAT_FILETYPE | EXT2_FEATURE_INCOMPAT_META_BG;
/// `s_feature_ro_compat`: only some groups have superblock backups.
pub(crate) const EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER: u32 = 0x0001;
/// `s_feature_ro_compat`: files may be larger than 2 GiB.
pub(crate) const EXT2_FEATURE_RO_COMPAT_LARGE_FILE: u32 = 0x0002;
/// `s_feature_ro_compat`: B-tree directories (never used, but C accepts it).
pub(crate) const EXT2_FEATURE_RO_COMPAT_BTREE_DIR: u32 = 0x0004;
/// `s_feature_ro_compat` features this driver can write with.
pub(crate) const EXT2_FEATURE_RO_COMPAT_SUPP: u32 = EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER
    | EXT2_FEATURE_RO_COMPAT_LARGE_FILE
    | EXT2_FEATURE_RO_COMPAT_BTREE_DIR;
/// The newest revision this driver knows (`EXT2_MAX_SUPP_REV`, `EXT2_DYNAMIC_REV`).
pub(crate) const EXT2_MAX_SUPP_REV: u32 = 1;
/// `s_state`: cleanly unmounted.
pub(crate) const EXT2_VALID_FS: u16 = 0x0001;
/// `s_state`: errors detected.
pub(crate) const EXT2_ERROR_FS: u16 = 0x0002;
/// `s_max_mnt_count` given to file systems that have none (`EXT2_DFL_MAX_MNT_COUNT`).
pub(crate) const EXT2_DFL_MAX_MNT_COUNT: u16 = 20;
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
    /// A hashed-index directory (`EXT2_BTREE_FL`, `EXT2_INDEX_FL`), which ext2 does not keep
    /// up: cleared when a directory changes.
    pub(crate) const BTREE: u32 = 0x0000_1000;
    /// The flags users may change (`EXT2_FL_USER_MODIFIABLE`).
    pub(crate) const USER_MODIFIABLE: u32 = 0x0003_80FF;
    /// The flags users see (`EXT2_FL_USER_VISIBLE`, `FS_FL_USER_VISIBLE`).
    pub(crate) const USER_VISIBLE: u32 = 0x0003_DFFF;
    /// What new inodes inherit from their directory (`EXT2_FL_INHERITED`: secure and undelete,
    /// the compression flags, sync, nodump, noatime, journal data, notail, dirsync).
    pub(crate) const INHERITED: u32 = 0x0001_C6CF;
    /// The top of a directory hierarchy (`EXT2_TOPDIR_FL`).
    pub(crate) const TOPDIR: u32 = 0x0002_0000;
    /// What suits a regular file (`EXT2_REG_FLMASK`).
    pub(crate) const REG_FLMASK: u32 = !(DIRSYNC | TOPDIR);
    /// What suits the other non-directories (`EXT2_OTHER_FLMASK`).
    pub(crate) const OTHER_FLMASK: u32 = NODUMP | NOATIME;

    /// The flags of a new inode of type `fmt` whose directory has `dir_flags`
    /// (`ext2_mask_flags` of the inherited ones).
    pub(crate) fn inherit(fmt: u16, dir_flags: u32) -> u32 {
        let flags = dir_flags & INHERITED;
        match fmt {
            kernel::fs::inode::mode::S_IFDIR => flags,
            kernel::fs::inode::mode::S_IFREG => flags & REG_FLMASK,
            _ => flags & OTHER_FLMASK,
        }
    }
}

kernel::on_disk_record! {
    /// The superblock (`struct ext2_super_block`), 1024 bytes at byte 1024 of the device (or
    /// where `sb=` says).
    pub(crate) struct DiskSuperBlock {
        pub(crate) s_inodes_count: Le32,
        pub(crate) s_blocks_count: Le32,
        pub(crate) s_r_blocks_count: Le32,
        pub(crate) s_free_blocks_count: Le32,
        pub(crate) s_free_inodes_count: Le32,
        pub(crate) s_first_data_block: Le32,
        pub(crate) s_log_block_size: Le32,
        pub(crate) s_log_frag_size: Le32,
        pub(crate) s_blocks_per_group: Le32,
        pub(crate) s_frags_per_group: Le32,
        pub(crate) s_inodes_per_group: Le32,
        pub(crate) s_mtime: Le32,
        pub(crate) s_wtime: Le32,
        pub(crate) s_mnt_count: Le16,
        pub(crate) s_max_mnt_count: Le16,
        pub(crate) s_magic: Le16,
        pub(crate) s_state: Le16,
        pub(crate) s_errors: Le16,
        pub(crate) s_minor_rev_level: Le16,
        pub(crate) s_lastcheck: Le32,
        pub(crate) s_checkinterval: Le32,
        pub(crate) s_creator_os: Le32,
        pub(crate) s_rev_level: Le32,
        pub(crate) s_def_resuid: Le16,
        pub(crate) s_def_resgid: Le16,
        pub(crate) s_first_ino: Le32,
        pub(crate) s_inode_size: Le16,
        pub(crate) s_block_group_nr: Le16,
        pub(crate) s_feature_compat: Le32,
        pub(crate) s_feature_incompat: Le32,
        pub(crate) s_feature_ro_compat: Le32,
        pub(crate) s_uuid: [u8; 16],
        pub(crate) s_volume_name: [u8; 16],
        pub(crate) s_last_mounted: [u8; 64],
        pub(crate) s_algorithm_usage_bitmap: Le32,
        pub(crate) s_prealloc_blocks: u8,
        pub(crate) s_prealloc_dir_blocks: u8,
        pub(crate) s_padding1: Le16,
        pub(crate) s_journal_uuid: [u8; 16],
        pub(crate) s_journal_inum: Le32,
        pub(crate) s_journal_dev: Le32,
        pub(crate) s_last_orphan: Le32,
        pub(crate) s_hash_seed: [Le32; 4],
        pub(crate) s_def_hash_version: u8,
        pub(crate) s_reserved_char_pad: u8,
        pub(crate) s_reserved_word_pad: Le16,
        pub(crate) s_default_mount_opts: Le32,
        pub(crate) s_first_meta_bg: Le32,
        pub(crate) s_reserved: [Le32; 190],
    }

    /// A block group descriptor (`struct ext2_group_desc`).
    pub(crate) struct DiskGroupDesc {
        pub(crate) bg_block_bitmap: Le32,
        pub(crate) bg_inode_bitmap: Le32,
        pub(crate) bg_inode_table: Le32,
        pub(crate) bg_free_blocks_count: Le16,
        pub(crate) bg_free_inodes_count: Le16,
        pub(crate) bg_used_dirs_count: Le16,
        pub(crate) bg_pad: Le16,
        pub(crate) bg_reserved: [Le32; 3],
    }

    /// An inode of the inode table (`struct ext2_inode`, with Linux's `osd2`); inodes larger
    /// than revision 0's 128 bytes have more after it, which ext2 does not read.
    pub(crate) struct DiskInode {
        pub(crate) i_mode: Le16,
        pub(crate) i_uid: Le16,
        pub(crate) i_size: Le32,
        pub(crate) i_atime: Le32,
        pub(crate) i_ctime: Le32,
        pub(crate) i_mtime: Le32,
        pub(crate) i_dtime: Le32,
        pub(crate) i_gid: Le16,
        pub(crate) i_links_count: Le16,
        pub(crate) i_blocks: Le32,
        pub(crate) i_flags: Le32,
        pub(crate) l_i_reserved1: Le32,
        /// Block numbers, or the target of a fast symlink.
        pub(crate) i_block: [Le32; EXT2_N_BLOCKS],
        pub(crate) i_generation: Le32,
        pub(crate) i_file_acl: Le32,
        /// The high 32 bits of the size of regular files (`i_dir_acl`).
        pub(crate) i_size_high: Le32,
        pub(crate) i_faddr: Le32,
        pub(crate) l_i_frag: u8,
        pub(crate) l_i_fsize: u8,
        pub(crate) i_pad1: Le16,
        pub(crate) l_i_uid_high: Le16,
        pub(crate) l_i_gid_high: Le16,
        pub(crate) l_i_reserved2: Le32,
    }

    /// The header of a directory entry (`struct ext2_dir_entry_2`); the name follows it.
    pub(crate) struct DiskDirEntry {
        pub(crate) inode: Le32,
        pub(crate) rec_len: Le16,
        pub(crate) name_len: u8,
        pub(crate) file_type: u8,
    }

    /// The header of an extended attribute block (`struct ext2_xattr_header`).
    pub(crate) struct XattrHeader {
        pub(crate) h_magic: Le32,
        pub(crate) h_refcount: Le32,
        pub(crate) h_blocks: Le32,
        pub(crate) h_hash: Le32,
        pub(crate) h_reserved: [Le32; 4],
    }

    /// An entry of an extended attribute block (`struct ext2_xattr_entry`); the name follows it,
    /// padded to 4 bytes.
    pub(crate) struct XattrEntry {
        pub(crate) e_name_len: u8,
        pub(crate) e_name_index: u8,
        pub(crate) e_value_offs: Le16,
        pub(crate) e_value_block: Le32,
        pub(crate) e_value_size: Le32,
        pub(crate) e_hash: Le32,
    }

    /// The header of an ACL as stored in an xattr value (`ext2_acl_header`).
    pub(crate) struct AclHeader {
        pub(crate) a_version: Le32,
    }

    /// An ACL entry with an id (`ext2_acl_entry`: named users and groups).
    pub(crate) struct AclEntry {
        pub(crate) e_tag: Le16,
        pub(crate) e_perm: Le16,
        pub(crate) e_id: Le32,
    }

    /// An ACL entry without an id (`ext2_acl_entry_short`).
    pub(crate) struct AclEntryShort {
        pub(crate) e_tag: Le16,
        pub(crate) e_perm: Le16,
    }
}

/// The ext2 file system type.
pub(crate) struct Ext2Fs;

/// What a block group descriptor says that does not change once mounted (checked at mount
/// time); the counts are read from the descriptor's buffer ([`Ext2Sb::group_desc`]).
pub(crate) struct GroupDesc {
    pub(crate) block_bitmap: u32,
    pub(crate) inode_bitmap: u32,
    pub(crate) inode_table: u32,
}

/// How many locks serialise the changes of group descriptors and bitmaps, group `g` under lock
/// `g % BGL_LOCKS` (C's `NR_BG_LOCKS` for 32 CPUs or more, `sb_bgl_lock`).
pub(crate) const BGL_LOCKS: usize = 128;

/// Per-superblock data (`struct ext2_sb_info`).
pub(crate) struct Ext2Sb {
    pub(crate) block_size: u32,
    pub(crate) blocksize_bits: u8,
    pub(crate) inodes_count: u32,
    pub(crate) blocks_count: u32,
    pub(crate) r_blocks_count: u32,
    pub(crate) first_data_block: u32,
    pub(crate) inodes_per_group: u32,
    pub(crate) inode_size: u32,
    pub(crate) first_ino: u32,
    pub(crate) feature_incompat: u32,
    /// `EXT2_MOUNT_*` (`s_mount_opt`); a remount changes them.
    pub(crate) mount_opt: Atomic<u32>,
    pub(crate) resuid: Atomic<u32>,
    pub(crate) resgid: Atomic<u32>,
    /// Where the superblock was read, in 1 KiB units (`sb=`).
    pub(crate) sb_block: u32,
    pub(crate) def_mount_opts: u32,
    pub(crate) def_resuid: u16,
    pub(crate) def_resgid: u16,
    pub(crate) errors: u16,
    pub(crate) uuid: [u8; 16],
    pub(crate) groups: KVec<GroupDesc>,
    /// The buffers of the group descriptor blocks (`s_group_desc`), `desc_per_block`
    /// descriptors each.
    pub(crate) gd_bh: KVec<ARef<Head>>,
    pub(crate) desc_per_block: u32,
    /// Blocks used by the superblock copies, group descriptors, bitmaps and inode tables.
    pub(crate) overhead: u64,
    /// The buffer of the superblock (`s_sbh`), which read-write mounts write.
    pub(crate) sbh: ARef<Head>,
    /// Where the superblock is in `sbh`.
    pub(crate) sb_offset: usize,
    /// `s_state` when the file system was mounted read-write (`s_mount_state`), written back
    /// at umount and remount read-only.
    pub(crate) mount_state: Atomic<u32>,
    /// `s_feature_ro_compat`.
    pub(crate) feature_ro_compat: u32,
    /// Free blocks, as the group descriptors count them (`s_freeblocks_counter`): set when the
    /// root is made, changed with the descriptors' counts.
    pub(crate) free_blocks: Atomic<i64>,
    /// Free inodes (`s_freeinodes_counter`) and directories (`s_dirs_counter`), as the group
    /// descriptors count them: set when the root is made, changed with the descriptors'
    /// counts; Orlov's allocator reads them.
    pub(crate) free_inodes: Atomic<i64>,
    pub(crate) dirs: Atomic<i64>,
    /// Per group, how many more directories than other inodes were allocated there lately,
    /// 0 to 255 (`s_debts`), changed under the group's lock ([`Ext2Sb::bgl`]).
    pub(crate) debts: KVec<Atomic<u32>>,
    /// Serialises the writes of the superblock's fields (`s_lock`).
    pub(crate) s_lock: Pin<KBox<SpinLock<()>>>,
    /// The xattr blocks that inodes may share, by hash (`s_ea_block_cache`).
    pub(crate) ea_block_cache: kernel::fs::mbcache::MbCache,
    /// The reservation windows of the regular files being written, start to end
    /// (`s_rsv_window_root` under `s_rsv_window_lock`).
    pub(crate) rsv_windows: Pin<KBox<SpinLock<crate::balloc::RsvTree>>>,
    pub(crate) blocks_per_group: u32,
    /// Inode table blocks per group (`s_itb_per_group`).
    pub(crate) itb_per_group: u32,
    /// The per-group locks (`s_blockgroup_lock`): see [`Ext2Sb::bgl`].
    pub(crate) bgl: Pin<KBox<[SpinLock<()>; BGL_LOCKS]>>,
    /// The generation of the next new inode (`s_next_generation`), random at mount.
    pub(crate) next_generation: Atomic<u32>,
}

impl Ext2Sb {
    /// The lock of group `g`'s descriptor counts and bitmaps (`sb_bgl_lock`).
    pub(crate) fn bgl(&self, g: u32) -> &SpinLock<()> {
        &self.bgl[(g as usize) % BGL_LOCKS]
    }

    /// Writes the descriptor of group `g` into its buffer and marks the buffer dirty; the
    /// caller holds the group's lock ([`Ext2Sb::bgl`]).
    pub(crate) fn set_group_desc(&self, g: u32, d: &DiskGroupDesc) -> Result {
        let (bh, at) = self.group_desc_place(g)?;
        bh.write_record(at, d)
    }

    /// Marks the buffer of group `g`'s descriptor dirty.
    pub(crate) fn group_desc_dirty(&self, g: u32) -> Result {
        self.group_desc_place(g)?.0.mark_dirty()
    }

    /// The buffer that holds group `g`'s descriptor, and the descriptor's offset in it.
    fn group_desc_place(&self, g: u32) -> Result<(&Head, usize)> {
        let bh = g
            .checked_div(self.desc_per_block)
            .and_then(|b| self.gd_bh.get(b as usize))
            .ok_or(EIO)?;
        let at = g.checked_rem(self.desc_per_block).ok_or(EIO)? as usize;
        Ok((bh, at.saturating_mul(GROUP_DESC_SIZE)))
    }

    /// Returns the descriptor of group `g` as its buffer has it now (`ext2_get_group_desc`).
    pub(crate) fn group_desc(&self, g: u32) -> Result<DiskGroupDesc> {
        let (bh, at) = self.group_desc_place(g)?;
        let mut raw = [0u8; GROUP_DESC_SIZE];
        bh.read(at, &mut raw)?;
        DiskGroupDesc::from_bytes_copy(&raw).ok_or(EIO)
    }

    /// Returns the free blocks and inodes of all groups, from their descriptors
    /// (`ext2_count_free_blocks`, `ext2_count_free_inodes`).
    pub(crate) fn count_free(&self) -> Result<(u64, u64)> {
        let (mut blocks, mut inodes) = (0u64, 0u64);
        for g in 0..self.groups.len() {
            let d = self.group_desc(u32::try_from(g)?)?;
            // At most 2^32 groups of 16-bit counts: the sums stay below 2^48.
            blocks = blocks.saturating_add(d.bg_free_blocks_count.get().into());
            inodes = inodes.saturating_add(d.bg_free_inodes_count.get().into());
        }
        Ok((blocks, inodes))
    }

    /// Returns the directories of all groups, from their descriptors (`ext2_count_dirs`).
    pub(crate) fn count_dirs(&self) -> Result<u64> {
        let mut dirs = 0u64;
        for g in 0..self.groups.len() {
            let d = self.group_desc(u32::try_from(g)?)?;
            dirs = dirs.saturating_add(d.bg_used_dirs_count.get().into());
        }
        Ok(dirs)
    }

    /// Returns field `R` of the superblock at `offset` in `struct ext2_super_block` (`field`
    /// names it, for its type: see [`es_get!`]), as the buffer has it now.
    pub(crate) fn es_field<R: FromBytes + AsBytes + Default>(
        &self,
        offset: usize,
        _field: fn(&DiskSuperBlock) -> &R,
    ) -> Result<R> {
        let mut v = R::default();
        self.sbh
            .read(self.sb_offset.saturating_add(offset), v.as_bytes_mut())?;
        Ok(v)
    }

    /// Writes field `v` of the superblock at `offset` in `struct ext2_super_block` (see
    /// [`es_set!`]); the caller holds `s_lock` and marks the buffer dirty.
    pub(crate) fn es_set_field<R: AsBytes>(
        &self,
        offset: usize,
        _field: fn(&DiskSuperBlock) -> &R,
        v: &R,
    ) -> Result {
        self.sbh
            .write_record(self.sb_offset.saturating_add(offset), v)
    }

    /// Whether mount option `opt` (`EXT2_MOUNT_*`) is set (`test_opt`).
    pub(crate) fn test_opt(&self, opt: u32) -> bool {
        self.mount_opt.load(Relaxed) & opt != 0
    }

    /// Whether `user.` attributes are served (`user_xattr`).
    pub(crate) fn user_xattr(&self) -> bool {
        self.test_opt(mnt::XATTR_USER)
    }

    /// Whether directory entries carry the file type.
    pub(crate) fn has_filetype(&self) -> bool {
        self.feature_incompat & EXT2_FEATURE_INCOMPAT_FILETYPE != 0
    }
}

/// Per-inode data (`struct ext2_inode_info`).
pub(crate) struct Ext2Inode {
    /// `i_block` (`i_data`): block numbers, a device number or a fast symlink's target.
    pub(crate) data: IData,
    /// The extended attribute block, or 0 (`i_file_acl`), changed under the writer state's
    /// `xattr_sem`.
    pub(crate) file_acl: Atomic<u32>,
    /// `i_blocks`, in 512-byte units.
    pub(crate) blocks: u32,
    /// The type bits of `i_mode`.
    pub(crate) mode: u16,
    /// `i_flags`: the on-disk inode flags (`EXT2_*_FL`), changed by `fileattr_set` under the
    /// inode's `i_rwsem`.
    pub(crate) flags: Atomic<u32>,
    /// For directories: the page where the last lookup found its name, where the next one starts
    /// (`i_dir_start_lookup`).
    pub(crate) dir_start_lookup: Atomic<u64>,
    /// The group of the inode (`i_block_group`), where its blocks are sought first.
    pub(crate) block_group: u32,
    /// `i_dtime`: the deletion time, as read, and set when an unlinked inode is evicted.
    pub(crate) dtime: Atomic<u32>,
    /// `EXT2_STATE_NEW`: a new inode, whose first write clears its place in the inode table.
    pub(crate) state_new: Atomic<bool>,
}

/// Per-inode state of writers (the part of `struct ext2_inode_info` that `truncate_mutex`
/// guards), reached only by those who write the inode.
#[pin_data]
pub(crate) struct Ext2InodeWriter {
    /// `truncate_mutex`: serialises the block allocations of the inode (buffered writes,
    /// writeback of shared writable mappings, directories growing) with each other and with
    /// truncate, and guards where the next allocation goes.
    #[pin]
    pub(crate) truncate_mutex: Mutex<AllocInfo>,
    /// `xattr_sem`: serialises the readers and writers of the inode's extended attributes
    /// (its xattr block, changed in place while only this inode uses it, and `file_acl`).
    #[pin]
    pub(crate) xattr_sem: Mutex<()>,
}

impl Ext2InodeWriter {
    /// A new inode's writer state (`init_once`'s `mutex_init`), no allocation made yet.
    pub(crate) fn new() -> impl PinInit<Self, Error> {
        try_pin_init!(Self {
            truncate_mutex <- new_mutex!(AllocInfo::default(), "ext2_inode::truncate_mutex"),
            xattr_sem <- new_mutex!((), "ext2_inode::xattr_sem"),
        })
    }

    /// The writer state of `inode`.
    pub(crate) fn of(inode: &UncountedINode<Ext2Fs>) -> &Self {
        inode.writer_state().get_ref()
    }
}

/// `struct ext2_block_alloc_info`: for regular files, the logical block allocated last and its
/// device block (0: none yet), where the next allocation goes if it follows
/// (`last_alloc_logical_block`, `last_alloc_physical_block`), and the reservation window, made
/// with the first allocation (`i_block_alloc_info` is allocated then: until then `None`).
#[derive(Default)]
pub(crate) struct AllocInfo {
    pub(crate) last_alloc_logical: u64,
    pub(crate) last_alloc_physical: u32,
    pub(crate) rsv: Option<crate::balloc::Rsv>,
}

/// What `i_block` holds (`i_data`).
pub(crate) enum IData {
    /// Direct, indirect, double and triple indirect block numbers (or, for a device, its
    /// number): read without a lock by the block mappers, changed by truncate under the inode's
    /// locks, as C's `i_data` (whose readers check what they read, `verify_chain`).
    Blocks([Atomic<u32>; EXT2_N_BLOCKS]),
    /// A fast symlink's target, NUL-terminated (`nd_terminate_link`), as its on-disk bytes.
    Link([u8; 4 * EXT2_N_BLOCKS]),
}

impl IData {
    /// Entry `i` of the block array (0 for a fast symlink, or beyond the array).
    pub(crate) fn block(&self, i: usize) -> u32 {
        match self {
            Self::Blocks(b) => b.get(i).map_or(0, |b| b.load(Relaxed)),
            Self::Link(_) => 0,
        }
    }

    /// Sets entry `i` of the block array (nothing for a fast symlink, or beyond the array).
    pub(crate) fn set_block(&self, i: usize, v: u32) {
        if let Self::Blocks(b) = self {
            if let Some(b) = b.get(i) {
                b.store(v, Relaxed);
            }
        }
    }

    /// The on-disk `i_block`.
    pub(crate) fn to_disk(&self) -> [Le32; EXT2_N_BLOCKS] {
        match self {
            Self::Blocks(b) => core::array::from_fn(|i| Le32::new(b[i].load(Relaxed))),
            Self::Link(bytes) => {
                let mut raw = [Le32::default(); EXT2_N_BLOCKS];
                for (r, c) in raw.iter_mut().zip(bytes.chunks_exact(4)) {
                    *r = Le32::new(c.try_into().map_or(0, u32::from_le_bytes));
                }
                raw
            }
        }
    }
}

impl Ext2Inode {
    /// Whether this is a directory.
    pub(crate) fn is_dir(&self) -> bool {
        self.mode & mode::S_IFMT == mode::S_IFDIR
    }

    /// Whether this is a regular file.
    pub(crate) fn is_reg(&self) -> bool {
        self.mode & mode::S_IFMT == mode::S_IFREG
    }

    /// Whether a symbolic link with these `i_blocks` and `i_file_acl` keeps its target in
    /// `i_block` (`ext2_inode_is_fast_symlink`): it has no blocks but its xattr block.
    pub(crate) fn fast_symlink(blocks: u32, file_acl: u32, block_size: u32) -> bool {
        let ea_blocks = if file_acl != 0 { block_size >> 9 } else { 0 };
        blocks.wrapping_sub(ea_blocks) == 0
    }

    /// Whether this inode is a fast symbolic link: read as one (see
    /// [`Ext2Inode::fast_symlink`]) or made as one, its target in `i_block`. A slow one made
    /// here has no block yet when it is set up, so its count cannot tell.
    pub(crate) fn is_fast_symlink(&self) -> bool {
        matches!(self.data, IData::Link(_))
    }
}

/// Reads a field of the on-disk superblock (`es->FIELD`): `es_get!(sbi, s_state)`.
macro_rules! es_get {
    ($s:expr, $f:ident) => {
        $s.es_field(
            core::mem::offset_of!($crate::ext2::DiskSuperBlock, $f),
            |es: &$crate::ext2::DiskSuperBlock| &es.$f,
        )
    };
}
pub(crate) use es_get;

/// Writes a field of the on-disk superblock (`es->FIELD = v`), with `s_lock` held:
/// `es_set!(sbi, s_state, Le16::new(state))`.
macro_rules! es_set {
    ($s:expr, $f:ident, $v:expr) => {
        $s.es_set_field(
            core::mem::offset_of!($crate::ext2::DiskSuperBlock, $f),
            |es: &$crate::ext2::DiskSuperBlock| &es.$f,
            &$v,
        )
    };
}
pub(crate) use es_set;

// SPDX-License-Identifier: GPL-2.0

//! Superblock: mount-time checks, group descriptors and statfs (`fs/ext2/super.c`).

use crate::ext2::{
    self, es_get, es_set, mnt, DiskGroupDesc, DiskSuperBlock, Ext2Fs, Ext2Inode, Ext2InodeWriter,
    Ext2Sb, GroupDesc,
};
use crate::{inode, xattr};
use kernel::fs::buffer::Head;
use kernel::fs::dentry::{self, DEntry};
use kernel::fs::export::ExportOperations;
use kernel::fs::inode::{Evicting, INode, Timespec, UncountedINode, WritebackControl};
use kernel::fs::ondisk::{Le16, Le32, Le64};
use kernel::fs::param::{self, Constant, Constants, Param, Spec, Value};
use kernel::fs::sb::{self, SuperBlock, SuperOperations};
use kernel::new_spinlock;
use kernel::prelude::*;
use kernel::seq_file::{seq_print, SeqFile};
use kernel::sync::aref::ARef;
use kernel::sync::atomic::{Atomic, Relaxed};
use kernel::transmute::FromBytes;

/// Whether group `group` has a superblock backup with sparse superblocks (`ext2_group_sparse`).
fn group_sparse(group: u32) -> bool {
    // `b` is 3, 5 or 7: the division and remainder cannot fail.
    #[allow(clippy::arithmetic_side_effects)]
    fn test_root(mut a: u32, b: u32) -> bool {
        loop {
            if a < b {
                return a == 1;
            }
            if a % b != 0 {
                return false;
            }
            a /= b;
        }
    }
    group <= 1 || test_root(group, 3) || test_root(group, 5) || test_root(group, 7)
}

/// Largest file size for a block size of `1 << bits` (`ext2_max_size`).
///
/// `bits` is 10 to 16 (checked by `fill_super`): `ppb` is at most 2^14, `ppb^3` and every
/// intermediate value below 2^43, and the result below 2^63, as in C with 64-bit `loff_t`.
#[allow(clippy::arithmetic_side_effects)]
fn max_size(bits: u8) -> i64 {
    let bits = i64::from(bits);
    let ppb: i64 = 1 << (bits - 2);
    let mut upper_limit: i64 = (1i64 << 32) - 1;
    upper_limit >>= bits - 9;
    let mut res: i64 = ext2::EXT2_NDIR_BLOCKS as i64;
    res += 1i64 << (bits - 2);
    res += 1i64 << (2 * (bits - 2));
    res += 1i64 << (3 * (bits - 2));
    let mut meta_blocks: i64 = 1 + (1 + ppb) + (1 + ppb + ppb * ppb);
    if res + meta_blocks > upper_limit {
        res = upper_limit;
        upper_limit -= ext2::EXT2_NDIR_BLOCKS as i64;
        meta_blocks = 1;
        upper_limit -= ppb;
        if upper_limit < ppb * ppb {
            meta_blocks += 1 + (upper_limit + ppb - 1) / ppb;
        } else {
            meta_blocks += 1 + ppb;
            upper_limit -= ppb * ppb;
            meta_blocks +=
                1 + (upper_limit + ppb - 1) / ppb + (upper_limit + ppb * ppb - 1) / (ppb * ppb);
        }
        res -= meta_blocks;
    }
    res << bits
}

/// Parameter numbers (`Opt_*`).
mod opt {
    pub(super) const BSD_DF: u8 = 0;
    pub(super) const MINIX_DF: u8 = 1;
    pub(super) const GRPID: u8 = 2;
    pub(super) const NOGRPID: u8 = 3;
    pub(super) const RESGID: u8 = 4;
    pub(super) const RESUID: u8 = 5;
    pub(super) const SB: u8 = 6;
    pub(super) const ERRORS: u8 = 7;
    pub(super) const NOUID32: u8 = 8;
    pub(super) const DEBUG: u8 = 9;
    pub(super) const OLDALLOC: u8 = 10;
    pub(super) const ORLOV: u8 = 11;
    pub(super) const NOBH: u8 = 12;
    pub(super) const USER_XATTR: u8 = 13;
    pub(super) const ACL: u8 = 14;
    pub(super) const XIP: u8 = 15;
    pub(super) const DAX: u8 = 16;
    pub(super) const IGNORE: u8 = 17;
    pub(super) const QUOTA: u8 = 18;
    pub(super) const USRQUOTA: u8 = 19;
    pub(super) const GRPQUOTA: u8 = 20;
    pub(super) const RESERVATION: u8 = 21;
}

const ERRORS: Constants = Constants::new(&[
    Constant::new(c"continue", mnt::ERRORS_CONT as i32),
    Constant::new(c"panic", mnt::ERRORS_PANIC as i32),
    Constant::new(c"remount-ro", mnt::ERRORS_RO as i32),
    Constant::END,
]);

/// The mount options of ext2 (`ext2_param_spec`).
const PARAMETERS: param::SpecTable = param::SpecTable::new(&[
    Spec::flag(c"bsddf", opt::BSD_DF),
    Spec::flag(c"minixdf", opt::MINIX_DF),
    Spec::flag(c"grpid", opt::GRPID),
    Spec::flag(c"bsdgroups", opt::GRPID),
    Spec::flag(c"nogrpid", opt::NOGRPID),
    Spec::flag(c"sysvgroups", opt::NOGRPID),
    Spec::gid(c"resgid", opt::RESGID),
    Spec::uid(c"resuid", opt::RESUID),
    Spec::u32(c"sb", opt::SB),
    Spec::enumerated(c"errors", opt::ERRORS, ERRORS),
    Spec::flag(c"nouid32", opt::NOUID32),
    Spec::flag(c"debug", opt::DEBUG),
    Spec::flag(c"oldalloc", opt::OLDALLOC),
    Spec::flag(c"orlov", opt::ORLOV),
    Spec::flag(c"nobh", opt::NOBH),
    Spec::flag_no(c"user_xattr", opt::USER_XATTR),
    Spec::flag_no(c"acl", opt::ACL),
    Spec::flag(c"xip", opt::XIP),
    Spec::flag(c"dax", opt::DAX),
    Spec::flag(c"grpquota", opt::GRPQUOTA),
    Spec::flag(c"noquota", opt::IGNORE),
    Spec::flag(c"quota", opt::QUOTA),
    Spec::flag(c"usrquota", opt::USRQUOTA),
    Spec::flag_no(c"reservation", opt::RESERVATION),
    Spec::END,
]);

/// The options of a mount or remount (`struct ext2_fs_context`): the values of the
/// `EXT2_MOUNT_*` bits and which of them were given.
#[derive(Default)]
pub(crate) struct Ext2Options {
    vals: u32,
    mask: u32,
    resuid: Option<u32>,
    resgid: Option<u32>,
    sb_block: u32,
}

impl Ext2Options {
    fn set(&mut self, opt: u32) {
        self.mask |= opt;
        self.vals |= opt;
    }

    fn clear(&mut self, opt: u32) {
        self.mask |= opt;
        self.vals &= !opt;
    }

    fn set_to(&mut self, opt: u32, on: bool) {
        if on {
            self.set(opt)
        } else {
            self.clear(opt)
        }
    }

    /// The options of a new mount: the defaults of the superblock unless given
    /// (`ext2_set_options`).
    fn mount_opt(&self, def_mount_opts: u32, errors: u16) -> u32 {
        let mut o = self.vals;
        let mut default = |m: u32, defm: u32| {
            if self.mask & m == 0 && def_mount_opts & defm != 0 {
                o |= m;
            }
        };
        default(mnt::DEBUG, ext2::EXT2_DEFM_DEBUG);
        default(mnt::GRPID, ext2::EXT2_DEFM_BSDGROUPS);
        default(mnt::NO_UID32, ext2::EXT2_DEFM_UID16);
        default(mnt::XATTR_USER, ext2::EXT2_DEFM_XATTR_USER);
        if cfg!(CONFIG_FS_POSIX_ACL) {
            default(mnt::POSIX_ACL, ext2::EXT2_DEFM_ACL);
        }
        if self.mask & mnt::ERRORS_MASK == 0 {
            o |= match errors {
                ext2::EXT2_ERRORS_PANIC => mnt::ERRORS_PANIC,
                ext2::EXT2_ERRORS_CONTINUE => mnt::ERRORS_CONT,
                _ => mnt::ERRORS_RO,
            };
        }
        o
    }
}

/// `ext2_error`: logs the error and, on a read-write mount, records it (`EXT2_ERROR_FS` in the
/// state of the mount and of the superblock, written at once), then with `errors=remount-ro`
/// makes the mount read-only. (`errors=panic` does not panic: bad input never crashes the
/// kernel.)
pub(crate) fn error(sb: &SuperBlock<Ext2Fs>, args: core::fmt::Arguments<'_>) {
    let s = sb.data();
    if !sb.rdonly() {
        let recorded = (|| {
            {
                let _g = s.s_lock.lock();
                let state = s.mount_state.load(Relaxed) | u32::from(ext2::EXT2_ERROR_FS);
                s.mount_state.store(state, Relaxed);
                let es_state = es_get!(s, s_state)?.get() | ext2::EXT2_ERROR_FS;
                es_set!(s, s_state, Le16::new(es_state))?;
            }
            sync_super(s, true)
        })();
        if recorded.is_err() {
            pr_err!("error: could not record the error in the superblock\n");
        }
    }
    pr_err!("error: {}\n", args);
    if !sb.rdonly() && s.test_opt(mnt::ERRORS_RO) {
        pr_err!("error: remounting filesystem read-only\n");
        sb.force_read_only();
    }
}

/// `ext2_error(sb, ...)`: see [`error`].
macro_rules! ext2_error {
    ($sb:expr, $($arg:tt)*) => {
        $crate::superblock::error($sb, format_args!($($arg)*))
    };
}
pub(crate) use ext2_error;

/// Logs a mount error like `ext2_msg(sb, KERN_ERR, ...)` and returns `EINVAL`.
macro_rules! mount_err {
    ($($arg:tt)*) => {{
        pr_err!("error: {}\n", format_args!($($arg)*));
        EINVAL
    }};
}

impl kernel::fs::FileSystem for Ext2Fs {
    type Data = Ext2Sb;
    type INodeData = Ext2Inode;
    type INodeWriterState = Ext2InodeWriter;

    fn init_inode_writer_state() -> impl PinInit<Ext2InodeWriter, Error> {
        Ext2InodeWriter::new()
    }

    /// Fast symlink targets are copied to user space from the inode (readlink), as C ext2
    /// whitelists `i_data` (here with the tag of [`ext2::IData`]).
    const INODE_DATA_USERCOPY: Option<(usize, usize)> = Some((
        core::mem::offset_of!(Ext2Inode, data),
        core::mem::size_of::<ext2::IData>(),
    ));
    /// "ext2" with `CONFIG_SAMPLE_RUST_EXT2_AS_EXT2` (C ext2 not built), so that what mounts
    /// "ext2" (fstests with `FSTYP=ext2`) gets this driver.
    const NAME: &'static CStr = if cfg!(CONFIG_SAMPLE_RUST_EXT2_AS_EXT2) {
        c"ext2"
    } else {
        c"rust_ext2"
    };

    /// "ext2" with the module parameter `as_ext2` (loaded into a kernel that kept C ext2 from
    /// registering, `initcall_blacklist=init_ext2_fs`): fstests with `FSTYP=ext2` then tests
    /// this driver, with no other kernel build.
    fn registered_name() -> &'static CStr {
        if crate::module_parameters::as_ext2.value() {
            c"ext2"
        } else {
            Self::NAME
        }
    }

    const BACKING: sb::Backing = sb::Backing::BlockDev;
    /// Read-write mounts keep C's bookkeeping of the superblock (state, mount count, times,
    /// free counts) when the module parameter `writes` is set; without it every mount is
    /// read-only, as before.
    const READ_WRITE: bool = true;
    type SuperOperations = Self;
    type Options = Ext2Options;
    const PARAMETERS: param::SpecTable = PARAMETERS;

    /// A new mount reads the primary superblock, with reservations; a remount starts from
    /// the options of the mount (`ext2_init_fs_context`).
    fn init_options(sb: Option<&SuperBlock<Self>>) -> Result<Ext2Options> {
        let mut o = Ext2Options::default();
        match sb {
            None => {
                o.sb_block = 1;
                o.set(mnt::RESERVATION);
            }
            Some(sb) => {
                let s = sb.data();
                o.vals = s.mount_opt.load(Relaxed);
                o.resuid = Some(s.resuid.load(Relaxed));
                o.resgid = Some(s.resgid.load(Relaxed));
            }
        }
        Ok(o)
    }

    /// `ext2_parse_param`.
    fn parse_param(o: &mut Ext2Options, p: Param<'_>) -> Result {
        let negated = matches!(p.value, Value::Flag(true));
        match (p.opt, p.value) {
            (opt::BSD_DF, _) => o.clear(mnt::MINIX_DF),
            (opt::MINIX_DF, _) => o.set(mnt::MINIX_DF),
            (opt::GRPID, _) => o.set(mnt::GRPID),
            (opt::NOGRPID, _) => o.clear(mnt::GRPID),
            (opt::RESUID, Value::Id(id)) => o.resuid = Some(id),
            (opt::RESGID, Value::Id(id)) => o.resgid = Some(id),
            // Ignored on remount, as in C.
            (opt::SB, Value::U32(n)) => o.sb_block = n,
            (opt::ERRORS, Value::U32(e)) => {
                o.clear(mnt::ERRORS_MASK);
                o.set(e & mnt::ERRORS_MASK);
            }
            (opt::NOUID32, _) => o.set(mnt::NO_UID32),
            (opt::DEBUG, _) => o.set(mnt::DEBUG),
            (opt::OLDALLOC, _) => o.set(mnt::OLDALLOC),
            (opt::ORLOV, _) => o.clear(mnt::OLDALLOC),
            (opt::NOBH, _) => pr_info!("nobh option not supported\n"),
            (opt::USER_XATTR, _) => o.set_to(mnt::XATTR_USER, !negated),
            (opt::ACL, _) if cfg!(CONFIG_FS_POSIX_ACL) => o.set_to(mnt::POSIX_ACL, !negated),
            (opt::ACL, _) => pr_info!("(no)acl options not supported\n"),
            (opt::XIP, _) => pr_warn!("DAX support has been removed. xip option ignored.\n"),
            (opt::DAX, _) => pr_warn!("DAX support has been removed. dax option ignored.\n"),
            (opt::QUOTA | opt::USRQUOTA, _) if cfg!(CONFIG_QUOTA) => o.set(mnt::USRQUOTA),
            (opt::GRPQUOTA, _) if cfg!(CONFIG_QUOTA) => o.set(mnt::GRPQUOTA),
            (opt::QUOTA | opt::USRQUOTA | opt::GRPQUOTA, _) => {
                pr_info!("quota operations not supported\n")
            }
            (opt::RESERVATION, _) => {
                o.set_to(mnt::RESERVATION, !negated);
                pr_info!("reservations {}\n", if negated { "OFF" } else { "ON" });
            }
            (opt::IGNORE, _) => {}
            _ => return Err(EINVAL),
        }
        Ok(())
    }

    /// `ext2_reconfigure`: the superblock stays read-only, the options change.
    /// `ext2_reconfigure`, after the VFS synced the superblock.
    fn reconfigure(sb: &SuperBlock<Self>, o: &Ext2Options, rc: &mut sb::Reconfigure<'_>) -> Result {
        let s = sb.data();
        let want_ro = rc.read_only() || !writes_allowed();
        if want_ro {
            rc.set_read_only();
        }
        if want_ro != sb.rdonly() {
            if want_ro {
                remount_ro(s)?;
            } else {
                let unsupported = s.feature_ro_compat & !ext2::EXT2_FEATURE_RO_COMPAT_SUPP;
                if unsupported != 0 {
                    pr_warn!(
                        "warning: couldn't remount RDWR because of unsupported optional features ({:x}).\n",
                        unsupported
                    );
                    return Err(EROFS);
                }
                // Reread the state: e2fsck may have changed it while the file system was
                // read-only.
                {
                    let _g = s.s_lock.lock();
                    s.mount_state
                        .store(es_get!(s, s_state)?.get().into(), Relaxed);
                }
                if setup_super(s)? {
                    rc.set_read_only();
                } else {
                    // The superblock is still read-only until this returns: write it here.
                    sync_fs(s, true)?;
                }
            }
        }
        s.mount_opt.store(o.vals, Relaxed);
        if let Some(id) = o.resuid {
            s.resuid.store(id, Relaxed);
        }
        if let Some(id) = o.resgid {
            s.resgid.store(id, Relaxed);
        }
        rc.set_posix_acl(o.vals & mnt::POSIX_ACL != 0)
    }

    fn fill_super(
        sb: &mut SuperBlock<Self, sb::New>,
        options: &Ext2Options,
    ) -> Result<sb::SuperParams<Ext2Sb>> {
        let mut blocksize = sb.min_blocksize(ext2::EXT2_MIN_BLOCK_SIZE);
        if blocksize == 0 {
            return Err(mount_err!("unable to set blocksize"));
        }
        sb.set_xattr_handlers(xattr::HANDLERS);
        sb.set_export_ops::<Self>();
        let sb_block = options.sb_block;
        let (mut sbh, mut sb_offset, raw) = read_super(sb, blocksize, sb_block)?;
        let es = disk_super(&raw)?;
        if es.s_magic.get() != ext2::EXT2_SUPER_MAGIC {
            return Err(mount_err!("can't find an ext2 filesystem on dev"));
        }
        let rev = es.s_rev_level.get();
        let incompat = es.s_feature_incompat.get();
        let unsupported = incompat & !ext2::EXT2_FEATURE_INCOMPAT_SUPP;
        if unsupported != 0 {
            return Err(mount_err!(
                "couldn't mount because of unsupported optional features ({:x})",
                unsupported
            ));
        }
        if !writes_allowed() {
            sb.set_read_only();
        }
        let ro_compat = es.s_feature_ro_compat.get();
        let unsupported = ro_compat & !ext2::EXT2_FEATURE_RO_COMPAT_SUPP;
        if !sb.rdonly() && unsupported != 0 {
            return Err(mount_err!(
                "couldn't mount RDWR because of unsupported optional features ({:x})",
                unsupported
            ));
        }
        let log = es.s_log_block_size.get();
        if log > ext2::EXT2_MAX_BLOCK_LOG_SIZE - ext2::EXT2_MIN_BLOCK_LOG_SIZE {
            return Err(mount_err!("Invalid log block size: {}", log));
        }
        let bsize = ext2::EXT2_MIN_BLOCK_SIZE << log;
        let raw = if bsize != blocksize {
            sb.set_blocksize(bsize)
                .map_err(|_| mount_err!("bad blocksize {}", bsize))?;
            blocksize = bsize;
            let (bh, offset, raw) = read_super(sb, blocksize, sb_block)?;
            if disk_super(&raw)?.s_magic.get() != ext2::EXT2_SUPER_MAGIC {
                return Err(mount_err!("magic mismatch"));
            }
            (sbh, sb_offset) = (bh, offset);
            raw
        } else {
            raw
        };
        let es = disk_super(&raw)?;
        let block_size = blocksize as u32;
        let bits = block_size.trailing_zeros() as u8;

        let (inode_size, first_ino) = if rev == ext2::EXT2_GOOD_OLD_REV {
            (
                ext2::EXT2_GOOD_OLD_INODE_SIZE,
                ext2::EXT2_GOOD_OLD_FIRST_INO,
            )
        } else {
            let size = u32::from(es.s_inode_size.get());
            if size < ext2::EXT2_GOOD_OLD_INODE_SIZE || !size.is_power_of_two() || size > block_size
            {
                return Err(mount_err!("unsupported inode size: {}", size));
            }
            (size, es.s_first_ino.get())
        };
        let blocks_per_group = es.s_blocks_per_group.get();
        let inodes_per_group = es.s_inodes_per_group.get();
        let inodes_per_block = block_size.checked_div(inode_size).ok_or(EINVAL)?;
        if inodes_per_group == 0 {
            return Err(mount_err!("can't find an ext2 filesystem on dev"));
        }
        let itb_per_group = inodes_per_group
            .checked_div(inodes_per_block)
            .ok_or(EINVAL)?;
        if es.s_log_frag_size.get() != log {
            return Err(mount_err!("fragsize log != blocksize log {}", bits));
        }
        if blocks_per_group > block_size.saturating_mul(8) {
            return Err(mount_err!(
                "#blocks per group too big: {}",
                blocks_per_group
            ));
        }
        // In `u64`, as C's `unsigned long`: `itb_per_group` comes from the disk and may be near
        // `u32::MAX` (inode size = block size, `s_inodes_per_group` = 0xFFFFFFFD).
        let metadata = u64::from(itb_per_group).saturating_add(3);
        if u64::from(blocks_per_group) <= metadata {
            return Err(mount_err!(
                "#blocks per group smaller than metadata size: {} <= {}",
                blocks_per_group,
                metadata
            ));
        }
        if inodes_per_group < inodes_per_block || inodes_per_group > block_size.saturating_mul(8) {
            return Err(mount_err!(
                "invalid #inodes per group: {}",
                inodes_per_group
            ));
        }
        let blocks_count = es.s_blocks_count.get();
        let dev_blocks = sb.bdev_size() >> bits;
        if dev_blocks < u64::from(blocks_count) {
            return Err(mount_err!(
                "bad geometry: block count {} exceeds size of device ({} blocks)",
                blocks_count,
                dev_blocks
            ));
        }
        let first_data_block = es.s_first_data_block.get();
        if first_data_block >= blocks_count {
            return Err(mount_err!(
                "bad geometry: first data block {}",
                first_data_block
            ));
        }
        // `first_data_block < blocks_count` and `blocks_per_group > 3`: no step can fail.
        let groups_count = blocks_count
            .saturating_sub(first_data_block)
            .saturating_sub(1)
            .checked_div(blocks_per_group)
            .ok_or(EINVAL)?
            .saturating_add(1);
        let inodes_count = es.s_inodes_count.get();
        if u64::from(groups_count).saturating_mul(u64::from(inodes_per_group))
            != u64::from(inodes_count)
        {
            return Err(mount_err!(
                "invalid #inodes: {} vs computed {}",
                inodes_count,
                u64::from(groups_count).saturating_mul(u64::from(inodes_per_group))
            ));
        }
        let sparse = ro_compat & ext2::EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER != 0;
        let desc_per_block = block_size
            .checked_div(ext2::GROUP_DESC_SIZE as u32)
            .ok_or(EINVAL)?;
        let db_count = groups_count.div_ceil(desc_per_block);
        // Where the superblock was read, in blocks (`sb=` in 1 KiB units).
        let logic_sb_block = u64::from(sb_block)
            .saturating_mul(ext2::SB_UNIT)
            .checked_div(u64::from(block_size))
            .ok_or(EINVAL)?;
        let first_meta_bg = es.s_first_meta_bg.get();
        let has_super = |g: u32| u32::from(!sparse || group_sparse(g));

        // Group descriptors (`descriptor_loc`, `ext2_check_descriptors`).
        let mut groups = KVec::with_capacity(groups_count as usize, GFP_KERNEL)?;
        let mut gd_bh = KVec::with_capacity(db_count as usize, GFP_KERNEL)?;
        for i in 0..db_count {
            let block = if incompat & ext2::EXT2_FEATURE_INCOMPAT_META_BG == 0 || i < first_meta_bg
            {
                logic_sb_block
                    .saturating_add(u64::from(i))
                    .saturating_add(1)
            } else {
                // `i < db_count`: `bg` is below `groups_count + desc_per_block`, and the block
                // number below 2^64 (the sums of products of 32-bit numbers).
                let bg = desc_per_block.saturating_mul(i);
                u64::from(first_data_block)
                    .saturating_add(u64::from(bg).saturating_mul(u64::from(blocks_per_group)))
                    .saturating_add(u64::from(has_super(bg)))
            };
            let bh = sb
                .bread(block)
                .map_err(|_| mount_err!("unable to read group descriptors"))?;
            let data = bh.to_vec()?;
            let data = &data[..];
            for j in 0..desc_per_block {
                // Group numbers, offsets and block numbers are computed in 64 bits from
                // 32-bit values: no sum of products of them saturates.
                let g = i.saturating_mul(desc_per_block).saturating_add(j);
                if g >= groups_count {
                    break;
                }
                let off = (j as usize).saturating_mul(ext2::GROUP_DESC_SIZE);
                let gd = data
                    .get(off..)
                    .and_then(DiskGroupDesc::from_bytes_prefix)
                    .ok_or(EIO)?
                    .0;
                let first = u64::from(first_data_block)
                    .saturating_add(u64::from(g).saturating_mul(u64::from(blocks_per_group)));
                let last = if g == groups_count.saturating_sub(1) {
                    u64::from(blocks_count).saturating_sub(1)
                } else {
                    first
                        .saturating_add(u64::from(blocks_per_group))
                        .saturating_sub(1)
                };
                let in_group = |b: u32| u64::from(b) >= first && u64::from(b) <= last;
                let itable = gd.bg_inode_table.get();
                if !in_group(gd.bg_block_bitmap.get())
                    || !in_group(gd.bg_inode_bitmap.get())
                    || !in_group(itable)
                    || u64::from(itable)
                        .saturating_add(u64::from(itb_per_group))
                        .saturating_sub(1)
                        > last
                {
                    return Err(mount_err!("group descriptors corrupted (group {})", g));
                }
                groups.push(
                    GroupDesc {
                        block_bitmap: gd.bg_block_bitmap.get(),
                        inode_bitmap: gd.bg_inode_bitmap.get(),
                        inode_table: itable,
                    },
                    GFP_KERNEL,
                )?;
            }
            gd_bh.push(bh, GFP_KERNEL)?;
        }

        // Overhead, as `ext2_statfs` computes it.
        let mut overhead = u64::from(first_data_block);
        for g in 0..groups_count {
            let s = has_super(g);
            let sb_and_gdt = if s != 0 { u64::from(db_count) } else { 0 };
            overhead = overhead.saturating_add(u64::from(s).saturating_add(sb_and_gdt));
        }
        // `groups_count * inodes_per_group` is `inodes_count` (checked above) and
        // `itb_per_group <= inodes_per_group`: the product is below 2^33, nothing saturates.
        overhead = overhead.saturating_add(
            u64::from(groups_count).saturating_mul(u64::from(itb_per_group).saturating_add(2)),
        );

        let compat = es.s_feature_compat.get();
        if compat & ext2::EXT3_FEATURE_COMPAT_HAS_JOURNAL != 0 {
            pr_warn!("warning: mounting ext3 filesystem as ext2\n");
        }
        // The options given, else the superblock's defaults (`ext2_set_options`).
        let def_mount_opts = es.s_default_mount_opts.get();
        let errors = es.s_errors.get();
        let def_resuid = es.s_def_resuid.get();
        let def_resgid = es.s_def_resgid.get();
        let mount_opt = options.mount_opt(def_mount_opts, errors);
        sb.set_posix_acl(mount_opt & mnt::POSIX_ACL != 0)?;
        // Signed 32-bit seconds on disk.
        sb.set_time_range(i32::MIN.into(), i32::MAX.into())?;
        sb.set_max_links(ext2::EXT2_LINK_MAX);
        // `ext2_setup_super`: a revision this driver does not know is only read.
        if rev > ext2::EXT2_MAX_SUPP_REV {
            pr_err!("error: revision level too high, forcing read-only mode\n");
            sb.set_read_only();
        }
        let mount_state = es.s_state.get();
        let s_lock = KBox::pin_init(new_spinlock!(()), GFP_KERNEL)?;
        // The reservation windows, with the sentinel (`s_rsv_window_head`).
        let mut windows = crate::balloc::RsvTree::new();
        windows.try_create_and_insert(0, 0, GFP_KERNEL)?;
        let rsv_windows = KBox::pin_init(new_spinlock!(windows), GFP_KERNEL)?;
        // `ext2_xattr_create_cache`: 2^10 buckets.
        let ea_block_cache = kernel::fs::mbcache::MbCache::new(10).inspect_err(|_| {
            pr_err!("error: Failed to create ea_block_cache\n");
        })?;
        let mut debts = KVec::with_capacity(groups_count as usize, GFP_KERNEL)?;
        for _ in 0..groups_count {
            debts.push(Atomic::new(0), GFP_KERNEL)?;
        }
        let bgl = KBox::pin_init(
            pin_init::pin_init_array_from_fn(|_| new_spinlock!(())),
            GFP_KERNEL,
        )?;
        Ok(sb::SuperParams {
            magic: ext2::EXT2_SUPER_MAGIC.into(),
            blocksize_bits: bits,
            maxbytes: max_size(bits),
            // Whole seconds, as ext2 stores them (C ext2 keeps alloc_super's
            // default): times kept in memory with nanoseconds would change when
            // the inode is read back (generic/003).
            time_gran: 1_000_000_000,
            data: Ext2Sb {
                block_size,
                blocksize_bits: bits,
                inodes_count,
                blocks_count,
                r_blocks_count: es.s_r_blocks_count.get(),
                first_data_block,
                inodes_per_group,
                inode_size,
                first_ino,
                feature_incompat: incompat,
                mount_opt: Atomic::new(mount_opt),
                resuid: Atomic::new(options.resuid.unwrap_or(def_resuid.into())),
                resgid: Atomic::new(options.resgid.unwrap_or(def_resgid.into())),
                sb_block,
                def_mount_opts,
                def_resuid,
                def_resgid,
                errors,
                uuid: es.s_uuid,
                groups,
                gd_bh,
                desc_per_block,
                overhead,
                sbh,
                sb_offset,
                mount_state: Atomic::new(mount_state.into()),
                feature_ro_compat: ro_compat,
                free_blocks: Atomic::new(0),
                free_inodes: Atomic::new(0),
                dirs: Atomic::new(0),
                debts,
                s_lock,
                ea_block_cache,
                rsv_windows,
                blocks_per_group,
                itb_per_group,
                bgl,
                next_generation: Atomic::new(kernel::fs::inode::random_u32()),
            },
        })
    }

    fn init_root(sb: &SuperBlock<Self>) -> Result<dentry::Root<Self>> {
        let root = inode::iget(sb, ext2::EXT2_ROOT_INO)?;
        if !root.data().is_dir() || root.data().blocks == 0 || root.size() == 0 {
            return Err(mount_err!("corrupt root inode, run e2fsck"));
        }
        let root = dentry::Root::try_new(root)?;
        // `s_freeblocks_counter`, from the descriptors as C's `ext2_fill_super` sets it.
        let s = sb.data();
        // And `s_freeinodes_counter`, `s_dirs_counter`.
        let (free_blocks, free_inodes) = s.count_free()?;
        s.free_blocks
            .store(free_blocks.try_into().unwrap_or(i64::MAX), Relaxed);
        s.free_inodes
            .store(free_inodes.try_into().unwrap_or(i64::MAX), Relaxed);
        s.dirs
            .store(s.count_dirs()?.try_into().unwrap_or(i64::MAX), Relaxed);
        // `ext2_setup_super` and `ext2_write_super`, as C's `ext2_fill_super` ends; the
        // revision was checked in `fill_super`.
        if !sb.rdonly() {
            setup_super(sb.data())?;
            sync_fs(sb.data(), true)?;
        }
        Ok(root)
    }
}

/// Returns the superblock record of the bytes [`read_super`] read.
fn disk_super(raw: &[u8]) -> Result<&DiskSuperBlock> {
    DiskSuperBlock::from_bytes(raw).ok_or(EINVAL)
}

/// Reads the superblock at `sb_block` (in 1 KiB units) with the current block size: its
/// buffer, its offset in the buffer and a copy of it.
fn read_super(
    sb: &SuperBlock<Ext2Fs, sb::New>,
    blocksize: i32,
    sb_block: u32,
) -> Result<(ARef<Head>, usize, KVec<u8>)> {
    let bs = u64::try_from(blocksize)?;
    let at = u64::from(sb_block).saturating_mul(ext2::SB_UNIT);
    let bh = sb
        .bread(at.checked_div(bs).ok_or(EINVAL)?)
        .map_err(|_| mount_err!("unable to read superblock"))?;
    let off = at.checked_rem(bs).ok_or(EINVAL)? as usize;
    let mut v = KVec::from_elem(0u8, ext2::SB_SIZE, GFP_KERNEL)?;
    bh.read(off, &mut v).map_err(|_| EINVAL)?;
    Ok((bh, off, v))
}

/// Whether read-write mounts are allowed (the module parameter `writes`).
fn writes_allowed() -> bool {
    crate::module_parameters::writes.value()
}

/// `ext2_setup_super` for a read-write mount: warns about a file system that needs checking,
/// counts the mount. Returns whether the superblock must stay read-only (never: the revision
/// is checked when the superblock is filled).
fn setup_super(s: &Ext2Sb) -> Result<bool> {
    let _g = s.s_lock.lock();
    // `s_state` is 16 bits wide: the value stored came from it.
    let state = s.mount_state.load(Relaxed) as u16;
    let mnt_count = es_get!(s, s_mnt_count)?.get();
    let max_mnt_count = es_get!(s, s_max_mnt_count)?.get();
    let checkinterval = es_get!(s, s_checkinterval)?.get();
    let lastcheck = es_get!(s, s_lastcheck)?.get();
    if state & ext2::EXT2_VALID_FS == 0 {
        pr_warn!("warning: mounting unchecked fs, running e2fsck is recommended\n");
    } else if state & ext2::EXT2_ERROR_FS != 0 {
        pr_warn!("warning: mounting fs with errors, running e2fsck is recommended\n");
    } else if (max_mnt_count as i16) >= 0 && mnt_count >= max_mnt_count {
        pr_warn!("warning: maximal mount count reached, running e2fsck is recommended\n");
    } else if checkinterval != 0
        && i64::from(lastcheck).saturating_add(i64::from(checkinterval)) <= Timespec::now().secs
    {
        pr_warn!("warning: checktime reached, running e2fsck is recommended\n");
    }
    if max_mnt_count == 0 {
        es_set!(s, s_max_mnt_count, Le16::new(ext2::EXT2_DFL_MAX_MNT_COUNT))?;
    }
    es_set!(s, s_mnt_count, Le16::new(mnt_count.wrapping_add(1)))?;
    Ok(false)
}

/// `ext2_sync_super`: the free counts and the write time into the superblock's buffer, marked
/// dirty, and written if `wait`.
fn sync_super(s: &Ext2Sb, wait: bool) -> Result {
    if s.sbh.clear_write_io_error() {
        pr_err!("error: previous I/O error to superblock detected\n");
    }
    let (free_blocks, free_inodes) = s.count_free()?;
    {
        let _g = s.s_lock.lock();
        // `cpu_to_le32` of C's `unsigned long` counts.
        es_set!(s, s_free_blocks_count, Le32::new(free_blocks as u32))?;
        es_set!(s, s_free_inodes_count, Le32::new(free_inodes as u32))?;
        es_set!(s, s_wtime, Le32::new(Timespec::now().secs as u32))?;
    }
    s.sbh.mark_dirty()?;
    if wait {
        // As C: a failed write is only remembered by the buffer (and reported by the next
        // `sync_super`).
        let _ = s.sbh.sync();
    }
    Ok(())
}

/// `ext2_sync_fs`: a file system that is mounted read-write is not valid on disk (e2fsck
/// checks it if it is not unmounted).
fn sync_fs(s: &Ext2Sb, wait: bool) -> Result {
    {
        let _g = s.s_lock.lock();
        let state = es_get!(s, s_state)?.get();
        if state & ext2::EXT2_VALID_FS != 0 {
            es_set!(s, s_state, Le16::new(state & !ext2::EXT2_VALID_FS))?;
        }
    }
    sync_super(s, wait)
}

/// The state of the mount back in the superblock, written (`ext2_put_super`, a remount
/// read-only and `ext2_freeze`).
fn restore_state(s: &Ext2Sb, mtime: bool) -> Result {
    {
        let _g = s.s_lock.lock();
        es_set!(s, s_state, Le16::new(s.mount_state.load(Relaxed) as u16))?;
        if mtime {
            es_set!(s, s_mtime, Le32::new(Timespec::now().secs as u32))?;
        }
    }
    sync_super(s, true)
}

/// The first file over 2 GiB on a file system without `LARGE_FILE`, or of revision 0
/// (`ext2_write_inode`): the feature set, the revision raised (`ext2_update_dynamic_rev`), the
/// superblock written.
pub(crate) fn large_file(s: &Ext2Sb) -> Result {
    {
        let _g = s.s_lock.lock();
        let ro_compat = es_get!(s, s_feature_ro_compat)?.get();
        let rev = es_get!(s, s_rev_level)?.get();
        if ro_compat & ext2::EXT2_FEATURE_RO_COMPAT_LARGE_FILE != 0
            && rev != ext2::EXT2_GOOD_OLD_REV
        {
            return Ok(());
        }
        update_dynamic_rev(s)?;
        let large = ro_compat | ext2::EXT2_FEATURE_RO_COMPAT_LARGE_FILE;
        es_set!(s, s_feature_ro_compat, Le32::new(large))?;
    }
    sync_super(s, true)
}

/// `ext2_update_dynamic_rev`, under `s_lock`: a revision 0 file system raised to revision 1
/// before a feature flag is set.
fn update_dynamic_rev(s: &Ext2Sb) -> Result {
    if es_get!(s, s_rev_level)?.get() != ext2::EXT2_GOOD_OLD_REV {
        return Ok(());
    }
    pr_warn!(
        "warning: updating to rev {} because of new feature flag, running e2fsck is recommended\n",
        ext2::EXT2_MAX_SUPP_REV
    );
    es_set!(s, s_first_ino, Le32::new(ext2::EXT2_GOOD_OLD_FIRST_INO))?;
    es_set!(
        s,
        s_inode_size,
        Le16::new(ext2::EXT2_GOOD_OLD_INODE_SIZE as u16)
    )?;
    es_set!(s, s_rev_level, Le32::new(ext2::EXT2_MAX_SUPP_REV))
}

/// The first xattr block (`ext2_xattr_update_super_block`): the `EXT_ATTR` feature set (the
/// revision raised first), the superblock's buffer dirty.
pub(crate) fn ext_attr_feature(s: &Ext2Sb) -> Result {
    if es_get!(s, s_feature_compat)?.get() & ext2::EXT2_FEATURE_COMPAT_EXT_ATTR != 0 {
        return Ok(());
    }
    {
        let _g = s.s_lock.lock();
        update_dynamic_rev(s)?;
        let compat = es_get!(s, s_feature_compat)?.get() | ext2::EXT2_FEATURE_COMPAT_EXT_ATTR;
        es_set!(s, s_feature_compat, Le32::new(compat))?;
    }
    s.sbh.mark_dirty()
}

/// The read-write to read-only part of `ext2_reconfigure`: the state of the mount back, if
/// it was valid and the file system was not marked valid since.
fn remount_ro(s: &Ext2Sb) -> Result {
    let state = {
        let _g = s.s_lock.lock();
        es_get!(s, s_state)?.get()
    };
    if state & ext2::EXT2_VALID_FS != 0
        || s.mount_state.load(Relaxed) & u32::from(ext2::EXT2_VALID_FS) == 0
    {
        return Ok(());
    }
    restore_state(s, true)
}

#[vtable]
impl SuperOperations for Ext2Fs {
    type FileSystem = Self;

    /// `ext2_put_super`: a read-write mount leaves the state it found (valid if it was).
    fn put_super(sb: &SuperBlock<Self>) {
        if !sb.rdonly() {
            // As C, which ignores the error too (the device is going away).
            let _ = restore_state(sb.data(), false);
        }
    }

    /// `ext2_sync_fs`.
    fn sync_fs(sb: &SuperBlock<Self>, wait: bool) -> Result {
        sync_fs(sb.data(), wait)
    }

    /// `ext2_write_inode`.
    fn write_inode(inode: &UncountedINode<Self>, wbc: &WritebackControl) -> Result {
        inode::write_inode(inode, wbc)
    }

    /// `ext2_sync_inode_metadata`.
    fn sync_inode_metadata(inode: &UncountedINode<Self>, _wbc: &WritebackControl) -> Result {
        inode::sync_inode_metadata(inode)
    }

    fn evict_inode(inode: &mut Evicting<'_, Self>) {
        inode::evict_inode(inode)
    }

    /// `ext2_freeze`: the file system is valid on disk while frozen.
    fn freeze_fs(sb: &SuperBlock<Self>) -> Result {
        restore_state(sb.data(), false)
    }

    /// `ext2_unfreeze`: mounted read-write again (`ext2_write_super`).
    fn unfreeze_fs(sb: &SuperBlock<Self>) -> Result {
        if !sb.rdonly() {
            sync_fs(sb.data(), true)?;
        }
        Ok(())
    }

    /// `ext2_show_options`: what differs from the superblock's defaults.
    fn show_options(seq: &SeqFile, sb: &SuperBlock<Self>) -> Result {
        let s = sb.data();
        let o = s.mount_opt.load(Relaxed);
        let on = |m: u32| o & m != 0;
        let def = |m: u32| s.def_mount_opts & m != 0;
        let show = |name: &str| seq_print!(seq, ",{}", name);
        if s.sb_block != 1 {
            seq_print!(seq, ",sb={}", s.sb_block);
        }
        if on(mnt::MINIX_DF) {
            show("minixdf");
        }
        if on(mnt::GRPID) {
            show("grpid");
        }
        if !on(mnt::GRPID) && def(ext2::EXT2_DEFM_BSDGROUPS) {
            show("nogrpid");
        }
        let resuid = s.resuid.load(Relaxed);
        if resuid != u32::from(ext2::EXT2_DEF_RESID) || s.def_resuid != ext2::EXT2_DEF_RESID {
            seq_print!(seq, ",resuid={}", resuid);
        }
        let resgid = s.resgid.load(Relaxed);
        if resgid != u32::from(ext2::EXT2_DEF_RESID) || s.def_resgid != ext2::EXT2_DEF_RESID {
            seq_print!(seq, ",resgid={}", resgid);
        }
        if on(mnt::ERRORS_RO)
            && (s.errors == ext2::EXT2_ERRORS_PANIC || s.errors == ext2::EXT2_ERRORS_CONTINUE)
        {
            show("errors=remount-ro");
        }
        for (m, name) in [
            (mnt::ERRORS_CONT, "errors=continue"),
            (mnt::ERRORS_PANIC, "errors=panic"),
            (mnt::NO_UID32, "nouid32"),
            (mnt::DEBUG, "debug"),
            (mnt::OLDALLOC, "oldalloc"),
            (mnt::XATTR_USER, "user_xattr"),
        ] {
            if on(m) {
                show(name);
            }
        }
        if !on(mnt::XATTR_USER) && def(ext2::EXT2_DEFM_XATTR_USER) {
            show("nouser_xattr");
        }
        if cfg!(CONFIG_FS_POSIX_ACL) {
            if on(mnt::POSIX_ACL) {
                show("acl");
            }
            if !on(mnt::POSIX_ACL) && def(ext2::EXT2_DEFM_ACL) {
                show("noacl");
            }
        }
        if on(mnt::USRQUOTA) {
            show("usrquota");
        }
        if on(mnt::GRPQUOTA) {
            show("grpquota");
        }
        if !on(mnt::RESERVATION) {
            show("noreservation");
        }
        Ok(())
    }

    fn statfs(dentry: &DEntry<Self>) -> Result<sb::StatFs> {
        let s = dentry.super_block().data();
        let (bfree, ffree) = s.count_free()?;
        {
            // As C, which keeps the superblock's counts current (not marked dirty).
            let _g = s.s_lock.lock();
            es_set!(s, s_free_blocks_count, Le32::new(bfree as u32))?;
            es_set!(s, s_free_inodes_count, Le32::new(ffree as u32))?;
        }
        let r = u64::from(s.r_blocks_count);
        // The two halves of the UUID, as little-endian numbers (`le64_to_cpup`).
        let id = <[Le64; 2]>::from_bytes(&s.uuid).map_or(0, |[a, b]| a.get() ^ b.get());
        Ok(sb::StatFs {
            magic: ext2::EXT2_SUPER_MAGIC.into(),
            namelen: ext2::EXT2_NAME_LEN as isize,
            bsize: s.block_size as isize,
            // `minixdf` counts the metadata blocks as used, not as missing.
            blocks: if s.test_opt(mnt::MINIX_DF) {
                u64::from(s.blocks_count)
            } else {
                u64::from(s.blocks_count).wrapping_sub(s.overhead)
            },
            bfree,
            bavail: bfree.saturating_sub(r),
            files: s.inodes_count.into(),
            ffree,
            fsid: [id as u32 as i32, (id >> 32) as u32 as i32],
        })
    }
}

/// `ext2_export_ops`: handles with 32-bit inode numbers and generations.
#[vtable]
impl ExportOperations for Ext2Fs {
    type FileSystem = Self;

    /// `ext2_nfs_get_inode`.
    fn get_inode(sb: &SuperBlock<Self>, ino: u64, generation: u32) -> Result<ARef<INode<Self>>> {
        let s = sb.data();
        if (ino < u64::from(s.first_ino) && ino != ext2::EXT2_ROOT_INO)
            || ino > u64::from(s.inodes_count)
        {
            return Err(ESTALE);
        }
        let inode = inode::iget(sb, ino)?;
        if generation != 0 && inode.generation() != generation {
            return Err(ESTALE);
        }
        Ok(inode)
    }

    /// `ext2_get_parent`: the inode of `..`.
    fn get_parent(child: &DEntry<Self>) -> Result<ARef<INode<Self>>> {
        let dir = child.inode().ok_or(ENOENT)?;
        let ino = crate::namei::inode_by_name(dir, b"..")?.ok_or(ENOENT)?;
        inode::iget(dir.super_block(), ino.into())
    }
}

#[kunit_tests(rust_ext2_super)]
mod tests {
    use super::*;

    /// `ext2_max_size` of fs/ext2/super.c for each block size (computed from the C function):
    /// the block tree limits 1 KiB blocks, `i_blocks` (2^32 - 1 sectors) the larger ones.
    #[test]
    fn max_size_as_c() {
        assert_eq!(max_size(10), 17_247_252_480);
        assert_eq!(max_size(11), 275_415_851_008);
        assert_eq!(max_size(12), 2_196_873_666_560);
        assert_eq!(max_size(13), 2_197_948_973_056);
        assert_eq!(max_size(14), 2_198_486_220_800);
        assert_eq!(max_size(15), 2_198_754_754_560);
        assert_eq!(max_size(16), 2_198_888_906_752);
    }

    /// Groups 0 and 1 and the powers of 3, 5 and 7 keep superblock backups (`ext2_group_sparse`).
    #[test]
    fn group_sparse_as_c() {
        for g in [0, 1, 3, 5, 7, 9, 25, 27, 49, 81, 125, 243, 343, 2187] {
            assert!(group_sparse(g));
        }
        for g in [2, 4, 6, 8, 10, 15, 21, 35, 45, 50, 63, 105] {
            assert!(!group_sparse(g));
        }
    }
}

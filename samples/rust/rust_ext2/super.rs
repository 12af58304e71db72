// SPDX-License-Identifier: GPL-2.0

//! Superblock: mount-time checks, group descriptors and statfs (`fs/ext2/super.c`).

use crate::defs::{self, le16, le32};
use crate::{inode, xattr};
use kernel::fs::dentry::{self, DEntry};
use kernel::fs::sb::{self, SuperBlock, SuperOperations};
use kernel::prelude::*;

/// The ext2 file system type.
pub(crate) struct Ext2Fs;

/// A block group descriptor.
pub(crate) struct GroupDesc {
    pub(crate) inode_table: u32,
    pub(crate) free_blocks: u16,
    pub(crate) free_inodes: u16,
}

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
    pub(crate) user_xattr: bool,
    pub(crate) uuid: [u8; 16],
    pub(crate) groups: KVec<GroupDesc>,
    /// Blocks used by the superblock copies, group descriptors, bitmaps and inode tables.
    pub(crate) overhead: u64,
}

impl Ext2Sb {
    /// Whether directory entries carry the file type.
    pub(crate) fn has_filetype(&self) -> bool {
        self.feature_incompat & defs::EXT2_FEATURE_INCOMPAT_FILETYPE != 0
    }
}

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
    let mut res: i64 = defs::EXT2_NDIR_BLOCKS as i64;
    res += 1i64 << (bits - 2);
    res += 1i64 << (2 * (bits - 2));
    res += 1i64 << (3 * (bits - 2));
    let mut meta_blocks: i64 = 1 + (1 + ppb) + (1 + ppb + ppb * ppb);
    if res + meta_blocks > upper_limit {
        res = upper_limit;
        upper_limit -= defs::EXT2_NDIR_BLOCKS as i64;
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

/// Logs a mount error like `ext2_msg(sb, KERN_ERR, ...)` and returns `EINVAL`.
macro_rules! mount_err {
    ($($arg:tt)*) => {{
        pr_err!("error: {}\n", format_args!($($arg)*));
        EINVAL
    }};
}

impl kernel::fs::FileSystem for Ext2Fs {
    type Data = Ext2Sb;
    type INodeData = inode::Ext2Inode;
    /// Fast symlink targets are copied to user space from the inode (readlink), as C ext2
    /// whitelists `i_data`.
    const INODE_DATA_USERCOPY: Option<(usize, usize)> = Some((
        core::mem::offset_of!(inode::Ext2Inode, fast_link),
        core::mem::size_of::<Option<[u8; 4 * defs::EXT2_N_BLOCKS + 1]>>(),
    ));
    /// "ext2" with `CONFIG_SAMPLE_RUST_EXT2_AS_EXT2` (C ext2 not built), so that what mounts
    /// "ext2" (fstests with `FSTYP=ext2`) gets this driver.
    const NAME: &'static CStr = if cfg!(CONFIG_SAMPLE_RUST_EXT2_AS_EXT2) {
        c"ext2"
    } else {
        c"rust_ext2"
    };
    const SUPER_TYPE: sb::Type = sb::Type::BlockDev;
    const SUPER_OPERATIONS: sb::Ops<Self> = sb::Ops::new::<Self>();

    fn fill_super(sb: &mut SuperBlock<Self, sb::New>) -> Result<sb::Params<Ext2Sb>> {
        let mut blocksize = sb.min_blocksize(1024);
        if blocksize == 0 {
            return Err(mount_err!("unable to set blocksize"));
        }
        sb.set_xattr_handlers(xattr::HANDLERS);
        let raw = read_super(sb, blocksize)?;
        if le16(&raw, defs::sb::MAGIC) != defs::EXT2_SUPER_MAGIC {
            return Err(mount_err!("can't find an ext2 filesystem on dev"));
        }
        let rev = le32(&raw, defs::sb::REV_LEVEL);
        let incompat = le32(&raw, defs::sb::FEATURE_INCOMPAT);
        let unsupported = incompat & !defs::EXT2_FEATURE_INCOMPAT_SUPP;
        if unsupported != 0 {
            return Err(mount_err!(
                "couldn't mount because of unsupported optional features ({:x})",
                unsupported
            ));
        }
        let log = le32(&raw, defs::sb::LOG_BLOCK_SIZE);
        if log > defs::EXT2_MAX_BLOCK_LOG_SIZE - 10 {
            return Err(mount_err!("Invalid log block size: {}", log));
        }
        let bsize = 1024i32 << log;
        let raw = if bsize != blocksize {
            sb.set_blocksize(bsize)
                .map_err(|_| mount_err!("bad blocksize {}", bsize))?;
            blocksize = bsize;
            let raw = read_super(sb, blocksize)?;
            if le16(&raw, defs::sb::MAGIC) != defs::EXT2_SUPER_MAGIC {
                return Err(mount_err!("magic mismatch"));
            }
            raw
        } else {
            raw
        };
        let block_size = blocksize as u32;
        let bits = block_size.trailing_zeros() as u8;

        let (inode_size, first_ino) = if rev == defs::EXT2_GOOD_OLD_REV {
            (
                defs::EXT2_GOOD_OLD_INODE_SIZE,
                defs::EXT2_GOOD_OLD_FIRST_INO,
            )
        } else {
            let size = u32::from(le16(&raw, defs::sb::INODE_SIZE));
            if size < defs::EXT2_GOOD_OLD_INODE_SIZE || !size.is_power_of_two() || size > block_size
            {
                return Err(mount_err!("unsupported inode size: {}", size));
            }
            (size, le32(&raw, defs::sb::FIRST_INO))
        };
        let blocks_per_group = le32(&raw, defs::sb::BLOCKS_PER_GROUP);
        let inodes_per_group = le32(&raw, defs::sb::INODES_PER_GROUP);
        let inodes_per_block = block_size.checked_div(inode_size).ok_or(EINVAL)?;
        if inodes_per_group == 0 {
            return Err(mount_err!("can't find an ext2 filesystem on dev"));
        }
        let itb_per_group = inodes_per_group
            .checked_div(inodes_per_block)
            .ok_or(EINVAL)?;
        if le32(&raw, defs::sb::LOG_FRAG_SIZE) != log {
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
        let blocks_count = le32(&raw, defs::sb::BLOCKS_COUNT);
        let dev_blocks = sb.bdev_size() >> bits;
        if dev_blocks < u64::from(blocks_count) {
            return Err(mount_err!(
                "bad geometry: block count {} exceeds size of device ({} blocks)",
                blocks_count,
                dev_blocks
            ));
        }
        let first_data_block = le32(&raw, defs::sb::FIRST_DATA_BLOCK);
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
        let inodes_count = le32(&raw, defs::sb::INODES_COUNT);
        if u64::from(groups_count).saturating_mul(u64::from(inodes_per_group))
            != u64::from(inodes_count)
        {
            return Err(mount_err!(
                "invalid #inodes: {} vs computed {}",
                inodes_count,
                u64::from(groups_count).saturating_mul(u64::from(inodes_per_group))
            ));
        }
        let ro_compat = le32(&raw, defs::sb::FEATURE_RO_COMPAT);
        let sparse = ro_compat & defs::EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER != 0;
        let desc_per_block = block_size
            .checked_div(defs::GROUP_DESC_SIZE as u32)
            .ok_or(EINVAL)?;
        let db_count = groups_count.div_ceil(desc_per_block);
        let logic_sb_block = defs::SB_OFFSET
            .checked_div(u64::from(block_size))
            .ok_or(EINVAL)? as u32;
        let first_meta_bg = le32(&raw, defs::sb::FIRST_META_BG);
        let has_super = |g: u32| u32::from(!sparse || group_sparse(g));

        // Group descriptors (`descriptor_loc`, `ext2_check_descriptors`).
        let mut groups = KVec::with_capacity(groups_count as usize, GFP_KERNEL)?;
        for i in 0..db_count {
            let block = if incompat & defs::EXT2_FEATURE_INCOMPAT_META_BG == 0 || i < first_meta_bg
            {
                u64::from(logic_sb_block)
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
                let off = (j as usize).saturating_mul(defs::GROUP_DESC_SIZE);
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
                let field = |f: usize| le32(data, off.saturating_add(f));
                let itable = field(defs::gd::INODE_TABLE);
                if !in_group(field(defs::gd::BLOCK_BITMAP))
                    || !in_group(field(defs::gd::INODE_BITMAP))
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
                        inode_table: itable,
                        free_blocks: le16(data, off.saturating_add(defs::gd::FREE_BLOCKS_COUNT)),
                        free_inodes: le16(data, off.saturating_add(defs::gd::FREE_INODES_COUNT)),
                    },
                    GFP_KERNEL,
                )?;
            }
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

        let compat = le32(&raw, defs::sb::FEATURE_COMPAT);
        if compat & defs::EXT3_FEATURE_COMPAT_HAS_JOURNAL != 0 {
            pr_warn!("warning: mounting ext3 filesystem as ext2\n");
        }
        let mut uuid = [0u8; 16];
        for (i, u) in uuid.iter_mut().enumerate() {
            *u = defs::byte(&raw, defs::sb::UUID.saturating_add(i));
        }
        Ok(sb::Params {
            magic: defs::EXT2_SUPER_MAGIC.into(),
            blocksize_bits: bits,
            maxbytes: max_size(bits),
            time_gran: 1,
            data: Ext2Sb {
                block_size,
                blocksize_bits: bits,
                inodes_count,
                blocks_count,
                r_blocks_count: le32(&raw, defs::sb::R_BLOCKS_COUNT),
                first_data_block,
                inodes_per_group,
                inode_size,
                first_ino,
                feature_incompat: incompat,
                user_xattr: le32(&raw, defs::sb::DEFAULT_MOUNT_OPTS) & defs::EXT2_DEFM_XATTR_USER
                    != 0,
                uuid,
                groups,
                overhead,
            },
        })
    }

    fn init_root(sb: &SuperBlock<Self>) -> Result<dentry::Root<Self>> {
        let root = inode::iget(sb, defs::EXT2_ROOT_INO)?;
        if !root.data().is_dir() || root.data().blocks == 0 || root.size() == 0 {
            return Err(mount_err!("corrupt root inode, run e2fsck"));
        }
        dentry::Root::try_new(root)
    }
}

/// Reads the 1024-byte superblock with the current block size.
fn read_super(sb: &SuperBlock<Ext2Fs, sb::New>, blocksize: i32) -> Result<KVec<u8>> {
    let bs = u64::try_from(blocksize)?;
    let bh = sb
        .bread(defs::SB_OFFSET.checked_div(bs).ok_or(EINVAL)?)
        .map_err(|_| mount_err!("unable to read superblock"))?;
    let off = defs::SB_OFFSET.checked_rem(bs).ok_or(EINVAL)? as usize;
    let mut v = KVec::from_elem(0u8, defs::SB_SIZE, GFP_KERNEL)?;
    bh.read(off, &mut v).map_err(|_| EINVAL)?;
    Ok(v)
}

#[vtable]
impl SuperOperations for Ext2Fs {
    type FileSystem = Self;

    fn statfs(dentry: &DEntry<Self>) -> Result<sb::Stat> {
        let s = dentry.super_block().data();
        let bfree: u64 = s.groups.iter().map(|g| u64::from(g.free_blocks)).sum();
        let ffree: u64 = s.groups.iter().map(|g| u64::from(g.free_inodes)).sum();
        let r = u64::from(s.r_blocks_count);
        let id = defs::le64(&s.uuid, 0) ^ defs::le64(&s.uuid, 8);
        Ok(sb::Stat {
            magic: defs::EXT2_SUPER_MAGIC.into(),
            namelen: defs::EXT2_NAME_LEN as isize,
            bsize: s.block_size as isize,
            blocks: u64::from(s.blocks_count).wrapping_sub(s.overhead),
            bfree,
            bavail: bfree.saturating_sub(r),
            files: s.inodes_count.into(),
            ffree,
            fsid: [id as u32 as i32, (id >> 32) as u32 as i32],
        })
    }
}

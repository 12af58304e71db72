// SPDX-License-Identifier: GPL-2.0

//! Inode allocation (`fs/ext2/ialloc.c`): the inode bitmaps and the groups' free-inode counts.

use crate::ext2::{self, Ext2Fs, Ext2Inode, Ext2Sb, IData};
use crate::superblock::ext2_error;
use kernel::fs::buffer::Head;
use kernel::fs::inode::{
    mode, Created, Dev, FileType, INode, INodeParams, Negative, Timespec, UncountedINode,
};
use kernel::fs::ondisk::Le16;
use kernel::fs::sb::SuperBlock;
use kernel::prelude::*;
use kernel::sync::aref::ARef;
use kernel::sync::atomic::{Atomic, Relaxed};

/// Returns the inode bitmap of group `g` (`read_inode_bitmap`), which C does not check.
fn read_inode_bitmap(sb: &SuperBlock<Ext2Fs>, g: u32) -> Option<ARef<Head>> {
    let gd = sb.data().groups.get(g as usize)?;
    match sb.bread(gd.inode_bitmap.into()) {
        Ok(bh) => Some(bh),
        Err(_) => {
            ext2_error!(
                sb,
                "Cannot read inode bitmap - block_group = {}, inode_bitmap = {}",
                g,
                gd.inode_bitmap
            );
            None
        }
    }
}

/// Adds `inodes` to group `g`'s free inodes and `dirs` to its directories, under the group's
/// lock, and marks the descriptor's buffer dirty (`ext2_release_inode` and its counterpart in
/// `ext2_new_inode`). The sums are C's 16-bit ones.
fn group_adjust_inodes(s: &Ext2Sb, g: u32, inodes: i32, dirs: i32) -> Result {
    {
        let _guard = s.bgl(g).lock();
        let mut d = s.group_desc(g)?;
        let free = i32::from(d.bg_free_inodes_count.get()).wrapping_add(inodes);
        d.bg_free_inodes_count = Le16::new(free as u16);
        let used = i32::from(d.bg_used_dirs_count.get()).wrapping_add(dirs);
        d.bg_used_dirs_count = Le16::new(used as u16);
        s.set_group_desc(g, &d)?;
    }
    s.group_desc_dirty(g)
}

/// Whether group `g` has a free inode and, if `blocks`, a free block (`find_group_other`'s
/// test of the descriptor).
fn group_has_room(s: &Ext2Sb, g: u32, blocks: bool) -> bool {
    match s.group_desc(g) {
        Ok(d) => {
            d.bg_free_inodes_count.get() != 0 && (!blocks || d.bg_free_blocks_count.get() != 0)
        }
        Err(_) => false,
    }
}

/// The group for a new directory with `oldalloc` (`find_group_dir`): of the groups with at
/// least the average of free inodes, the one with the most free blocks.
fn find_group_dir(s: &Ext2Sb) -> Option<u32> {
    let ngroups = u32::try_from(s.groups.len()).ok()?;
    let avefreei = s.count_free().ok()?.1.checked_div(ngroups.into())?;
    let mut best: Option<(u32, u16)> = None;
    for g in 0..ngroups {
        let Ok(d) = s.group_desc(g) else { continue };
        let free_inodes = d.bg_free_inodes_count.get();
        if free_inodes == 0 || u64::from(free_inodes) < avefreei {
            continue;
        }
        let free_blocks = d.bg_free_blocks_count.get();
        if best.is_none_or(|(_, b)| free_blocks > b) {
            best = Some((g, free_blocks));
        }
    }
    best.map(|(g, _)| g)
}

/// What Orlov's allocator charges a directory against its group's debt (`INODE_COST`,
/// `BLOCK_COST`).
const INODE_COST: i64 = 64;
const BLOCK_COST: i64 = 256;

/// The group for a new directory in `parent` (`find_group_orlov`): directories at the top (in
/// the root, or under a directory flagged `TOPDIR`) are spread, to the group with the fewest
/// directories among those with free inodes and blocks not below the average, from a random
/// one on; others go to the parent's group or the first after it that has not too many
/// directories, not too few free inodes and blocks, and not too much debt; else the first
/// with free inodes not below the average (or any free inode).
#[allow(clippy::arithmetic_side_effects)]
fn find_group_orlov(s: &Ext2Sb, parent: &INode<Ext2Fs>) -> Option<u32> {
    let ngroups = u32::try_from(s.groups.len()).ok().filter(|&n| n != 0)?;
    let n = i64::from(ngroups);
    let ipg = i64::from(s.inodes_per_group);
    let bpg = i64::from(s.blocks_per_group);
    // `percpu_counter_read_positive`: never below zero.
    let freei = s.free_inodes.load(Relaxed).max(0);
    let mut avefreei = freei / n;
    let free_blocks = s.free_blocks.load(Relaxed).max(0);
    let avefreeb = free_blocks / n;
    let ndirs = s.dirs.load(Relaxed).max(0);
    let desc = |g: u32| {
        s.group_desc(g)
            .ok()
            .filter(|d| d.bg_free_inodes_count.get() != 0)
    };
    let mut parent_group = parent.data().block_group;
    let top = parent.ino() == ext2::EXT2_ROOT_INO
        || parent.data().flags.load(Relaxed) & ext2::fl::TOPDIR != 0;
    'found: {
        if top {
            let mut best: Option<(u32, i64)> = None;
            parent_group = kernel::fs::inode::random_u32() % ngroups;
            for i in 0..ngroups {
                let g = ((u64::from(parent_group) + u64::from(i)) % u64::from(ngroups)) as u32;
                let Some(d) = desc(g) else { continue };
                let used = i64::from(d.bg_used_dirs_count.get());
                if used >= best.map_or(ipg, |(_, b)| b)
                    || i64::from(d.bg_free_inodes_count.get()) < avefreei
                    || i64::from(d.bg_free_blocks_count.get()) < avefreeb
                {
                    continue;
                }
                best = Some((g, used));
            }
            if let Some((g, _)) = best {
                return Some(g);
            }
            break 'found;
        }
        let ndirs = if ndirs == 0 { 1 } else { ndirs };
        let blocks_per_dir = (i64::from(s.blocks_count) - free_blocks) / ndirs;
        let max_dirs = ndirs / n + ipg / 16;
        let min_inodes = avefreei - ipg / 4;
        let min_blocks = avefreeb - bpg / 4;
        let mut max_debt = bpg / blocks_per_dir.max(BLOCK_COST);
        if max_debt * INODE_COST > ipg {
            max_debt = ipg / INODE_COST;
        }
        let max_debt = max_debt.clamp(1, 255);
        for i in 0..ngroups {
            let g = ((u64::from(parent_group) + u64::from(i)) % u64::from(ngroups)) as u32;
            let Some(d) = desc(g) else { continue };
            let debt = s.debts.get(g as usize).map_or(0, |d| d.load(Relaxed));
            if i64::from(debt) >= max_debt
                || i64::from(d.bg_used_dirs_count.get()) >= max_dirs
                || i64::from(d.bg_free_inodes_count.get()) < min_inodes
                || i64::from(d.bg_free_blocks_count.get()) < min_blocks
            {
                continue;
            }
            return Some(g);
        }
    }
    // `fallback`: the first group from the parent's with free inodes not below the average;
    // the counts are approximate, so then any with a free inode.
    loop {
        for i in 0..ngroups {
            let g = ((u64::from(parent_group) + u64::from(i)) % u64::from(ngroups)) as u32;
            let Some(d) = desc(g) else { continue };
            if i64::from(d.bg_free_inodes_count.get()) >= avefreei {
                return Some(g);
            }
        }
        if avefreei == 0 {
            return None;
        }
        avefreei = 0;
    }
}

/// The group for a new non-directory inode in `parent` (`find_group_other`): the parent's if it
/// has free inodes and blocks, else one found by a quadratic hash from the parent's inode
/// number, else the first after the parent's with a free inode.
fn find_group_other(s: &Ext2Sb, parent: &INode<Ext2Fs>) -> Option<u32> {
    let ngroups = u32::try_from(s.groups.len()).ok()?;
    let parent_group = parent.data().block_group;
    if group_has_room(s, parent_group, true) {
        return Some(parent_group);
    }
    // `(group + (unsigned int)parent->i_ino) % ngroups`, in C's 32-bit arithmetic.
    let mut group = parent_group
        .wrapping_add(parent.ino() as u32)
        .checked_rem(ngroups)?;
    let mut i = 1u32;
    while i < ngroups {
        group = group.wrapping_add(i);
        if group >= ngroups {
            group = group.wrapping_sub(ngroups);
        }
        if group_has_room(s, group, true) {
            return Some(group);
        }
        i = i.saturating_mul(2);
    }
    group = parent_group;
    for _ in 0..ngroups {
        group = next_group(group, ngroups);
        if group_has_room(s, group, false) {
            return Some(group);
        }
    }
    None
}

/// The group after `g` of `ngroups`, wrapping.
fn next_group(g: u32, ngroups: u32) -> u32 {
    match g.checked_add(1) {
        Some(n) if n < ngroups => n,
        _ => 0,
    }
}

/// Allocates an inode number for a new inode in directory `dir` (the bitmap part of
/// `ext2_new_inode`): the group chosen as `find_group_dir` (`oldalloc`), `find_group_orlov`
/// (directories) or `find_group_other` do, the first free bit of its bitmap, the counts and
/// the group's debt updated. Returns the number and its group. `ENOSPC` when no group has a
/// free inode.
fn alloc_ino(dir: &INode<Ext2Fs>, is_dir: bool) -> Result<(u64, u32)> {
    let sb = dir.super_block();
    let s = sb.data();
    let ngroups = u32::try_from(s.groups.len())?;
    let ipg = s.inodes_per_group as usize;
    let group = match is_dir {
        true if s.test_opt(ext2::mnt::OLDALLOC) => find_group_dir(s),
        true => find_group_orlov(s, dir),
        false => find_group_other(s, dir),
    };
    let mut group = group.ok_or(ENOSPC)?;
    let mut found = None;
    for _ in 0..ngroups {
        if s.group_desc(group).is_err() {
            group = next_group(group, ngroups);
            continue;
        }
        let bitmap = read_inode_bitmap(sb, group).ok_or(EIO)?;
        let mut bit = 0usize;
        loop {
            bit = bitmap.find_next_zero_bit_le(ipg, bit);
            if bit >= ipg {
                break;
            }
            // `ext2_set_bit_atomic` under the group's lock, as C.
            let taken = {
                let _guard = s.bgl(group).lock();
                bitmap.test_and_set_bit_le(bit)?
            };
            if !taken {
                found = Some(bit);
                break;
            }
            bit = bit.saturating_add(1);
            if bit >= ipg {
                break;
            }
        }
        if found.is_some() {
            let _ = bitmap.mark_dirty();
            if sb.synchronous() {
                let _ = bitmap.sync();
            }
            break;
        }
        group = next_group(group, ngroups);
    }
    let bit = found.ok_or(ENOSPC)?;
    // `bit` is below `inodes_per_group` and `group` below the group count: the number is at
    // most `inodes_count`, a `u32`, unless the superblock lies (checked next).
    let ino = u64::from(group)
        .saturating_mul(ipg as u64)
        .saturating_add(bit as u64)
        .saturating_add(1);
    if ino < u64::from(s.first_ino) || ino > u64::from(s.inodes_count) {
        ext2_error!(
            sb,
            "reserved inode or inode > inodes count - block_group = {},inode={}",
            group,
            ino
        );
        return Err(EIO);
    }
    s.free_inodes.fetch_sub(1, Relaxed);
    if is_dir {
        s.dirs.fetch_add(1, Relaxed);
    }
    {
        // The debt changes with the descriptor, under the group's lock.
        let _guard = s.bgl(group).lock();
        if let Some(debt) = s.debts.get(group as usize) {
            let d = debt.load(Relaxed);
            debt.store(
                match is_dir {
                    true => d.saturating_add(1).min(255),
                    false => d.saturating_sub(1),
                },
                Relaxed,
            );
        }
    }
    group_adjust_inodes(s, group, -1, is_dir.into())?;
    Ok((ino, group))
}

/// What a new inode is, besides its mode: what `ext2_new_inode`'s callers set up.
pub(crate) enum NewKind {
    /// A regular file (`ext2_create`), a directory (`ext2_mkdir`) or a slow symbolic link
    /// (`ext2_symlink`, its target written to its first block next): operations by type, no
    /// block yet.
    Plain,
    /// A device, fifo or socket (`ext2_mknod`), with the device number of a device.
    Special(Dev),
    /// A fast symbolic link (`ext2_symlink`): the target, NUL-terminated, kept in `i_block`,
    /// and its length.
    FastLink([u8; 4 * ext2::EXT2_N_BLOCKS], usize),
}

/// Creates a new inode of `mode` (type and permissions) in directory `dir` (`ext2_new_inode`,
/// with what its callers set: the operations of the type, a device's number, a fast symbolic
/// link's target): its number allocated, its owner as `inode_init_owner` (or the `grpid`
/// option) sets it, the directory's inheritable flags, the next generation number; in memory,
/// dirty and still locked, for the caller to name. A directory starts with two links.
///
/// The mode gets the umask or the directory's default ACL first, whose ACLs the inode then
/// inherits (`ext2_init_acl`); then the security modules label it (`ext2_init_security`),
/// for the name of `dentry` (none for a temporary file).
pub(crate) fn new_inode(
    dir: &INode<Ext2Fs>,
    dentry: Option<&Negative<'_, Ext2Fs>>,
    mode: u16,
    kind: NewKind,
) -> Result<Created<Ext2Fs>> {
    let sb = dir.super_block();
    let s = sb.data();
    let (mode, access, default) = dir.acl_create(mode)?;
    let fmt = mode & mode::S_IFMT;
    let (typ, size, nlink) = match (fmt, &kind) {
        (mode::S_IFREG, NewKind::Plain) => (FileType::Reg, 0, 1),
        (mode::S_IFDIR, NewKind::Plain) => (FileType::Dir, 0, 2),
        (mode::S_IFLNK, NewKind::Plain) => (FileType::Lnk, 0, 1),
        (mode::S_IFLNK, NewKind::FastLink(_, len)) => (FileType::Lnk, *len as i64, 1),
        (mode::S_IFCHR, NewKind::Special(dev)) => (FileType::Chr(*dev), 0, 1),
        (mode::S_IFBLK, NewKind::Special(dev)) => (FileType::Blk(*dev), 0, 1),
        (mode::S_IFIFO, NewKind::Special(_)) => (FileType::Fifo, 0, 1),
        (mode::S_IFSOCK, NewKind::Special(_)) => (FileType::Sock, 0, 1),
        _ => return Err(EINVAL),
    };
    let (ino, group) = alloc_ino(dir, fmt == mode::S_IFDIR)?;
    let Ok(mut new) = sb.new_inode(ino) else {
        ext2_error!(sb, "inode number already in use - inode={}", ino);
        return Err(EIO);
    };
    let (uid, owner_gid, owner_mode) = new.init_owner(dir, mode);
    // With `grpid`, C sets the mode as asked and the directory's group.
    let (gid, mode) = if s.test_opt(ext2::mnt::GRPID) {
        (dir.gid(), mode)
    } else {
        (owner_gid, owner_mode)
    };
    let flags = ext2::fl::inherit(fmt, dir.data().flags.load(Relaxed));
    let generation = s.next_generation.fetch_add(1, Relaxed);
    crate::inode::set_ops(&mut new, fmt, matches!(kind, NewKind::FastLink(..)));
    let data = match kind {
        NewKind::FastLink(bytes, _) => IData::Link(bytes),
        // `i_rdev`, as `ext2_write_inode` encodes it: the old encoding where it fits.
        NewKind::Special(dev) if matches!(typ, FileType::Chr(_) | FileType::Blk(_)) => {
            let mut blocks = [0u32; ext2::EXT2_N_BLOCKS];
            match dev.to_old() {
                Some(old) => blocks[0] = old.into(),
                None => blocks[1] = dev.to_new(),
            }
            IData::Blocks(blocks.map(Atomic::new))
        }
        _ => IData::Blocks(core::array::from_fn(|_| Atomic::new(0))),
    };
    let now = Timespec::now();
    let created = new.init_created(INodeParams {
        typ,
        mode: mode & 0o7777,
        size,
        blocks: 0,
        nlink,
        uid,
        gid,
        ctime: now,
        mtime: now,
        atime: now,
        generation,
        flags: crate::inode::vfs_flags(flags),
        value: Ext2Inode {
            data,
            file_acl: Atomic::new(0),
            blocks: 0,
            mode: fmt,
            flags: Atomic::new(flags),
            dir_start_lookup: Atomic::new(0),
            block_group: group,
            dtime: Atomic::new(0),
            state_new: Atomic::new(true),
        },
    })?;
    // `ext2_init_acl`: on failure the inode is discarded (dropped).
    crate::acl::init_acl(&created, access, default)?;
    // `ext2_init_security`, likewise.
    crate::xattr::init_security(&created, dir, dentry)?;
    created.mark_dirty();
    Ok(created)
}

/// Frees the number of an evicted inode that has no link left (`ext2_free_inode`): its bit in
/// the inode bitmap cleared, its group's counts raised.
pub(crate) fn free_inode(inode: &UncountedINode<Ext2Fs>) {
    let sb = inode.super_block();
    let s = sb.data();
    let ino = inode.ino();
    let is_dir = inode.data().is_dir();
    if ino < u64::from(s.first_ino) || ino > u64::from(s.inodes_count) {
        ext2_error!(sb, "reserved or nonexistent inode {}", ino);
        return;
    }
    let ipg = u64::from(s.inodes_per_group);
    let rel = ino.saturating_sub(1);
    let (Some(group), Some(bit)) = (rel.checked_div(ipg), rel.checked_rem(ipg)) else {
        return;
    };
    let group = group as u32;
    let Some(bitmap) = read_inode_bitmap(sb, group) else {
        return;
    };
    let cleared = {
        let _guard = s.bgl(group).lock();
        bitmap.test_and_clear_bit_le(bit as usize)
    };
    match cleared {
        Ok(true) => {
            s.free_inodes.fetch_add(1, Relaxed);
            if is_dir {
                s.dirs.fetch_sub(1, Relaxed);
            }
            let _ = group_adjust_inodes(s, group, 1, if is_dir { -1 } else { 0 });
        }
        _ => ext2_error!(sb, "bit already cleared for inode {}", ino),
    }
    let _ = bitmap.mark_dirty();
    if sb.synchronous() {
        let _ = bitmap.sync();
    }
}

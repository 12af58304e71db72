// SPDX-License-Identifier: GPL-2.0

//! Inode allocation (`fs/ext2/ialloc.c`): the inode bitmaps and the groups' free-inode counts.

use crate::ext2::{self, Ext2Fs, Ext2Inode, Ext2Sb, IData};
use crate::superblock::ext2_error;
use kernel::fs::buffer::Head;
use kernel::fs::inode::{
    mode, Created, FileType, INode, INodeParams, LockedINode, Timespec, UncountedINode,
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

/// Allocates an inode number for a new non-directory inode in directory `dir` (the bitmap part
/// of `ext2_new_inode`): the group chosen as `find_group_other` does (directories, placed by
/// Orlov in C, are not created yet), the first free bit of its bitmap, the counts updated.
/// Returns the number and its group. `ENOSPC` when no group has a free inode.
fn alloc_ino(dir: &INode<Ext2Fs>) -> Result<(u64, u32)> {
    let sb = dir.super_block();
    let s = sb.data();
    let ngroups = u32::try_from(s.groups.len())?;
    let ipg = s.inodes_per_group as usize;
    let mut group = find_group_other(s, dir).ok_or(ENOSPC)?;
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
    group_adjust_inodes(s, group, -1, 0)?;
    Ok((ino, group))
}

/// Creates a new inode of `mode` (type and permissions) in directory `dir` (`ext2_new_inode`,
/// and `ext2_set_file_ops` for a regular file): its number allocated, its owner as
/// `inode_init_owner` (or the `grpid` option) sets it, the directory's inheritable flags, the
/// next generation number; in memory, dirty and still locked, for the caller to name.
///
/// The mode gets the umask or the directory's default ACL first (`ext2_init_acl`); inheriting
/// an ACL needs ACL writes, which rust_ext2 does not have yet: `EOPNOTSUPP`.
pub(crate) fn new_inode(dir: &LockedINode<'_, Ext2Fs>, mode: u16) -> Result<Created<Ext2Fs>> {
    let sb = dir.super_block();
    let s = sb.data();
    let (mode, access, default) = dir.acl_create(mode)?;
    if access.is_some() || default.is_some() {
        return Err(EOPNOTSUPP);
    }
    let fmt = mode & mode::S_IFMT;
    if fmt != mode::S_IFREG {
        return Err(EOPNOTSUPP);
    }
    let (ino, group) = alloc_ino(dir)?;
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
    let flags = ext2::fl::inherit(fmt, dir.data().flags);
    let generation = s.next_generation.fetch_add(1, Relaxed);
    new.set_inode_ops::<crate::inode::FileOps>()
        .set_file_ops::<crate::file::FileFops>()
        .set_aops::<crate::inode::FileOps>();
    let now = Timespec::now();
    let created = new.init_created(INodeParams {
        typ: FileType::Reg,
        mode: mode & 0o7777,
        size: 0,
        blocks: 0,
        nlink: 1,
        uid,
        gid,
        ctime: now,
        mtime: now,
        atime: now,
        generation,
        flags: crate::inode::vfs_flags(flags),
        value: Ext2Inode {
            data: IData::Blocks(core::array::from_fn(|_| Atomic::new(0))),
            file_acl: 0,
            blocks: 0,
            mode: fmt,
            flags,
            dir_start_lookup: Atomic::new(0),
            block_group: group,
            dtime: Atomic::new(0),
            state_new: Atomic::new(true),
        },
    })?;
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
            let _ = group_adjust_inodes(s, group, 1, if is_dir { -1 } else { 0 });
        }
        _ => ext2_error!(sb, "bit already cleared for inode {}", ino),
    }
    let _ = bitmap.mark_dirty();
    if sb.synchronous() {
        let _ = bitmap.sync();
    }
}

// SPDX-License-Identifier: GPL-2.0

//! Block bitmaps: allocating and freeing blocks (`fs/ext2/balloc.c`).

use crate::ext2::{Ext2Fs, Ext2Sb};
use crate::superblock::ext2_error;
use kernel::fs::buffer::Head;
use kernel::fs::inode::UncountedINode;
use kernel::fs::sb::{self, SuperBlock};
use kernel::prelude::*;
use kernel::sync::aref::ARef;
use kernel::sync::atomic::Relaxed;

/// The first and last block of group `g` (`ext2_group_first_block_no`,
/// `ext2_group_last_block_no`), in 64 bits: `fill_super` checked that the groups cover the
/// blocks, so neither saturates.
pub(crate) fn group_range(s: &Ext2Sb, g: u32) -> (u64, u64) {
    let first = u64::from(s.first_data_block)
        .saturating_add(u64::from(g).saturating_mul(s.blocks_per_group.into()));
    let groups = u32::try_from(s.groups.len()).unwrap_or(u32::MAX);
    let last = if g == groups.saturating_sub(1) {
        u64::from(s.blocks_count).saturating_sub(1)
    } else {
        first
            .saturating_add(s.blocks_per_group.into())
            .saturating_sub(1)
    };
    (first, last)
}

/// Checks that the block bitmap of group `g` marks the group's bitmaps and inode table in use
/// (`ext2_valid_block_bitmap`); `ext2_error` if not.
fn valid_block_bitmap(sb: &SuperBlock<Ext2Fs>, g: u32, bh: &Head) -> bool {
    let s = sb.data();
    let Some(gd) = s.groups.get(g as usize) else {
        return false;
    };
    let (first, last) = group_range(s, g);
    let max_bit = last.saturating_sub(first);
    // The offset of a metadata block in the group, if it is there.
    let offset = |b: u32| u64::from(b).checked_sub(first).filter(|o| *o <= max_bit);
    let marked = |b: u32| offset(b).is_some_and(|o| bh.test_bit_le(o as usize).unwrap_or(false));
    let mut bad = gd.block_bitmap;
    if marked(gd.block_bitmap) {
        bad = gd.inode_bitmap;
        if marked(gd.inode_bitmap) {
            bad = gd.inode_table;
            let itb = u64::from(s.itb_per_group);
            if let Some(o) = offset(gd.inode_table) {
                // `o + itb` is below 2^33.
                let end = o.saturating_add(itb);
                if end.saturating_sub(1) <= max_bit
                    && bh.find_next_zero_bit_le(end as usize, o as usize) >= end as usize
                {
                    return true;
                }
            }
        }
    }
    ext2_error!(
        sb,
        "Invalid block bitmap - block_group = {}, block = {}",
        g,
        bad
    );
    false
}

/// Returns the block bitmap of group `g`, read if it was not up to date and then checked
/// (`read_block_bitmap`): a bitmap that fails the check is still returned, as in C (the
/// file system was not mounted to panic on errors).
pub(crate) fn read_block_bitmap(sb: &SuperBlock<Ext2Fs>, g: u32) -> Option<ARef<Head>> {
    let s = sb.data();
    let gd = s.groups.get(g as usize)?;
    let fail = || {
        ext2_error!(
            sb,
            "Cannot read block bitmap - block_group = {}, block_bitmap = {}",
            g,
            gd.block_bitmap
        );
    };
    let Ok(bh) = sb.getblk(gd.block_bitmap.into()) else {
        fail();
        return None;
    };
    match bh.read_in() {
        Ok(true) => {}
        Ok(false) => {
            valid_block_bitmap(sb, g, &bh);
        }
        Err(_) => {
            fail();
            return None;
        }
    }
    Some(bh)
}

/// Adds `count` to the free blocks of group `g`'s descriptor under the group's lock, and marks
/// its buffer dirty (`group_adjust_blocks`).
fn group_adjust_blocks(s: &Ext2Sb, g: u32, count: i32) -> Result {
    if count == 0 {
        return Ok(());
    }
    {
        let _guard = s.bgl(g).lock();
        let mut d = s.group_desc(g)?;
        // `cpu_to_le16` of C's sum: the low bits.
        let free = i32::from(d.bg_free_blocks_count.get()).wrapping_add(count);
        d.bg_free_blocks_count = kernel::fs::ondisk::Le16::new(free as u16);
        s.set_group_desc(g, &d)?;
    }
    s.group_desc_dirty(g)
}

/// Returns whether `count` blocks from `start` are all data blocks: after the first data
/// block, inside the file system, not wrapping and not over the superblock
/// (`ext2_data_block_valid`).
pub(crate) fn data_block_valid(s: &Ext2Sb, start: u32, count: u32) -> bool {
    let start = u64::from(start);
    let Some(end) = start
        .checked_add(u64::from(count))
        .and_then(|e| e.checked_sub(1))
    else {
        return false;
    };
    if start <= s.first_data_block.into() || end >= s.blocks_count.into() {
        return false;
    }
    // `s_sb_block`, the superblock's place in 1 KiB units, which C compares with block
    // numbers of any size.
    let sb_block = u64::from(s.sb_block);
    !(start <= sb_block && end >= sb_block)
}

/// Frees `count` blocks from `block` of `inode` (`ext2_free_blocks`): their bits cleared in the
/// bitmaps, the groups' free counts raised, and the blocks taken off the inode's `i_blocks`.
/// Errors are reported as C reports them (`ext2_error`) and end the freeing.
pub(crate) fn free_blocks(inode: &UncountedINode<Ext2Fs>, block: u32, count: u32) {
    let sb = inode.super_block();
    let s = sb.data();
    if !data_block_valid(s, block, count) {
        ext2_error!(
            sb,
            "Freeing blocks not in datazone - block = {}, count = {}",
            block,
            count
        );
        return;
    }
    // `data_block_valid`: `block + count - 1` is a block number, `block > first_data_block`,
    // and `blocks_per_group` is not 0 (`fill_super`); no step below overflows.
    let (mut block, mut count) = (block, count);
    let mut freed = 0u64;
    loop {
        let rel = block.saturating_sub(s.first_data_block);
        let (Some(g), Some(bit)) = (
            rel.checked_div(s.blocks_per_group),
            rel.checked_rem(s.blocks_per_group),
        ) else {
            break;
        };
        let overflow = bit.saturating_add(count).saturating_sub(s.blocks_per_group);
        let n = count.saturating_sub(overflow);
        let Some(bitmap) = read_block_bitmap(sb, g) else {
            break;
        };
        let Some(gd) = s.groups.get(g as usize) else {
            break;
        };
        let in_range = |b: u32, first: u32, len: u32| {
            b >= first && u64::from(b) < u64::from(first).saturating_add(len.into())
        };
        let last = block.saturating_add(n).saturating_sub(1);
        if in_range(gd.block_bitmap, block, n)
            || in_range(gd.inode_bitmap, block, n)
            || in_range(block, gd.inode_table, s.itb_per_group)
            || in_range(last, gd.inode_table, s.itb_per_group)
        {
            ext2_error!(
                sb,
                "Freeing blocks in system zones - Block = {}, count = {}",
                block,
                n
            );
            break;
        }
        let mut group_freed = 0u32;
        for i in 0..n {
            // `bit + i` is below `blocks_per_group`, within the bitmap block.
            let nr = bit.saturating_add(i) as usize;
            // `ext2_clear_bit_atomic`: an atomic bit operation, C takes no lock for it.
            if bitmap.test_and_clear_bit_le(nr).unwrap_or(false) {
                group_freed = group_freed.saturating_add(1);
            } else {
                ext2_error!(
                    sb,
                    "bit already cleared for block {}",
                    block.saturating_add(i)
                );
            }
        }
        let _ = bitmap.mark_dirty();
        if sb.synchronous() {
            let _ = bitmap.sync();
        }
        let _ = group_adjust_blocks(s, g, group_freed.try_into().unwrap_or(i32::MAX));
        s.free_blocks.fetch_add(i64::from(group_freed), Relaxed);
        freed = freed.saturating_add(group_freed.into());
        if overflow == 0 {
            break;
        }
        block = block.saturating_add(n);
        count = overflow;
    }
    if freed > 0 {
        inode.sub_bytes(freed.saturating_mul(s.block_size.into()));
        inode.mark_dirty();
    }
}

/// Whether the current task may allocate a block (`ext2_has_free_blocks`): more blocks are free
/// than are reserved, or it may use the reserved ones.
fn has_free_blocks(s: &Ext2Sb) -> bool {
    let free = s.free_blocks.load(Relaxed);
    free > i64::from(s.r_blocks_count)
        || sb::may_use_reserved_blocks(s.resuid.load(Relaxed), s.resgid.load(Relaxed))
}

/// The first clear bit of the bitmap `bh` below `max` from `start` on, looking first for a
/// clear byte, whose blocks are all free (`find_next_usable_block` without a goal).
///
/// `max` is at most the bitmap's bits, `start` below it: `at` stays below `last`, `at + i`
/// below 2^16.
#[allow(clippy::arithmetic_side_effects)]
fn find_next_usable_block(start: usize, bh: &Head, max: usize) -> Option<usize> {
    if start > 0 {
        // Near the goal: up to the next 64-bit boundary.
        let end = (start.saturating_add(63) & !63).min(max);
        let here = bh.find_next_zero_bit_le(end, start);
        if here < end {
            return Some(here);
        }
    }
    // `memscan` for a zero byte, from the byte of `start` to the one of `max - 1`.
    let (first, last) = (start / 8, max.div_ceil(8));
    let mut chunk = [0u8; 64];
    let mut at = first;
    while at < last {
        let n = (last - at).min(chunk.len());
        if bh.read(at, &mut chunk[..n]).is_err() {
            break;
        }
        if let Some(i) = chunk[..n].iter().position(|b| *b == 0) {
            let next = (at + i).saturating_mul(8);
            if next < max && next >= start {
                return Some(next);
            }
            break;
        }
        at += n;
    }
    let next = bh.find_next_zero_bit_le(max, start);
    (next < max).then_some(next)
}

/// Claims up to `count` free blocks of group `g` in its bitmap `bh` (`ext2_try_to_allocate`
/// without a reservation window): from `goal` (the first free block after it), or else from
/// the first free byte's block (backed up over at most 7 free blocks before it). Returns the
/// first block claimed, relative to the group, and how many contiguous blocks were.
///
/// `here` stays at most `end` (a group's blocks, below 2^19), `num` at most `here`.
#[allow(clippy::arithmetic_side_effects)]
fn try_to_allocate(
    s: &Ext2Sb,
    g: u32,
    bh: &Head,
    goal: Option<usize>,
    count: u32,
) -> Option<(usize, u32)> {
    let (first, last) = group_range(s, g);
    // A group spans at most `blocks_per_group` blocks, the bits of one bitmap block.
    let end = usize::try_from(last.saturating_sub(first).saturating_add(1)).ok()?;
    let mut here = match goal {
        Some(goal) => goal,
        None => {
            let mut here = find_next_usable_block(0, bh, end)?;
            for _ in 0..7 {
                if here == 0 || bh.test_bit_le(here - 1).unwrap_or(true) {
                    break;
                }
                here -= 1;
            }
            here
        }
    };
    let mut num = 0u32;
    while num < count && here < end {
        // `ext2_set_bit_atomic`.
        if bh.test_and_set_bit_le(here).unwrap_or(true) {
            if num > 0 {
                break;
            }
        } else {
            num += 1;
        }
        here += 1;
    }
    (num > 0).then(|| (here - num as usize, num))
}

/// Allocates up to `count` contiguous blocks for `inode`, from `goal` if it is free, else near
/// it (`ext2_new_blocks` without reservation windows): the goal's group first, then the
/// others in turn. Returns the first block and the number allocated (at least 1). The blocks
/// are marked in the bitmap, taken off the group's and the file system's free counts and added
/// to the inode's `i_blocks`. `ENOSPC` if no block is free (or only reserved ones the caller
/// may not use), `EIO` if a group's descriptor or bitmap cannot be read.
pub(crate) fn new_blocks(
    inode: &UncountedINode<Ext2Fs>,
    goal: u64,
    count: u32,
) -> Result<(u32, u32)> {
    let sb = inode.super_block();
    let s = sb.data();
    if !has_free_blocks(s) {
        return Err(ENOSPC);
    }
    let fdb = u64::from(s.first_data_block);
    let goal = if goal < fdb || goal >= s.blocks_count.into() {
        fdb
    } else {
        goal
    };
    let bpg = u64::from(s.blocks_per_group);
    let ngroups = u32::try_from(s.groups.len()).map_err(|_| EIO)?;
    // `fill_super` checked that `blocks_per_group` is not 0 and the groups cover the blocks.
    let mut g = goal.saturating_sub(fdb).checked_div(bpg).ok_or(EIO)? as u32;
    let target = goal.saturating_sub(fdb).checked_rem(bpg).ok_or(EIO)? as usize;
    loop {
        let mut found = None;
        if s.group_desc(g)?.bg_free_blocks_count.get() > 0 {
            let bh = read_block_bitmap(sb, g).ok_or(EIO)?;
            found = try_to_allocate(s, g, &bh, Some(target), count).map(|r| (r, bh));
        }
        if found.is_none() {
            for _ in 0..ngroups {
                g = match g.checked_add(1) {
                    Some(next) if next < ngroups => next,
                    _ => 0,
                };
                if s.group_desc(g)?.bg_free_blocks_count.get() == 0 {
                    continue;
                }
                let bh = read_block_bitmap(sb, g).ok_or(EIO)?;
                if let Some(r) = try_to_allocate(s, g, &bh, None, count) {
                    found = Some((r, bh));
                    break;
                }
            }
        }
        let Some(((rel, num), bitmap)) = found else {
            return Err(ENOSPC);
        };
        let gd = s.groups.get(g as usize).ok_or(EIO)?;
        // Below 2^32 + 2^16: a group's blocks are within the 32-bit block count.
        let block = group_range(s, g).0.saturating_add(rel as u64);
        let end = block.saturating_add(num.into());
        let in_range = |b: u64, first: u64, len: u64| b >= first && b < first.saturating_add(len);
        let itb = u64::from(s.itb_per_group);
        if in_range(gd.block_bitmap.into(), block, num.into())
            || in_range(gd.inode_bitmap.into(), block, num.into())
            || in_range(block, gd.inode_table.into(), itb)
            || in_range(end.saturating_sub(1), gd.inode_table.into(), itb)
        {
            // The bits stay set, as in C, which tries again.
            ext2_error!(
                sb,
                "Allocating block in system zone - blocks from {}, length {}",
                block,
                num
            );
            continue;
        }
        if end > s.blocks_count.into() {
            ext2_error!(
                sb,
                "block({}) >= blocks count({}) - block_group = {}",
                block,
                s.blocks_count,
                g
            );
            return Err(ENOSPC);
        }
        group_adjust_blocks(s, g, 0i32.saturating_sub_unsigned(num))?;
        s.free_blocks.fetch_sub(i64::from(num), Relaxed);
        bitmap.mark_dirty()?;
        if sb.synchronous() {
            let _ = bitmap.sync();
        }
        inode.add_bytes(u64::from(num).saturating_mul(s.block_size.into()));
        return Ok((block as u32, num));
    }
}

// SPDX-License-Identifier: GPL-2.0

//! Block bitmaps: freeing blocks (`fs/ext2/balloc.c`).

use crate::ext2::{Ext2Fs, Ext2Sb};
use crate::superblock::ext2_error;
use kernel::fs::buffer::Head;
use kernel::fs::inode::INode;
use kernel::fs::sb::SuperBlock;
use kernel::prelude::*;
use kernel::sync::aref::ARef;

/// The first and last block of group `g` (`ext2_group_first_block_no`,
/// `ext2_group_last_block_no`), in 64 bits: `fill_super` checked that the groups cover the
/// blocks, so neither saturates.
fn group_range(s: &Ext2Sb, g: u32) -> (u64, u64) {
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
pub(crate) fn free_blocks(inode: &INode<Ext2Fs>, block: u32, count: u32) {
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

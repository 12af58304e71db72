// SPDX-License-Identifier: GPL-2.0

//! Block bitmaps: allocating and freeing blocks (`fs/ext2/balloc.c`).

use crate::ext2::{Ext2Fs, Ext2Sb};
use crate::superblock::ext2_error;
use kernel::fs::buffer::Head;
use kernel::fs::inode::UncountedINode;
use kernel::fs::sb::{self, SuperBlock};
use kernel::prelude::*;
use kernel::rbtree::{RBTree, RBTreeNodeReservation};
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

/// Claims up to `count` free blocks of group `g` in its bitmap `bh` (`ext2_try_to_allocate`):
/// within `window` (absolute first and last block) if the inode has a reservation window, else
/// anywhere in the group; from `goal` (the first free block after it) if it is in that range,
/// or else from the first free byte's block (without a window, backed up over at most 7 free
/// blocks before it). Returns the first block claimed, relative to the group, and how many
/// contiguous blocks were.
///
/// `here` stays at most `end` (a group's blocks, below 2^19), `num` at most `here`; a window
/// overlaps the group (`try_to_allocate_with_rsv` checked it), so `start` and `end` are within
/// it.
#[allow(clippy::arithmetic_side_effects)]
fn try_to_allocate(
    s: &Ext2Sb,
    g: u32,
    bh: &Head,
    goal: Option<usize>,
    count: u32,
    window: Option<(u64, u64)>,
) -> Option<(usize, u32)> {
    let (first, last) = group_range(s, g);
    // A group spans at most `blocks_per_group` blocks, the bits of one bitmap block.
    let mut end = usize::try_from(last.saturating_sub(first).saturating_add(1)).ok()?;
    let mut start = 0;
    let mut goal = goal;
    if let Some((wstart, wend)) = window {
        if wstart >= first {
            start = usize::try_from(wstart - first).ok()?;
        }
        if wend < last {
            end = usize::try_from(wend - first + 1).ok()?;
        }
        if goal.is_some_and(|goal| goal < start || goal >= end) {
            goal = None;
        }
    }
    let mut here = match goal {
        Some(goal) => goal,
        None => {
            let mut here = find_next_usable_block(start, bh, end)?;
            if window.is_none() {
                for _ in 0..7 {
                    if here <= start || bh.test_bit_le(here - 1).unwrap_or(true) {
                        break;
                    }
                    here -= 1;
                }
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
/// it (`ext2_new_blocks`): the goal's group first, then the others in turn; for a regular file
/// with a reservation window size (`rsv`), within its window, made or moved as needed, and
/// without one if no group has room for it. Returns the first block and the number allocated
/// (at least 1). The blocks are marked in the bitmap, taken off the group's and the file
/// system's free counts and added to the inode's `i_blocks`. `ENOSPC` if no block is free (or
/// only reserved ones the caller may not use), `EIO` if a group's descriptor or bitmap cannot
/// be read.
pub(crate) fn new_blocks(
    inode: &UncountedINode<Ext2Fs>,
    goal: u64,
    count: u32,
    rsv: Option<&mut Rsv>,
) -> Result<(u32, u32)> {
    let sb = inode.super_block();
    let s = sb.data();
    let windowsz = rsv.as_ref().map_or(0, |r| r.goal_size);
    let mut my_rsv = rsv.filter(|_| windowsz > 0);
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
    let goal_group = goal.saturating_sub(fdb).checked_div(bpg).ok_or(EIO)? as u32;
    let mut g = goal_group;
    let target = goal.saturating_sub(fdb).checked_rem(bpg).ok_or(EIO)? as usize;
    loop {
        let mut found = None;
        let free = s.group_desc(g)?.bg_free_blocks_count.get();
        // Too few free blocks here for a new window: none for this allocation.
        if free < windowsz && free > 0 && my_rsv.as_ref().is_some_and(|r| r.is_empty()) {
            my_rsv = None;
        }
        if free > 0 {
            let bh = read_block_bitmap(sb, g).ok_or(EIO)?;
            found =
                try_to_allocate_with_rsv(sb, g, &bh, Some(target), my_rsv.as_deref_mut(), count)
                    .map(|r| (r, bh));
        }
        if found.is_none() {
            for _ in 0..ngroups {
                g = match g.checked_add(1) {
                    Some(next) if next < ngroups => next,
                    _ => 0,
                };
                let free = s.group_desc(g)?.bg_free_blocks_count.get();
                // Without room for half a window.
                if free == 0 || (my_rsv.is_some() && free <= windowsz / 2) {
                    continue;
                }
                let bh = read_block_bitmap(sb, g).ok_or(EIO)?;
                if let Some(r) =
                    try_to_allocate_with_rsv(sb, g, &bh, None, my_rsv.as_deref_mut(), count)
                {
                    found = Some((r, bh));
                    break;
                }
            }
        }
        let Some(((rel, num), bitmap)) = found else {
            // All free blocks may be in others' windows: once more, without a window.
            if my_rsv.take().is_some() {
                g = goal_group;
                continue;
            }
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

/// `EXT2_DEFAULT_RESERVE_BLOCKS`: the window size of a regular file's first allocation.
pub(crate) const DEFAULT_RESERVE_BLOCKS: u16 = 8;
/// `EXT2_MAX_RESERVE_BLOCKS`: windows grow up to this size.
pub(crate) const MAX_RESERVE_BLOCKS: u16 = 1027;

/// A regular file's reservation window (`struct ext2_reserve_window_node` but its tree node):
/// blocks `start..=end` where its allocations go first, which others' windows do not overlap;
/// `end` 0 is no window (`EXT2_RESERVE_WINDOW_NOT_ALLOCATED`). Changed under the inode's
/// `truncate_mutex`; while the inode has a window, the superblock's tree of windows
/// ([`Ext2Sb::rsv_windows`]) maps its `start` to its `end`, and both change under the tree's
/// lock.
#[derive(Clone, Copy, Default)]
pub(crate) struct Rsv {
    pub(crate) start: u64,
    pub(crate) end: u64,
    /// The size of the next window (`rsv_goal_size`); 0 turns reservation off for the file.
    pub(crate) goal_size: u16,
    /// Blocks allocated in the current window (`rsv_alloc_hit`).
    pub(crate) alloc_hit: u32,
}

impl Rsv {
    /// `rsv_is_empty`.
    fn is_empty(&self) -> bool {
        self.end == 0
    }
}

/// The superblock's tree of reservation windows, start to end, with the sentinel window 0..=0
/// (`s_rsv_window_head`), so that every block has a window at or before it.
pub(crate) type RsvTree = RBTree<u64, u64>;

/// A spare tree node, so that no allocation is made under the tree's spinlock.
type Spare = Option<RBTreeNodeReservation<u64, u64>>;

/// `rsv_window_remove`: `my`'s window out of the tree, its node kept in `spare`.
fn rsv_remove(tree: &mut RsvTree, my: &mut Rsv, spare: &mut Spare) {
    if let Some(node) = tree.remove_node(&my.start) {
        *spare = Some(node.into_reservation());
    }
    *my = Rsv {
        goal_size: my.goal_size,
        ..Rsv::default()
    };
}

/// `ext2_rsv_window_add`: `my`'s window into the tree, with the node in `spare`.
fn rsv_add(tree: &mut RsvTree, my: &Rsv, spare: &mut Spare) -> Result {
    let node = spare.take().ok_or(ENOMEM)?;
    tree.insert(node.into_node(my.start, my.end));
    Ok(())
}

/// `search_reserve_window`: the window that holds `goal` or the last one before it.
fn search_reserve_window(tree: &RsvTree, goal: u64) -> Option<u64> {
    match tree.cursor_lower_bound(&goal) {
        Some(c) if *c.current().0 == goal => Some(goal),
        Some(c) => c.peek_prev().map(|(k, _)| *k),
        None => tree.cursor_back().map(|c| *c.current().0),
    }
}

/// `goal_in_my_reservation`: whether `my`'s window overlaps the group (`first..=last`) and
/// holds `goal` (relative to the group) if there is one.
fn goal_in_my_reservation(my: &Rsv, goal: Option<usize>, first: u64, last: u64) -> bool {
    if my.start > last || my.end < first {
        return false;
    }
    match goal {
        Some(goal) => {
            let goal = first.saturating_add(goal as u64);
            goal >= my.start && goal <= my.end
        }
        None => true,
    }
}

/// `find_next_reservable_window`: from the window at `head` on, the first gap of at least
/// `my.goal_size` blocks that starts from `start` on and at most at `last`; `my`'s window is
/// moved there (its place in the tree too). `Err` if there is none.
#[allow(clippy::arithmetic_side_effects)]
fn find_next_reservable_window(
    tree: &mut RsvTree,
    head: u64,
    my: &mut Rsv,
    start: u64,
    last: u64,
    spare: &mut Spare,
) -> Result {
    let size = u64::from(my.goal_size);
    let mut cur = start;
    let mut rsv = (head, *tree.get(&head).ok_or(ENOSPC)?);
    loop {
        if cur <= rsv.1 {
            cur = rsv.1 + 1;
        }
        if cur > last {
            return Err(ENOSPC);
        }
        // `rb_next`: the first window after this one (window starts are distinct).
        let Some(next) = tree
            .cursor_lower_bound(&(rsv.0 + 1))
            .map(|c| (*c.current().0, *c.current().1))
        else {
            break;
        };
        rsv = next;
        if cur + size <= rsv.0 {
            break;
        }
    }
    // `my` is taken out and put back at its new place, whether or not it is the window the gap
    // follows (C moves that one in place: the same tree).
    if !my.is_empty() {
        rsv_remove(tree, my, spare);
    }
    my.start = cur;
    my.end = cur + size - 1;
    my.alloc_hit = 0;
    rsv_add(tree, my, spare)
}

/// `alloc_new_reservation`: a new window for `my` in group `g` (whose bitmap is `bh`), from
/// `goal` (relative to the group) or the group's start, holding at least one free block; the
/// window doubles (up to [`MAX_RESERVE_BLOCKS`]) when more than half of the last one was used.
/// `Err` if the group has no room for one.
#[allow(clippy::arithmetic_side_effects)]
fn alloc_new_reservation(
    s: &Ext2Sb,
    my: &mut Rsv,
    goal: Option<usize>,
    g: u32,
    bh: &Head,
) -> Result {
    let (first, last) = group_range(s, g);
    let mut start = goal.map_or(first, |goal| first + goal as u64);
    if !my.is_empty() {
        // The rest of a window across the group's end is in the next group.
        if my.start <= last && my.end > last && start >= my.start {
            return Err(ENOSPC);
        }
        // More than half of the window's `end - start + 1` blocks.
        if u64::from(my.alloc_hit) > (my.end - my.start).div_ceil(2) {
            my.goal_size = my.goal_size.saturating_mul(2).min(MAX_RESERVE_BLOCKS);
        }
    }
    let mut spare: Spare = Some(RBTreeNodeReservation::new(GFP_KERNEL)?);
    let mut tree = s.rsv_windows.lock();
    let mut head = search_reserve_window(&tree, start).ok_or(ENOSPC)?;
    loop {
        if let Err(e) = find_next_reservable_window(&mut tree, head, my, start, last, &mut spare) {
            if !my.is_empty() {
                rsv_remove(&mut tree, my, &mut spare);
            }
            return Err(e);
        }
        drop(tree);
        // The group's first free block in the window found, or after it
        // (`bitmap_search_next_usable_block`).
        let max = (last - first + 1) as usize;
        let free = bh.find_next_zero_bit_le(max, (my.start - first) as usize);
        if free >= max {
            discard_reservation(s, my);
            return Err(ENOSPC);
        }
        start = first + free as u64;
        if start >= my.start && start <= my.end {
            return Ok(());
        }
        // From the free block on, from this window on.
        head = my.start;
        tree = s.rsv_windows.lock();
    }
}

/// `try_to_extend_reservation`: `my`'s window grows by up to `size` blocks, as far as the next
/// window allows, if the tree's lock is free.
#[allow(clippy::arithmetic_side_effects)]
fn try_to_extend_reservation(s: &Ext2Sb, my: &mut Rsv, size: u64) {
    let Some(mut tree) = s.rsv_windows.try_lock() else {
        return;
    };
    let next = tree
        .cursor_lower_bound(&(my.start + 1))
        .map(|c| *c.current().0);
    my.end = match next {
        Some(next) if next - my.end - 1 < size => next - 1,
        _ => my.end + size,
    };
    if let Some(end) = tree.get_mut(&my.start) {
        *end = my.end;
    }
}

/// `ext2_try_to_allocate_with_rsv`: claims up to `count` blocks of group `g` within `my`'s
/// window, made (or moved to the goal) as needed and grown towards `count` blocks; without a
/// window as [`try_to_allocate`]. Returns the first block claimed, relative to the group, and
/// how many.
#[allow(clippy::arithmetic_side_effects)]
fn try_to_allocate_with_rsv(
    sb: &SuperBlock<Ext2Fs>,
    g: u32,
    bh: &Head,
    goal: Option<usize>,
    my: Option<&mut Rsv>,
    count: u32,
) -> Option<(usize, u32)> {
    let s = sb.data();
    let Some(my) = my else {
        return try_to_allocate(s, g, bh, goal, count, None);
    };
    let (first, last) = group_range(s, g);
    let mut goal = goal;
    let mut failed = false;
    loop {
        if my.is_empty() || failed || !goal_in_my_reservation(my, goal, first, last) {
            let want = u16::try_from(count).unwrap_or(u16::MAX);
            if my.goal_size < want {
                my.goal_size = want;
            }
            alloc_new_reservation(s, my, goal, g, bh).ok()?;
            if !goal_in_my_reservation(my, goal, first, last) {
                goal = None;
            }
        } else if let Some(goal) = goal {
            // The goal is in the window: blocks up to its end.
            let curr = my.end - (first + goal as u64) + 1;
            if curr < u64::from(count) {
                try_to_extend_reservation(s, my, u64::from(count) - curr);
            }
        }
        if my.start > last || my.end < first {
            ext2_error!(
                sb,
                "Reservation out of group {} range goal {} fsb[{},{}] rsv[{}, {}]",
                g,
                goal.map_or(-1, |goal| goal as i64),
                first,
                last,
                my.start,
                my.end
            );
            return None;
        }
        match try_to_allocate(s, g, bh, goal, count, Some((my.start, my.end))) {
            Some((rel, num)) => {
                my.alloc_hit = my.alloc_hit.saturating_add(num);
                return Some((rel, num));
            }
            None => failed = true,
        }
    }
}

/// `ext2_discard_reservation`: `my`'s window is given up (the last writer closed the file, it
/// is truncated or evicted).
pub(crate) fn discard_reservation(s: &Ext2Sb, my: &mut Rsv) {
    if !my.is_empty() {
        let mut spare = None;
        let mut tree = s.rsv_windows.lock();
        rsv_remove(&mut tree, my, &mut spare);
    }
}

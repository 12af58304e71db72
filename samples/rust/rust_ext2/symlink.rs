// SPDX-License-Identifier: GPL-2.0

//! Symbolic links, fast (in `i_block`) and slow (in a data block) (`fs/ext2/symlink.c`).

use crate::inode::map_blocks;
use crate::superblock::Ext2Fs;
use crate::xattr;
use kernel::fs::dentry::DEntry;
use kernel::fs::inode::{self, INode, INodeOperations, Link, LinkWalk, Stat};
use kernel::prelude::*;

pub(crate) const FAST_IOPS: inode::Ops<Ext2Fs> = inode::Ops::new::<FastSymlink>();
pub(crate) const SLOW_IOPS: inode::Ops<Ext2Fs> = inode::Ops::new::<SlowSymlink>();

/// Longest target read from a slow symlink (`page_get_link` terminates at `PAGE_SIZE - 1`).
const MAX_TARGET: usize = 4095;

struct FastSymlink;

#[vtable]
impl INodeOperations for FastSymlink {
    type FileSystem = Ext2Fs;

    /// The target is in the inode's data, which RCU walk may read too.
    fn get_link<'a>(walk: LinkWalk<'a, Ext2Fs>) -> Result<Link<'a>> {
        let t = walk.inode().data().block.as_bytes();
        Ok(Link::Borrowed(
            CStr::from_bytes_until_nul(t).map_err(|_| EIO)?,
        ))
    }

    fn listxattr(dentry: &DEntry<Ext2Fs>, buf: &mut [u8]) -> Result<usize> {
        xattr::list(dentry, buf)
    }

    fn getattr(inode: &INode<Ext2Fs>, stat: &mut Stat<'_>) -> Result {
        crate::inode::getattr(inode, stat)
    }
}

struct SlowSymlink;

#[vtable]
impl INodeOperations for SlowSymlink {
    type FileSystem = Ext2Fs;

    fn get_link<'a>(walk: LinkWalk<'a, Ext2Fs>) -> Result<Link<'a>> {
        // Reading blocks may sleep: not in RCU-walk mode.
        let LinkWalk::Ref(_, inode) = walk else {
            return Err(ECHILD);
        };
        let sb = inode.super_block();
        let bs = sb.data().block_size as usize;
        let len = (inode.size().max(0) as usize).min(MAX_TARGET);
        let mut target = KVec::with_capacity(len.saturating_add(1), GFP_KERNEL)?;
        let mut n = 0u64;
        while target.len() < len {
            let want = len.saturating_sub(target.len()).min(bs);
            match map_blocks(inode, n, 1)? {
                Some(run) => {
                    let bh = sb.bread(run.block)?;
                    let start = target.len();
                    target.resize(start.saturating_add(want), 0, GFP_KERNEL)?;
                    bh.read(0, &mut target[start..]).map_err(|_| EIO)?;
                }
                None => {
                    for _ in 0..want {
                        target.push(0, GFP_KERNEL)?;
                    }
                }
            }
            n = n.saturating_add(1);
        }
        // C string semantics: the target ends at the first NUL.
        if let Some(nul) = target.iter().position(|&c| c == 0) {
            target.truncate(nul);
        }
        Ok(Link::Owned(target))
    }

    fn listxattr(dentry: &DEntry<Ext2Fs>, buf: &mut [u8]) -> Result<usize> {
        xattr::list(dentry, buf)
    }

    fn getattr(inode: &INode<Ext2Fs>, stat: &mut Stat<'_>) -> Result {
        crate::inode::getattr(inode, stat)
    }
}

// SPDX-License-Identifier: GPL-2.0

//! Symbolic links, fast (in `i_block`) and slow (in a data block, read through the page cache)
//! (`fs/ext2/symlink.c`).

use crate::superblock::Ext2Fs;
use crate::xattr;
use kernel::fs::dentry::DEntry;
use kernel::fs::inode::{self, INode, INodeOperations, Link, LinkWalk, Stat};
use kernel::prelude::*;

pub(crate) const FAST_IOPS: inode::Ops<Ext2Fs> = inode::Ops::new::<FastSymlink>();
pub(crate) const SLOW_IOPS: inode::Ops<Ext2Fs> = inode::Ops::new::<SlowSymlink>();

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
    /// `page_get_link`: the target is read through the inode's page cache (`ext2_aops`), where
    /// writes to it will go, as in C.
    const PAGE_LINK: bool = true;

    fn listxattr(dentry: &DEntry<Ext2Fs>, buf: &mut [u8]) -> Result<usize> {
        xattr::list(dentry, buf)
    }

    fn getattr(inode: &INode<Ext2Fs>, stat: &mut Stat<'_>) -> Result {
        crate::inode::getattr(inode, stat)
    }
}

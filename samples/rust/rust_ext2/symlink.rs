// SPDX-License-Identifier: GPL-2.0

//! Symbolic links, fast (in `i_block`) and slow (in a data block, read through the page cache)
//! (`fs/ext2/symlink.c`).

use crate::ext2::Ext2Fs;
use crate::ext2::{Ext2Inode, IData};
use crate::xattr;
use kernel::fs::address_space::WriteFolio;
use kernel::fs::dentry::DEntry;
use kernel::fs::inode::{Attr, INode, INodeOperations, Kstat, LockedINode};
use kernel::prelude::*;

/// Writes the target of new slow symbolic link `inode` (without its NUL) to the start of its
/// first block through its page cache, which sets its size (`page_symlink`).
pub(crate) fn write_target(inode: &mut LockedINode<'_, Ext2Fs>, target: &[u8]) -> Result {
    let folio = inode.read_mapping_folio(0)?;
    let mut wf = WriteFolio::prepare::<crate::inode::Mapper>(inode, folio, 0, target.len())?;
    wf.write(0, target)?;
    wf.commit()
}

pub(crate) struct FastSymlink;

#[vtable]
impl INodeOperations for FastSymlink {
    type FileSystem = Ext2Fs;

    /// The target is in `i_block`, in the inode's data: it becomes `i_link`, as in C.
    fn inline_link(data: &Ext2Inode) -> Option<&CStr> {
        match &data.data {
            IData::Link(bytes) => CStr::from_bytes_until_nul(bytes).ok(),
            IData::Blocks(_) => None,
        }
    }

    fn listxattr(dentry: &DEntry<Ext2Fs>, buf: &mut [u8]) -> Result<usize> {
        xattr::list(dentry, buf)
    }

    fn getattr(inode: &INode<Ext2Fs>, stat: &mut Kstat<'_>) -> Result {
        crate::inode::getattr(inode, stat)
    }

    fn setattr(
        dentry: &DEntry<Ext2Fs>,
        inode: &mut LockedINode<'_, Ext2Fs>,
        attr: &mut Attr,
    ) -> Result {
        crate::inode::setattr(dentry, inode, attr)
    }
}

pub(crate) struct SlowSymlink;

#[vtable]
impl INodeOperations for SlowSymlink {
    type FileSystem = Ext2Fs;
    /// `page_get_link`: the target is read through the inode's page cache (`ext2_aops`), where
    /// writes to it will go, as in C.
    const PAGE_LINK: bool = true;

    fn listxattr(dentry: &DEntry<Ext2Fs>, buf: &mut [u8]) -> Result<usize> {
        xattr::list(dentry, buf)
    }

    fn getattr(inode: &INode<Ext2Fs>, stat: &mut Kstat<'_>) -> Result {
        crate::inode::getattr(inode, stat)
    }

    fn setattr(
        dentry: &DEntry<Ext2Fs>,
        inode: &mut LockedINode<'_, Ext2Fs>,
        attr: &mut Attr,
    ) -> Result {
        crate::inode::setattr(dentry, inode, attr)
    }
}

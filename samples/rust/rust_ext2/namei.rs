// SPDX-License-Identifier: GPL-2.0

//! Name lookup in directories (`fs/ext2/namei.c`, `ext2_find_entry` of `fs/ext2/dir.c`).

use crate::defs;
use crate::dir::{dir_page, dir_pages, entry_at, last_byte};
use crate::inode::iget;
use crate::superblock::Ext2Fs;
use crate::xattr;
use kernel::fs::dentry::{self, DEntry};
use kernel::fs::inode::{self, INode, INodeOperations};
use kernel::prelude::*;
use kernel::sync::aref::ARef;

pub(crate) const DIR_IOPS: inode::Ops<Ext2Fs> = inode::Ops::new::<DirOps>();

/// Finds `name` in directory `dir`, returning its inode number (`ext2_find_entry`).
pub(crate) fn inode_by_name(dir: &INode<Ext2Fs>, name: &[u8]) -> Result<Option<u32>> {
    for n in 0..dir_pages(dir) {
        let folio = dir_page(dir, n)?;
        let last = last_byte(dir, n);
        let found = folio.with_page(0, |d| -> Result<Option<u32>> {
            let mut p = 0;
            while p + 12 <= last {
                let e = entry_at(d, p);
                if e.rec_len == 0 {
                    pr_err!("rust_ext2: error: ext2_find_entry: zero-length directory entry\n");
                    return Err(EIO);
                }
                if e.ino != 0 && e.name == name {
                    return Ok(Some(e.ino));
                }
                p += e.rec_len;
            }
            Ok(None)
        })??;
        if found.is_some() {
            return Ok(found);
        }
    }
    Ok(None)
}

struct DirOps;

#[vtable]
impl INodeOperations for DirOps {
    type FileSystem = Ext2Fs;

    fn lookup(
        parent: &INode<Ext2Fs>,
        dentry: dentry::Unhashed<'_, Ext2Fs>,
    ) -> Result<Option<ARef<DEntry<Ext2Fs>>>> {
        let name = dentry.name();
        if name.len() > defs::EXT2_NAME_LEN {
            return Err(ENAMETOOLONG);
        }
        let inode = match inode_by_name(parent, name)? {
            None => None,
            Some(ino) => match iget(parent.super_block(), ino.into()) {
                Ok(i) => Some(i),
                Err(e) if e == ESTALE => {
                    pr_err!(
                        "rust_ext2: error: ext2_lookup: deleted inode referenced: {}\n",
                        ino
                    );
                    return Err(EIO);
                }
                Err(e) => return Err(e),
            },
        };
        dentry.splice_alias(inode)
    }

    fn listxattr(dentry: &DEntry<Ext2Fs>, buf: &mut [u8]) -> Result<usize> {
        xattr::list(dentry, buf)
    }
}

// SPDX-License-Identifier: GPL-2.0

//! Name lookup in directories (`fs/ext2/namei.c`, `ext2_find_entry` of `fs/ext2/dir.c`).

use crate::dir::{
    self, dir_folio, dir_pages, dir_size, header_at, last_byte, name_matches, rec_len_for,
    EntryHeader,
};
use crate::ext2;
use crate::ext2::Ext2Fs;
use crate::inode::iget;
use crate::superblock::ext2_error;
use crate::xattr;
use kernel::fs::dentry::{self, DEntry};
use kernel::fs::inode::{
    AclWalk, Attr, FileAttr, INode, INodeOperations, Instantiated, Kstat, LockedINode, Negative,
};
use kernel::fs::posix_acl::{self, Acl};
use kernel::prelude::*;
use kernel::sync::aref::ARef;
use kernel::sync::atomic::Relaxed;

/// Finds `name` in directory `dir`, returning its inode number (`ext2_find_entry`).
///
/// As in C, the search starts at the page where the previous lookup in `dir` succeeded, so that
/// looking up the names of a directory in readdir order does not rescan it from the start.
pub(crate) fn inode_by_name(dir: &INode<Ext2Fs>, name: &[u8]) -> Result<Option<u32>> {
    Ok(find_entry(dir, name)?.map(|(ino, _, _)| ino))
}

/// Finds `name` in directory `dir` (`ext2_find_entry`), returning its inode number, page and
/// offset in the page.
fn find_entry(dir: &INode<Ext2Fs>, name: &[u8]) -> Result<Option<(u32, u64, usize)>> {
    let size = dir_size(dir);
    let npages = dir_pages(size);
    if npages == 0 {
        return Ok(None);
    }
    let data = dir.data();
    // The hint only matters for directories of more than one page.
    let mut start = if npages > 1 {
        data.dir_start_lookup.load(Relaxed)
    } else {
        0
    };
    if start >= npages {
        start = 0;
    }
    let mut n = start;
    loop {
        let folio = dir_folio(dir, n)?;
        let last = last_byte(size, n);
        let found = folio.with_mapped(0, |page| -> Result<Option<(u32, u64, usize)>> {
            let mut p = 0usize;
            while p.saturating_add(rec_len_for(1)) <= last {
                let EntryHeader {
                    ino,
                    rec_len,
                    name_len,
                    ..
                } = header_at(page, p)?;
                if rec_len == 0 {
                    ext2_error!(
                        dir.super_block(),
                        "ext2_find_entry: zero-length directory entry"
                    );
                    return Err(EIO);
                }
                if ino != 0 && name_matches(page, p, name_len, name) {
                    return Ok(Some((ino, n, p)));
                }
                p = p.saturating_add(rec_len);
            }
            Ok(None)
        })??;
        if found.is_some() {
            if n != start {
                data.dir_start_lookup.store(n, Relaxed);
            }
            return Ok(found);
        }
        n = n.saturating_add(1);
        if n >= npages {
            n = 0;
        }
        // The next page is past the blocks the directory has (`i_blocks` now: creates grow
        // the directory).
        let blocks = dir.blocks();
        if n > blocks >> (kernel::page::PAGE_SHIFT - 9) {
            ext2_error!(
                dir.super_block(),
                "ext2_find_entry: dir {} size {} exceeds block count {}",
                dir.ino(),
                dir.size(),
                blocks
            );
            return Ok(None);
        }
        if n == start {
            return Ok(None);
        }
    }
}

pub(crate) struct DirOps;

#[vtable]
impl INodeOperations for DirOps {
    type FileSystem = Ext2Fs;

    fn lookup(
        parent: &INode<Ext2Fs>,
        dentry: dentry::Unhashed<'_, Ext2Fs>,
    ) -> Result<Option<ARef<DEntry<Ext2Fs>>>> {
        let name = dentry.name();
        if name.len() > ext2::EXT2_NAME_LEN {
            return Err(ENAMETOOLONG);
        }
        let inode = match inode_by_name(parent, name)? {
            None => None,
            Some(ino) => match iget(parent.super_block(), ino.into()) {
                Ok(i) => Some(i),
                Err(e) if e == ESTALE => {
                    ext2_error!(
                        parent.super_block(),
                        "ext2_lookup: deleted inode referenced: {}",
                        ino
                    );
                    return Err(EIO);
                }
                Err(e) => return Err(e),
            },
        };
        dentry.splice_alias(inode)
    }

    /// `ext2_create`.
    fn create<'a>(
        dir: &mut LockedINode<'_, Ext2Fs>,
        dentry: Negative<'a, Ext2Fs>,
        mode: u16,
    ) -> Result<Instantiated<'a>> {
        let inode = crate::ialloc::new_inode(dir, mode)?;
        // A name longer than `EXT2_NAME_LEN` was refused by the lookup before.
        dir::add_link(dir, dentry.name(), inode.ino() as u32, inode.mode())?;
        dentry.instantiate_new(inode)
    }

    /// `ext2_unlink`.
    fn unlink(
        dir: &mut LockedINode<'_, Ext2Fs>,
        dentry: &DEntry<Ext2Fs>,
        inode: &mut LockedINode<'_, Ext2Fs>,
    ) -> Result {
        let (_, n, offs) = find_entry(dir, dentry.name_in(dir)?)?.ok_or(ENOENT)?;
        dir::delete_entry(dir, n, offs)?;
        inode.set_ctime(dir.ctime());
        if inode.nlink() != 0 {
            inode.dec_link_count()?;
        }
        Ok(())
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

    fn fileattr_get(dentry: &DEntry<Ext2Fs>, fa: &mut FileAttr<'_>) -> Result {
        crate::inode::fileattr_get(dentry, fa)
    }

    fn get_inode_acl(walk: AclWalk<'_, Ext2Fs>, ty: posix_acl::AclType) -> Result<Option<Acl>> {
        crate::acl::get_acl(walk, ty)
    }
}

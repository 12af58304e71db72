// SPDX-License-Identifier: GPL-2.0

//! Name lookup in directories (`fs/ext2/namei.c`, `ext2_find_entry` of `fs/ext2/dir.c`).

use crate::dir::{
    self, dir_folio, dir_pages, dir_size, header_at, last_byte, name_matches, rec_len_for,
    EntryHeader,
};
use crate::ext2;
use crate::ext2::Ext2Fs;
use crate::ialloc::NewKind;
use crate::inode::iget;
use crate::superblock::ext2_error;
use crate::xattr;
use kernel::fs::dentry::{self, DEntry};
use kernel::fs::inode::{
    mode, rename_flags, AclWalk, Attr, Created, Dev, FileAttr, INode, INodeOperations,
    Instantiated, Kstat, LockedINode, Negative, NewFileAttr, Rename, Timespec, TmpFile,
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

/// Names a new inode that is not a directory's `..` (`ext2_add_nondir`): its entry added,
/// then the dentry instantiated; on failure the inode is discarded (dropped) and its eviction
/// frees it.
fn add_nondir<'a>(
    dir: &mut LockedINode<'_, Ext2Fs>,
    dentry: Negative<'a, Ext2Fs>,
    inode: Created<Ext2Fs>,
) -> Result<Instantiated<'a>> {
    // A name longer than `EXT2_NAME_LEN` was refused by the lookup before.
    dir::add_link(
        dir,
        dentry.name(),
        u32::try_from(inode.ino())?,
        inode.mode(),
    )?;
    dentry.instantiate_new(inode)
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
        let inode = crate::ialloc::new_inode(dir, Some(&dentry), mode, NewKind::Plain)?;
        add_nondir(dir, dentry, inode)
    }

    /// `ext2_mkdir`: the parent's link for `..` first (given back on failure), the new
    /// directory's first chunk, then its name.
    fn mkdir<'a>(
        dir: &mut LockedINode<'_, Ext2Fs>,
        dentry: Negative<'a, Ext2Fs>,
        mode: u16,
    ) -> Result<Instantiated<'a>> {
        dir.inc_link_count()?;
        let parent = u32::try_from(dir.ino())?;
        let made =
            crate::ialloc::new_inode(dir, Some(&dentry), mode, NewKind::Plain).and_then(|inode| {
                inode.with_lock(|new| dir::make_empty(new, parent))?;
                Ok(inode)
            });
        let r = made.and_then(|inode| add_nondir(dir, dentry, inode));
        if r.is_err() {
            // The count was raised above: it is not zero.
            let _ = dir.dec_link_count();
        }
        r
    }

    /// `ext2_rmdir`: an empty directory's name removed as `ext2_unlink`, its size and links
    /// dropped, and the parent's link for `..`.
    fn rmdir(
        dir: &mut LockedINode<'_, Ext2Fs>,
        dentry: &DEntry<Ext2Fs>,
        inode: &mut LockedINode<'_, Ext2Fs>,
    ) -> Result {
        if !dir::empty_dir(inode) {
            return Err(ENOTEMPTY);
        }
        Self::unlink(dir, dentry, inode)?;
        inode.set_size(0)?;
        // C's `inode_dec_link_count` would warn on a count a corrupt file system got wrong;
        // it stays at zero here.
        let _ = inode.dec_link_count();
        let _ = dir.dec_link_count();
        Ok(())
    }

    /// `ext2_mknod`.
    fn mknod<'a>(
        dir: &mut LockedINode<'_, Ext2Fs>,
        dentry: Negative<'a, Ext2Fs>,
        mode: u16,
        dev: Dev,
    ) -> Result<Instantiated<'a>> {
        let inode = crate::ialloc::new_inode(dir, Some(&dentry), mode, NewKind::Special(dev))?;
        add_nondir(dir, dentry, inode)
    }

    /// `ext2_symlink`: a target that fits in `i_block` with its NUL is kept there (a fast
    /// symlink), a longer one is written to the link's first block through its page cache (as
    /// `page_symlink`); one longer than a block is `ENAMETOOLONG`.
    fn symlink<'a>(
        dir: &mut LockedINode<'_, Ext2Fs>,
        dentry: Negative<'a, Ext2Fs>,
        target: &CStr,
    ) -> Result<Instantiated<'a>> {
        let bytes = target.to_bytes_with_nul();
        let l = bytes.len();
        if l > dir.super_block().data().block_size as usize {
            return Err(ENAMETOOLONG);
        }
        let fmt = mode::S_IFLNK | 0o777;
        let mut fast = [0u8; 4 * ext2::EXT2_N_BLOCKS];
        let inode = match fast.get_mut(..l) {
            Some(dst) => {
                dst.copy_from_slice(bytes);
                let len = l.saturating_sub(1);
                crate::ialloc::new_inode(dir, Some(&dentry), fmt, NewKind::FastLink(fast, len))?
            }
            None => {
                let inode = crate::ialloc::new_inode(dir, Some(&dentry), fmt, NewKind::Plain)?;
                inode.with_lock(|new| crate::symlink::write_target(new, target.to_bytes()))?;
                inode
            }
        };
        inode.mark_dirty();
        add_nondir(dir, dentry, inode)
    }

    /// `ext2_link`.
    fn link<'a>(
        _old: &DEntry<Ext2Fs>,
        inode: &mut LockedINode<'_, Ext2Fs>,
        dir: &mut LockedINode<'_, Ext2Fs>,
        dentry: Negative<'a, Ext2Fs>,
    ) -> Result<Instantiated<'a>> {
        inode.set_ctime(Timespec::now());
        inode.inc_link_count()?;
        let ino = u32::try_from(inode.ino())?;
        if let Err(e) = dir::add_link(dir, dentry.name(), ino, inode.mode()) {
            // Raised just above: not zero.
            let _ = inode.dec_link_count();
            return Err(e);
        }
        dentry.instantiate_linked(inode)
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

    /// `ext2_rename`: the new name added (or, replacing a target, pointed to the source), the
    /// old one removed, and for a directory moved to another one its `..` re-pointed and the
    /// link counts of both directories moved with it.
    fn rename(r: Rename<'_, '_, Ext2Fs>) -> Result {
        if r.flags & !rename_flags::NOREPLACE != 0 {
            return Err(EINVAL);
        }
        let Rename {
            old_dir,
            new_dir,
            old_dentry,
            new_dentry,
            source,
            source_locked,
            target_locked,
            ..
        } = r;
        let old_is_dir = source.data().is_dir();
        let source_ino = u32::try_from(source.ino())?;
        let (_, old_n, old_offs) =
            find_entry(old_dir, old_dentry.name_in(old_dir)?)?.ok_or(ENOENT)?;
        let cross = new_dir.is_some();
        // The moved directory's `..`, found first (its page unreadable: `EIO`).
        let dotdot = match old_is_dir && cross {
            true => Some(dir::dotdot(source).map_err(|_| EIO)?),
            false => None,
        };
        let nd = match new_dir {
            Some(d) => d,
            None => &mut *old_dir,
        };
        let (new_dir_ino, new_dir_mode) = (u32::try_from(nd.ino())?, nd.mode());
        let new_name = new_dentry.name_in(nd)?;
        if let Some(target) = target_locked {
            if old_is_dir && !dir::empty_dir(target) {
                return Err(ENOTEMPTY);
            }
            let (_, n, offs) = find_entry(nd, new_name)?.ok_or(ENOENT)?;
            dir::set_link(nd, n, offs, source_ino, source.mode(), true)?;
            target.set_ctime(Timespec::now());
            // A replaced directory loses its `..` link too (C's `drop_nlink`, then
            // `inode_dec_link_count`); a count a corrupt file system got wrong stays at zero.
            if old_is_dir {
                let _ = target.dec_link_count();
            }
            let _ = target.dec_link_count();
        } else {
            dir::add_link(nd, new_name, source_ino, source.mode())?;
            if old_is_dir {
                nd.inc_link_count()?;
            }
        }
        source.set_ctime_now();
        source.mark_dirty();
        dir::delete_entry(old_dir, old_n, old_offs)?;
        if old_is_dir {
            let mut r = Ok(());
            if let (Some(offs), Some(moved)) = (dotdot, source_locked) {
                r = dir::set_link(moved, 0, offs, new_dir_ino, new_dir_mode, false);
            }
            let _ = old_dir.dec_link_count();
            r?;
        }
        Ok(())
    }

    /// `ext2_tmpfile`.
    fn tmpfile<'a>(
        dir: &INode<Ext2Fs>,
        file: TmpFile<'a, Ext2Fs>,
        mode: u16,
    ) -> Result<Instantiated<'a>> {
        let inode = crate::ialloc::new_inode(dir, None, mode, NewKind::Plain)?;
        file.instantiate(inode)
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

    fn fileattr_set(
        dentry: &DEntry<Ext2Fs>,
        inode: &mut LockedINode<'_, Ext2Fs>,
        fa: &NewFileAttr<'_>,
    ) -> Result {
        crate::inode::fileattr_set(dentry, inode, fa)
    }

    fn get_inode_acl(walk: AclWalk<'_, Ext2Fs>, ty: posix_acl::AclType) -> Result<Option<Acl>> {
        crate::acl::get_acl(walk, ty)
    }

    fn set_acl(
        dentry: &DEntry<Ext2Fs>,
        inode: &mut LockedINode<'_, Ext2Fs>,
        acl: Option<&Acl>,
        ty: posix_acl::AclType,
    ) -> Result {
        crate::acl::set_acl(dentry, inode, acl, ty)
    }
}

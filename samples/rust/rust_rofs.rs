// SPDX-License-Identifier: GPL-2.0

//! Rust read-only file system sample.
//!
//! An in-memory file system, `rust-fs`, whose root holds `test.txt` (`hello\n`), a
//! subdirectory, a symbolic link and a file with a `user.` extended attribute. It exercises
//! each operations table of the bindings: super, inode, file, address space and xattr.

use kernel::fs::address_space::{AddressSpaceOperations, LockedFolio};
use kernel::fs::dentry::{self, DEntry};
use kernel::fs::file::{DirEmitter, DirEntryType, File, FileOperations};
use kernel::fs::inode::{self, FileType, INode, INodeOperations, NewINode, UNIX_EPOCH};
use kernel::fs::sb::{self, SuperBlock, SuperOperations};
use kernel::fs::xattr::{self, XattrHandler};
use kernel::prelude::*;
use kernel::sync::aref::ARef;

kernel::module_fs! {
    type: RoFs,
    name: "rust_rofs",
    authors: ["Rust for Linux Contributors"],
    description: "Rust read-only file system sample",
    license: "GPL",
    // mount -t rust-fs loads the module, as MODULE_ALIAS_FS does for C.
    alias: ["fs-rust-fs"],
}

/// The magic number of the file system ("RUST").
const MAGIC: usize = 0x5255_5354;

/// What an entry of the file system is.
enum Kind {
    Dir,
    File(&'static [u8]),
    Link(&'static CStr),
}

/// An inode of the file system, and its name in its parent directory.
struct Entry {
    name: &'static [u8],
    ino: u64,
    parent: u64,
    kind: Kind,
    mode: u16,
    xattrs: &'static [(&'static [u8], &'static [u8])],
}

const ROOT_INO: u64 = 1;

const ENTRIES: [Entry; 6] = [
    Entry {
        name: b"",
        ino: ROOT_INO,
        parent: ROOT_INO,
        kind: Kind::Dir,
        mode: 0o555,
        xattrs: &[],
    },
    Entry {
        name: b"test.txt",
        ino: 2,
        parent: ROOT_INO,
        kind: Kind::File(b"hello\n"),
        mode: 0o444,
        xattrs: &[],
    },
    Entry {
        name: b"subdir",
        ino: 3,
        parent: ROOT_INO,
        kind: Kind::Dir,
        mode: 0o555,
        xattrs: &[],
    },
    Entry {
        name: b"link",
        ino: 4,
        parent: ROOT_INO,
        kind: Kind::Link(c"test.txt"),
        mode: 0o777,
        xattrs: &[],
    },
    Entry {
        name: b"xattr.txt",
        ino: 5,
        parent: ROOT_INO,
        kind: Kind::File(b"has an extended attribute\n"),
        mode: 0o444,
        xattrs: &[(b"sample", b"rust-fs xattr value")],
    },
    Entry {
        name: b"nested.txt",
        ino: 6,
        parent: 3,
        kind: Kind::File(b"in subdir\n"),
        mode: 0o444,
        xattrs: &[],
    },
];

/// Returns the entry of inode `ino`.
fn entry(ino: u64) -> Result<&'static Entry> {
    ENTRIES.iter().find(|e| e.ino == ino).ok_or(ENOENT)
}

struct RoFs;

impl kernel::fs::FileSystem for RoFs {
    type Data = ();
    type INodeData = &'static Entry;
    type INodeWriterState = ();

    fn init_inode_writer_state() -> impl PinInit<(), Error> {
        Ok(())
    }

    type Options = ();
    const NAME: &'static CStr = c"rust-fs";
    type SuperOperations = Self;

    fn fill_super(sb: &mut SuperBlock<Self, sb::New>, (): &()) -> Result<sb::SuperParams<()>> {
        sb.set_xattr_handlers(XATTR_HANDLERS);
        Ok(sb::SuperParams {
            magic: MAGIC,
            blocksize_bits: 12,
            maxbytes: sb::MAX_LFS_FILESIZE,
            time_gran: 1,
            data: (),
        })
    }

    fn init_root(sb: &SuperBlock<Self>) -> Result<dentry::Root<Self>> {
        dentry::Root::try_new(iget(sb, entry(ROOT_INO)?)?)
    }
}

#[vtable]
impl SuperOperations for RoFs {
    type FileSystem = Self;

    fn statfs(_dentry: &DEntry<Self>) -> Result<sb::StatFs> {
        Ok(sb::StatFs {
            magic: MAGIC,
            namelen: 255,
            bsize: 4096,
            files: ENTRIES.len() as u64,
            ..Default::default()
        })
    }
}

const XATTR_HANDLERS: xattr::Handlers<RoFs> =
    xattr::Handlers::new(&[Some(xattr::Handler::new::<UserXattr>()), None]);

/// Returns the inode of `e`, creating it if it is not in the inode cache.
fn iget(sb: &SuperBlock<RoFs>, e: &'static Entry) -> Result<ARef<INode<RoFs>>> {
    sb.iget(e.ino, |new| init_inode(e, new))
}

/// Sets up the new inode of `e`.
fn init_inode(e: &'static Entry, new: &mut NewINode<RoFs>) -> Result<inode::INodeParams<RoFs>> {
    let subdirs = ENTRIES
        .iter()
        .filter(|c| c.parent == e.ino && c.ino != e.ino && matches!(c.kind, Kind::Dir))
        .count();
    let (typ, size, nlink) = match e.kind {
        Kind::Dir => {
            new.set_inode_ops::<DirOps>().set_file_ops::<DirOps>();
            (
                FileType::Dir,
                ENTRIES.iter().filter(|c| c.parent == e.ino).count(),
                2 + subdirs as u32,
            )
        }
        Kind::File(data) => {
            new.set_inode_ops::<FileOps>()
                .set_generic_ro_file_ops()
                .set_aops::<FileOps>();
            (FileType::Reg, data.len(), 1)
        }
        Kind::Link(target) => {
            new.set_inode_ops::<LinkOps>();
            (FileType::Lnk, target.to_bytes().len(), 1)
        }
    };
    Ok(inode::INodeParams {
        typ,
        mode: e.mode,
        size: size.try_into()?,
        blocks: 1,
        nlink,
        uid: 0,
        gid: 0,
        ctime: UNIX_EPOCH,
        mtime: UNIX_EPOCH,
        atime: UNIX_EPOCH,
        generation: 0,
        flags: inode::Flags::NONE,
        value: e,
    })
}

struct DirOps;

#[vtable]
impl INodeOperations for DirOps {
    type FileSystem = RoFs;

    fn lookup(
        parent: &INode<RoFs>,
        dentry: dentry::Unhashed<'_, RoFs>,
    ) -> Result<Option<ARef<DEntry<RoFs>>>> {
        let name = dentry.name();
        let found = ENTRIES
            .iter()
            .find(|e| e.parent == parent.ino() && e.ino != parent.ino() && e.name == name);
        let inode = match found {
            Some(e) => Some(iget(parent.super_block(), e)?),
            None => None,
        };
        dentry.splice_alias(inode)
    }
}

#[vtable]
impl FileOperations for DirOps {
    type FileSystem = RoFs;

    fn read_dir(file: &File<RoFs>, emitter: &mut DirEmitter) -> Result {
        let dir = file.inode().data();
        // Positions: 0 is ".", 1 is "..", 2 + i is the i-th child.
        if emitter.pos() == 0 && !emitter.emit(1, b".", dir.ino, DirEntryType::Dir) {
            return Ok(());
        }
        if emitter.pos() == 1 && !emitter.emit(1, b"..", dir.parent, DirEntryType::Dir) {
            return Ok(());
        }
        let skip = usize::try_from(emitter.pos() - 2).map_err(|_| EINVAL)?;
        let children = ENTRIES
            .iter()
            .filter(|e| e.parent == dir.ino && e.ino != dir.ino);
        for e in children.skip(skip) {
            let etype = match e.kind {
                Kind::Dir => DirEntryType::Dir,
                Kind::File(_) => DirEntryType::Reg,
                Kind::Link(_) => DirEntryType::Lnk,
            };
            if !emitter.emit(1, e.name, e.ino, etype) {
                break;
            }
        }
        Ok(())
    }
}

struct LinkOps;

#[vtable]
impl INodeOperations for LinkOps {
    type FileSystem = RoFs;

    /// The target is static; the VFS reads it as `i_link`.
    fn inline_link<'a>(data: &'a &'static Entry) -> Option<&'a CStr> {
        match data.kind {
            Kind::Link(target) => Some(target),
            _ => None,
        }
    }
}

struct FileOps;

#[vtable]
impl INodeOperations for FileOps {
    type FileSystem = RoFs;

    fn listxattr(dentry: &DEntry<RoFs>, buf: &mut [u8]) -> Result<usize> {
        let inode = dentry.inode().ok_or(EINVAL)?;
        let prefix = UserXattr::PREFIX.to_bytes();
        let mut len = 0;
        for (name, _) in inode.data().xattrs {
            let total = prefix.len() + name.len() + 1;
            if !buf.is_empty() {
                let out = buf.get_mut(len..len + total).ok_or(ERANGE)?;
                out[..prefix.len()].copy_from_slice(prefix);
                out[prefix.len()..total - 1].copy_from_slice(name);
                out[total - 1] = 0;
            }
            len += total;
        }
        Ok(len)
    }
}

#[vtable]
impl AddressSpaceOperations for FileOps {
    type FileSystem = RoFs;

    /// Copies the file's part of the folio; the bindings zero the rest.
    fn read_folio(_file: Option<&File<RoFs>>, folio: &mut LockedFolio<'_, RoFs>) -> Result {
        let data = match folio.inode().data().kind {
            Kind::File(data) => data,
            _ => return Err(EINVAL),
        };
        let pos = usize::try_from(folio.pos()).unwrap_or(usize::MAX);
        if pos < data.len() {
            let to_copy = core::cmp::min(data.len() - pos, folio.size());
            folio.write(0, &data[pos..][..to_copy])?;
        }
        Ok(())
    }
}

struct UserXattr;

#[vtable]
impl XattrHandler for UserXattr {
    type FileSystem = RoFs;
    const PREFIX: &'static CStr = c"user.";

    fn get(
        _dentry: Option<&DEntry<RoFs>>,
        inode: &INode<RoFs>,
        name: &[u8],
        buf: &mut [u8],
    ) -> Result<usize> {
        let (_, value) = inode
            .data()
            .xattrs
            .iter()
            .find(|(n, _)| *n == name)
            .ok_or(ENODATA)?;
        if !buf.is_empty() {
            buf.get_mut(..value.len())
                .ok_or(ERANGE)?
                .copy_from_slice(value);
        }
        Ok(value.len())
    }
}

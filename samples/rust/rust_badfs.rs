// SPDX-License-Identifier: GPL-2.0

//! A file system that misbehaves on purpose, for testing the VFS bindings.
//!
//! Every method here is safe code that does something wrong: the bindings must turn each case
//! into an error for user space (or simply make it work), never into a kernel splat. The test
//! `tests/vm/12-badfs.sh` walks it on the debug kernel (KASAN, hardened usercopy, sleep-in-atomic
//! and lockdep checks). The root directory holds:
//!
//! - `xattrs`: its `listxattr` and `user.` xattr `get` return more bytes than the buffer they
//!   were given (the bindings say `ERANGE`);
//! - `noaops/`: a directory without address space operations whose `lookup` asks for a folio of
//!   its own page cache (the bindings say `EINVAL`);
//! - `owned`: a symbolic link that returns an owned target even in RCU walk (the bindings say
//!   `ECHILD` there, and the ref walk follows it);
//! - `inlink`: a symbolic link whose target is borrowed from its inode's data, which the file
//!   system did not whitelist for user copies (the bindings copy it for `readlink`).
//!
//! Its per-inode data needs 128-byte alignment (checked on every inode it returns) and has a
//! `Drop` that may sleep.

use kernel::fs::dentry::{self, DEntry};
use kernel::fs::inode::{self, INode, INodeOperations, Link, LinkWalk, Type, UNIX_EPOCH};
use kernel::fs::sb::{self, SuperBlock, SuperOperations};
use kernel::fs::xattr::{self, XattrHandler};
use kernel::prelude::*;
use kernel::sync::aref::ARef;

kernel::module_fs! {
    type: BadFs,
    name: "rust_badfs",
    authors: ["Rust for Linux Contributors"],
    description: "Rust file system that misbehaves on purpose (binding tests)",
    license: "GPL",
}

const ROOT_INO: u64 = 1;

/// The entries of the root: name, inode number, type.
const ENTRIES: [(&[u8], u64); 4] = [
    (b"xattrs", 2),
    (b"noaops", 3),
    (b"owned", 4),
    (b"inlink", 5),
];

/// A value whose `Drop` may sleep (it says so to `CONFIG_DEBUG_ATOMIC_SLEEP`).
struct Sleeper;

impl Drop for Sleeper {
    fn drop(&mut self) {
        kernel::task::might_sleep();
    }
}

/// Per-inode data: over-aligned, with a sleeping `Drop`, holding a link target.
#[repr(align(128))]
struct BadINode {
    link: [u8; 8],
    _sleeper: Sleeper,
}

struct BadFs;

impl kernel::fs::FileSystem for BadFs {
    type Data = ();
    type INodeData = BadINode;
    type Options = ();
    const NAME: &'static CStr = c"rust-badfs";
    const SUPER_OPERATIONS: sb::Ops<Self> = sb::Ops::new::<Self>();

    fn fill_super(sb: &mut SuperBlock<Self, sb::New>, (): &()) -> Result<sb::Params<()>> {
        sb.set_xattr_handlers(XATTR_HANDLERS);
        Ok(sb::Params {
            magic: 0x4241_4446,
            blocksize_bits: 12,
            // Too big: the bindings clamp it to `MAX_LFS_FILESIZE`.
            maxbytes: i64::MAX,
            time_gran: 1,
            data: (),
        })
    }

    fn init_root(sb: &SuperBlock<Self>) -> Result<dentry::Root<Self>> {
        dentry::Root::try_new(iget(sb, ROOT_INO)?)
    }
}

#[vtable]
impl SuperOperations for BadFs {
    type FileSystem = Self;
}

const XATTR_HANDLERS: xattr::Handlers<BadFs> =
    xattr::Handlers::new(&[Some(xattr::Handler::new::<UserXattr>()), None]);
const ROOT_IOPS: inode::Ops<BadFs> = inode::Ops::new::<RootOps>();
const NOAOPS_IOPS: inode::Ops<BadFs> = inode::Ops::new::<NoAopsOps>();
const XATTRS_IOPS: inode::Ops<BadFs> = inode::Ops::new::<XattrsOps>();
const OWNED_IOPS: inode::Ops<BadFs> = inode::Ops::new::<OwnedLinkOps>();
const INLINK_IOPS: inode::Ops<BadFs> = inode::Ops::new::<DataLinkOps>();

/// Returns inode `ino`, creating it if it is not in the inode cache.
fn iget(sb: &SuperBlock<BadFs>, ino: u64) -> Result<ARef<INode<BadFs>>> {
    let mut new = match sb.get_or_create_inode(ino)? {
        inode::Lookup::Existing(inode) => return Ok(inode),
        inode::Lookup::New(new) => new,
    };
    let (typ, iops) = match ino {
        ROOT_INO => (Type::Dir, ROOT_IOPS),
        2 => (Type::Reg, XATTRS_IOPS),
        3 => (Type::Dir, NOAOPS_IOPS),
        4 => (Type::Lnk, OWNED_IOPS),
        5 => (Type::Lnk, INLINK_IOPS),
        _ => return Err(ENOENT),
    };
    new.set_inode_ops(iops);
    let inode = new.init(inode::Params {
        typ,
        mode: 0o755,
        size: 6,
        blocks: 0,
        nlink: 1,
        uid: 0,
        gid: 0,
        ctime: UNIX_EPOCH,
        mtime: UNIX_EPOCH,
        atime: UNIX_EPOCH,
        generation: 0,
        flags: inode::Flags::NONE,
        value: BadINode {
            link: *b"xattrs\0\0",
            _sleeper: Sleeper,
        },
    })?;
    // The data must be aligned as its type says.
    let addr = core::ptr::from_ref(inode.data()).addr();
    if addr % core::mem::align_of::<BadINode>() != 0 {
        pr_err!("inode {ino}: data misaligned at {addr:#x}\n");
        return Err(EIO);
    }
    Ok(inode)
}

struct RootOps;

#[vtable]
impl INodeOperations for RootOps {
    type FileSystem = BadFs;

    fn lookup(
        parent: &INode<BadFs>,
        dentry: dentry::Unhashed<'_, BadFs>,
    ) -> Result<Option<ARef<DEntry<BadFs>>>> {
        let found = ENTRIES.iter().find(|(name, _)| *name == dentry.name());
        let inode = match found {
            Some((_, ino)) => Some(iget(parent.super_block(), *ino)?),
            None => None,
        };
        dentry.splice_alias(inode)
    }
}

struct NoAopsOps;

#[vtable]
impl INodeOperations for NoAopsOps {
    type FileSystem = BadFs;

    /// Asks for a folio of a page cache that has no `read_folio`.
    fn lookup(
        parent: &INode<BadFs>,
        _dentry: dentry::Unhashed<'_, BadFs>,
    ) -> Result<Option<ARef<DEntry<BadFs>>>> {
        parent.read_mapping_folio(0)?;
        Err(EIO)
    }
}

struct XattrsOps;

#[vtable]
impl INodeOperations for XattrsOps {
    type FileSystem = BadFs;

    /// Claims 100 bytes more than the buffer holds.
    fn listxattr(_dentry: &DEntry<BadFs>, buf: &mut [u8]) -> Result<usize> {
        if let Some(b) = buf.first_mut() {
            *b = b'u';
        }
        Ok(buf.len() + 100)
    }
}

struct UserXattr;

#[vtable]
impl XattrHandler for UserXattr {
    type FileSystem = BadFs;
    const PREFIX: &'static CStr = c"user.";

    /// Claims 4096 bytes more than the buffer holds (and 16 bytes when asked for the size).
    fn get(
        _dentry: Option<&DEntry<BadFs>>,
        _inode: &INode<BadFs>,
        _name: &[u8],
        buf: &mut [u8],
    ) -> Result<usize> {
        buf.fill(b'x');
        Ok(if buf.is_empty() { 16 } else { buf.len() + 4096 })
    }
}

struct OwnedLinkOps;

#[vtable]
impl INodeOperations for OwnedLinkOps {
    type FileSystem = BadFs;

    /// Returns an owned target in both walks (allocated without sleeping).
    fn get_link<'a>(_walk: LinkWalk<'a, BadFs>) -> Result<Link<'a>> {
        let mut v = KVec::with_capacity(8, GFP_ATOMIC)?;
        v.extend_from_slice(b"xattrs", GFP_ATOMIC)?;
        Ok(Link::Owned(v))
    }
}

struct DataLinkOps;

#[vtable]
impl INodeOperations for DataLinkOps {
    type FileSystem = BadFs;

    /// Borrows the target from the inode's data, which is not in a usercopy whitelist.
    fn get_link<'a>(walk: LinkWalk<'a, BadFs>) -> Result<Link<'a>> {
        let link = &walk.inode().data().link;
        Ok(Link::Borrowed(
            CStr::from_bytes_until_nul(link).map_err(|_| EIO)?,
        ))
    }
}

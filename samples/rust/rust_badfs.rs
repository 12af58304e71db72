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
//! - `owned`: a symbolic link whose `get_link` may sleep (the bindings never call it in RCU walk:
//!   they say `ECHILD` there, and the ref walk calls it);
//! - `inlink`: a symbolic link whose target is in its inode's data, which the file system did not
//!   whitelist for user copies (the bindings do not make it `i_link` and copy it for `readlink`);
//! - `noread`: a regular file whose file operations read through the page cache, without address
//!   space operations (`read(2)` would call a NULL `read_folio`: the bindings refuse the inode,
//!   its lookup fails with `EINVAL`);
//! - `nolink`: a symbolic link read through the page cache (`page_get_link`), without address
//!   space operations (refused the same way);
//! - `blocks`: a regular file whose blocks its mapper says are on the device, which this
//!   superblock does not have (reads through the page cache and `O_DIRECT` reads fail with
//!   `EIO` instead of submitting bios to a NULL device);
//! - `partial`: a regular file whose `read_folio` writes a few bytes of each folio, with a gap
//!   before them, and none at all in most (the bindings zero the rest: no stale memory is read);
//! - `failing`: an inode whose set-up fails after its operations were set (the bindings release
//!   the locked new inode, so the next lookup fails again instead of waiting for it forever);
//! - `holder`: a symbolic link whose inode data holds a reference to `xattrs`' inode, and whose
//!   `get_link` borrows the target from that other inode's data (the bindings copy it: hardened
//!   usercopy checks it against the other inode's object);
//! - `holes`: an 8 KiB file whose `fiemap` maps with a mapper that finds only holes, for any
//!   length asked (the bindings clamp the length to the size: two holes, not 2^51);
//! - `bigino`: a file whose inode number does not fit in 32 bits, with the ino32 file handles of
//!   its export operations (the bindings refuse the handle, `EOVERFLOW`, instead of one that
//!   names inode 2);
//! - `forget`: a file whose new inode and folio are forgotten (`mem::forget`) by the code that
//!   sets them up and reads them: it has only borrows, so the bindings still unlock both;
//! - `nowrite`: a regular file whose file operations write through the page cache, with address
//!   space operations that cannot (`write(2)` would call a NULL `write_begin`: the bindings
//!   refuse the inode, its lookup fails with `EINVAL`);
//! - `wrongpos`: a writable file whose `write_begin` prepares a folio for another length than
//!   the one asked (the bindings refuse it, `EINVAL`, and release the folio, which stays
//!   usable).
//!
//! Two names reach across superblocks, through an inode slot shared by every mount of the type:
//! looking up `stash` puts `xattrs`' inode of this superblock in the slot (and finds nothing), and
//! looking up `foreign` returns the inode in the slot, of another superblock (the bindings refuse
//! to splice it: `EIO`); a mount with `-o foreign_root` makes the inode in the slot its root (the
//! bindings fail the mount: `EINVAL`). The slot is allocated on first use and lives as long as the
//! module (its box leaks when the module is removed, as a sample may not free a static).
//!
//! Its parameters `owner=UID` and `count=N` share an option number (the bindings read each as the
//! kind of the spec that matched it, a count not as a uid); the root is owned by `owner`, and a
//! count is refused.
//!
//! The superblock's data holds a reference to `xattrs`' inode too: the bindings release both
//! references at `put_super`, before the VFS's busy-inodes check.
//!
//! Its `fill_super` asks for block sizes of the device it does not have (the bindings fail the
//! calls instead of dereferencing a NULL `s_bdev`).
//!
//! Its per-inode data needs 128-byte alignment (checked on every inode it returns) and has a
//! `Drop` that may sleep; so has its per-inode writer state, whose initialiser fails for the root
//! of a mount with `-o writer_fail` (the bindings' `alloc_inode` then fails, and frees the object:
//! the mount fails with `ENOMEM`).

use kernel::fs::address_space::{
    self, AddressSpaceOperations, AllocRun, BlockAllocator, BlockMapper, BlockRun, LockedFolio,
    WriteFolio,
};
use kernel::fs::dentry::{self, DEntry};
use kernel::fs::export::ExportOperations;
use kernel::fs::file::{File, FileOperations};
use kernel::fs::inode::{
    self, FileType, INode, INodeOperations, Link, LockedINode, NewINode, UncountedINode,
    WritebackControl, UNIX_EPOCH,
};
use kernel::fs::iomap::{self, DirectIo, Fiemap};
use kernel::fs::param;
use kernel::fs::sb::{self, SuperBlock, SuperOperations};
use kernel::fs::xattr::{self, XattrHandler};
use kernel::prelude::*;
use kernel::sync::atomic::{Atomic, Relaxed};
use kernel::sync::{aref::ARef, Mutex, SetOnce};

kernel::module_fs! {
    type: BadFs,
    name: "rust_badfs",
    authors: ["Rust for Linux Contributors"],
    description: "Rust file system that misbehaves on purpose (binding tests)",
    license: "GPL",
}

const ROOT_INO: u64 = 1;

/// The entries of the root: name, inode number, type.
const ENTRIES: [(&[u8], u64); 15] = [
    (b"xattrs", 2),
    (b"noaops", 3),
    (b"owned", 4),
    (b"inlink", 5),
    (b"noread", 6),
    (b"nolink", 7),
    (b"blocks", 8),
    (b"partial", 9),
    (b"failing", 10),
    (b"holder", 11),
    (b"holes", 12),
    (b"bigino", BIG_INO),
    (b"forget", 13),
    (b"nowrite", 14),
    (b"wrongpos", 15),
];

/// The inode number of `bigino`: 2 in its low 32 bits.
const BIG_INO: u64 = (1 << 32) | 2;

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
    /// Another inode of the superblock, kept referenced (`holder`'s).
    held: Option<ARef<INode<BadFs>>>,
    _sleeper: Sleeper,
}

/// Per-superblock data: a reference to an inode, taken when the root is set up, and the options.
struct BadData {
    held: SetOnce<ARef<INode<BadFs>>>,
    options: BadOptions,
}

/// The mount options: the owner of the root, and whether the root is the inode in the slot.
#[derive(Clone, Copy, Default)]
struct BadOptions {
    owner: u32,
    foreign_root: bool,
    writer_fail: bool,
}

/// Per-inode writer state, with a `Drop` that may sleep.
struct BadWriter(Sleeper);

/// Set while the root of a `writer_fail` mount is looked up: writer states then fail.
static WRITER_FAIL: Atomic<bool> = Atomic::new(false);

/// `owner=UID` and `count=N`, under one option number.
const OPT_SHARED: u8 = 0;
const OPT_FOREIGN_ROOT: u8 = 1;
const OPT_WRITER_FAIL: u8 = 2;
const PARAMETERS: param::SpecTable = param::SpecTable::new(&[
    param::Spec::uid(c"owner", OPT_SHARED),
    param::Spec::u32(c"count", OPT_SHARED),
    param::Spec::flag(c"foreign_root", OPT_FOREIGN_ROOT),
    param::Spec::flag(c"writer_fail", OPT_WRITER_FAIL),
    param::Spec::END,
]);

/// The slot shared by all superblocks of the type: an inode of one of them.
type Slot = Mutex<Option<ARef<INode<BadFs>>>>;
static SLOT: SetOnce<Pin<KBox<Slot>>> = SetOnce::new();

/// Returns the slot, allocating it on first use.
fn slot() -> Result<&'static Slot> {
    if SLOT.as_ref().is_none() {
        // Another thread may have populated it meanwhile: this box is then dropped.
        SLOT.populate(KBox::pin_init(kernel::new_mutex!(None), GFP_KERNEL)?);
    }
    SLOT.as_ref().map(|s| &**s).ok_or(ENOMEM)
}

struct BadFs;

impl kernel::fs::FileSystem for BadFs {
    type Data = BadData;
    type INodeData = BadINode;
    type INodeWriterState = BadWriter;

    fn init_inode_writer_state() -> impl PinInit<BadWriter, Error> {
        if WRITER_FAIL.load(Relaxed) {
            Err(ENOMEM)
        } else {
            Ok(BadWriter(Sleeper))
        }
    }

    type Options = BadOptions;
    const PARAMETERS: param::SpecTable = PARAMETERS;

    /// The owner of the root: the uid given, or 0; `foreign_root`.
    fn parse_param(o: &mut BadOptions, p: param::Param<'_>) -> Result {
        match (p.opt, p.value) {
            (OPT_SHARED, param::Value::Id(uid)) => o.owner = uid,
            (OPT_FOREIGN_ROOT, param::Value::Flag(negated)) => o.foreign_root = !negated,
            (OPT_WRITER_FAIL, param::Value::Flag(negated)) => o.writer_fail = !negated,
            _ => return Err(EINVAL),
        }
        Ok(())
    }
    const NAME: &'static CStr = c"rust-badfs";
    /// Read-write, for `wrongpos`'s writes.
    const READ_WRITE: bool = true;
    type SuperOperations = Self;

    fn fill_super(
        sb: &mut SuperBlock<Self, sb::New>,
        options: &BadOptions,
    ) -> Result<sb::SuperParams<BadData>> {
        sb.set_xattr_handlers(XATTR_HANDLERS);
        sb.set_export_ops::<Self>();
        // No block device: the block-size calls must fail (they read `s_bdev`).
        if sb.min_blocksize(512) != 0 || sb.set_blocksize(4096).is_ok() {
            pr_err!("block size set without a block device\n");
            return Err(EIO);
        }
        Ok(sb::SuperParams {
            magic: 0x4241_4446,
            blocksize_bits: 12,
            // Too big: the bindings clamp it to `MAX_LFS_FILESIZE`.
            maxbytes: i64::MAX,
            time_gran: 1,
            data: BadData {
                held: SetOnce::new(),
                options: *options,
            },
        })
    }

    fn init_root(sb: &SuperBlock<Self>) -> Result<dentry::Root<Self>> {
        if sb.data().options.writer_fail {
            WRITER_FAIL.store(true, Relaxed);
            let root = iget(sb, ROOT_INO);
            WRITER_FAIL.store(false, Relaxed);
            return dentry::Root::try_new(root?);
        }
        sb.data().held.populate(iget(sb, 2)?);
        if sb.data().options.foreign_root {
            if let Some(inode) = slot()?.lock().take() {
                return dentry::Root::try_new(inode);
            }
        }
        dentry::Root::try_new(iget(sb, ROOT_INO)?)
    }
}

#[vtable]
impl SuperOperations for BadFs {
    type FileSystem = Self;
}

const XATTR_HANDLERS: xattr::Handlers<BadFs> =
    xattr::Handlers::new(&[Some(xattr::Handler::new::<UserXattr>()), None]);

/// Returns inode `ino`, creating it if it is not in the inode cache.
fn iget(sb: &SuperBlock<BadFs>, ino: u64) -> Result<ARef<INode<BadFs>>> {
    let inode = sb.iget(ino, |new| init_inode(sb, ino, new))?;
    // The data must be aligned as its type says.
    let addr = core::ptr::from_ref(inode.data()).addr();
    if addr % core::mem::align_of::<BadINode>() != 0 {
        pr_err!("inode {ino}: data misaligned at {addr:#x}\n");
        return Err(EIO);
    }
    Ok(inode)
}

/// Sets up new inode `ino`.
fn init_inode(
    sb: &SuperBlock<BadFs>,
    ino: u64,
    new: &mut NewINode<BadFs>,
) -> Result<inode::INodeParams<BadFs>> {
    let typ = match ino {
        ROOT_INO => {
            new.set_inode_ops::<RootOps>();
            FileType::Dir
        }
        3 => {
            new.set_inode_ops::<NoAopsOps>();
            FileType::Dir
        }
        2 | 6 | 8..=10 | 13..=15 | BIG_INO => {
            new.set_inode_ops::<XattrsOps>();
            FileType::Reg
        }
        12 => {
            new.set_inode_ops::<HolesOps>();
            FileType::Reg
        }
        4 => {
            new.set_inode_ops::<OwnedLinkOps>();
            FileType::Lnk
        }
        5 => {
            new.set_inode_ops::<DataLinkOps>();
            FileType::Lnk
        }
        7 => {
            new.set_inode_ops::<PageLinkOps>();
            FileType::Lnk
        }
        11 => {
            new.set_inode_ops::<HolderLinkOps>();
            FileType::Lnk
        }
        _ => return Err(ENOENT),
    };
    if ino == 10 {
        // Fails half-way: the new inode is still locked (`I_NEW`).
        return Err(EIO);
    }
    if ino == 6 {
        // Reads through the page cache, but no address space operations are set.
        new.set_generic_ro_file_ops();
    }
    if ino == 8 {
        new.set_file_ops::<BlocksFops>().set_aops::<BlocksAops>();
    }
    if ino == 9 || ino == 12 {
        // `holes` reads as `partial` does: it only needs to be opened (for FIEMAP).
        new.set_generic_ro_file_ops().set_aops::<PartialAops>();
    }
    if ino == 14 {
        // Writes through the page cache, but its address space cannot.
        new.set_file_ops::<WriteFops>().set_aops::<PartialAops>();
    }
    if ino == 15 {
        new.set_file_ops::<WriteFops>().set_aops::<WrongPosAops>();
    }
    if ino == 13 {
        new.set_generic_ro_file_ops().set_aops::<ForgetAops>();
        // All a file system has of the locked new inode is a borrow: forgetting it leaves
        // nothing locked (`iget` unlocks the inode when this closure returns).
        #[expect(forgetting_references)]
        core::mem::forget(new);
    }
    Ok(inode::INodeParams {
        typ,
        // Written by an unprivileged user too.
        mode: if ino == 15 { 0o777 } else { 0o755 },
        size: match ino {
            8 | 12 => 8192,
            9 => PARTIAL_SIZE,
            _ => 6,
        },
        blocks: 0,
        nlink: 1,
        uid: if ino == ROOT_INO {
            sb.data().options.owner
        } else {
            0
        },
        gid: 0,
        ctime: UNIX_EPOCH,
        mtime: UNIX_EPOCH,
        atime: UNIX_EPOCH,
        generation: 0,
        flags: inode::Flags::NONE,
        value: BadINode {
            link: *b"xattrs\0\0",
            held: if ino == 11 { Some(iget(sb, 2)?) } else { None },
            _sleeper: Sleeper,
        },
    })
}

struct RootOps;

#[vtable]
impl INodeOperations for RootOps {
    type FileSystem = BadFs;

    fn lookup(
        parent: &INode<BadFs>,
        dentry: dentry::Unhashed<'_, BadFs>,
    ) -> Result<Option<ARef<DEntry<BadFs>>>> {
        match dentry.name() {
            b"stash" => {
                *slot()?.lock() = Some(iget(parent.super_block(), 2)?);
                return dentry.splice_alias(None);
            }
            b"foreign" => {
                let inode = slot()?.lock().take();
                return dentry.splice_alias(inode);
            }
            _ => {}
        }
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

/// Says every block of a file is block 1 of the device.
struct OnDevice;

impl BlockMapper for OnDevice {
    type FileSystem = BadFs;

    fn map_blocks(
        _inode: &UncountedINode<BadFs>,
        _iblock: u64,
        _max: usize,
    ) -> Result<Option<BlockRun>> {
        Ok(Some(BlockRun {
            block: 1,
            count: 1,
            boundary: false,
        }))
    }
}

impl BlockAllocator for OnDevice {
    /// Says every block is new (never called: `wrongpos` prepares no bytes).
    fn alloc_blocks(_inode: &UncountedINode<BadFs>, _iblock: u64, _max: usize) -> Result<AllocRun> {
        Ok(AllocRun {
            run: BlockRun {
                block: 1,
                count: 1,
                boundary: false,
            },
            new: true,
        })
    }
}

/// Writable regular files.
struct WriteFops;

#[vtable]
impl FileOperations for WriteFops {
    type FileSystem = BadFs;
    const WRITE: bool = true;
}

/// Prepares every write for 0 bytes, whatever it was asked for.
struct WrongPosAops;

#[vtable]
impl AddressSpaceOperations for WrongPosAops {
    type FileSystem = BadFs;

    fn read_folio(_file: Option<&File<BadFs>>, _folio: &mut LockedFolio<'_, BadFs>) -> Result {
        Ok(())
    }

    fn writepages(inode: &UncountedINode<BadFs>, wbc: &mut WritebackControl) -> Result {
        address_space::mpage_writepages::<OnDevice>(inode, wbc)
    }

    fn write_begin<'a>(
        _file: Option<&File<BadFs>>,
        inode: &mut LockedINode<'a, BadFs>,
        pos: i64,
        _len: usize,
    ) -> Result<WriteFolio<'a, BadFs>> {
        address_space::block_write_begin::<OnDevice>(inode, pos, 0)
    }

    fn write_end<'a>(
        _file: Option<&File<BadFs>>,
        _inode: &mut LockedINode<'a, BadFs>,
        folio: WriteFolio<'a, BadFs>,
        _pos: i64,
        _len: usize,
        copied: usize,
    ) -> Result<usize> {
        Ok(folio.generic_write_end(copied))
    }
}

struct BlocksFops;

#[vtable]
impl FileOperations for BlocksFops {
    type FileSystem = BadFs;
    const DIRECT_IO: Option<DirectIo<BadFs>> = Some(DirectIo::new::<OnDevice>());
}

struct BlocksAops;

#[vtable]
impl AddressSpaceOperations for BlocksAops {
    type FileSystem = BadFs;

    fn read_folio(_file: Option<&File<BadFs>>, folio: &mut LockedFolio<'_, BadFs>) -> Result {
        address_space::mpage_read_folio::<OnDevice>(folio)
    }
}

/// The size of `partial`: 16 pages.
const PARTIAL_SIZE: i64 = 65536;

struct PartialAops;

#[vtable]
impl AddressSpaceOperations for PartialAops {
    type FileSystem = BadFs;

    /// Writes `partial` at byte 100 and `end` at byte 4000 of the first folio, nothing in the
    /// others, and says it read them all.
    fn read_folio(_file: Option<&File<BadFs>>, folio: &mut LockedFolio<'_, BadFs>) -> Result {
        if folio.pos() == 0 {
            folio.write(100, b"partial")?;
            folio.write(4000, b"end")?;
        }
        Ok(())
    }
}

struct ForgetAops;

#[vtable]
impl AddressSpaceOperations for ForgetAops {
    type FileSystem = BadFs;

    /// Writes `forget` and forgets the folio: all it has is a borrow, so the bindings still end
    /// the read and unlock the folio.
    fn read_folio(_file: Option<&File<BadFs>>, folio: &mut LockedFolio<'_, BadFs>) -> Result {
        folio.write(0, b"forget")?;
        #[expect(forgetting_references)]
        core::mem::forget(folio);
        Ok(())
    }
}

struct PageLinkOps;

/// A link target in the page cache, of an inode without address space operations.
#[vtable]
impl INodeOperations for PageLinkOps {
    type FileSystem = BadFs;
    const PAGE_LINK: bool = true;
}

/// Maps no block at all: every block is a hole.
struct NoBlocks;

impl BlockMapper for NoBlocks {
    type FileSystem = BadFs;

    fn map_blocks(
        _inode: &UncountedINode<BadFs>,
        _iblock: u64,
        _max: usize,
    ) -> Result<Option<BlockRun>> {
        Ok(None)
    }
}

struct HolesOps;

#[vtable]
impl INodeOperations for HolesOps {
    type FileSystem = BadFs;

    /// Passes the range asked for (`FIEMAP_MAX_OFFSET` from the probe) on as it is.
    fn fiemap(inode: &INode<BadFs>, fi: &mut Fiemap<'_>, start: u64, len: u64) -> Result {
        iomap::fiemap::<NoBlocks>(inode, fi, start, len)
    }
}

#[vtable]
impl ExportOperations for BadFs {
    type FileSystem = Self;

    fn get_inode(sb: &SuperBlock<Self>, ino: u64, _generation: u32) -> Result<ARef<INode<Self>>> {
        iget(sb, ino)
    }

    fn get_parent(child: &DEntry<Self>) -> Result<ARef<INode<Self>>> {
        iget(child.super_block(), ROOT_INO)
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

    /// Returns an owned target, allocated with `GFP_KERNEL` after saying it may sleep (which
    /// it may not in RCU walk).
    fn get_link<'a>(_dentry: &'a DEntry<BadFs>, _inode: &'a INode<BadFs>) -> Result<Link<'a>> {
        kernel::task::might_sleep();
        let mut v = KVec::with_capacity(8, GFP_KERNEL)?;
        v.extend_from_slice(b"xattrs", GFP_KERNEL)?;
        Ok(Link::Owned(v))
    }
}

struct HolderLinkOps;

#[vtable]
impl INodeOperations for HolderLinkOps {
    type FileSystem = BadFs;

    /// Borrows the target from the data of the inode this one holds: another inode's object.
    fn get_link<'a>(_dentry: &'a DEntry<BadFs>, inode: &'a INode<BadFs>) -> Result<Link<'a>> {
        let held = inode.data().held.as_ref().ok_or(EIO)?;
        Ok(Link::Borrowed(
            CStr::from_bytes_until_nul(&held.data().link).map_err(|_| EIO)?,
        ))
    }
}

struct DataLinkOps;

#[vtable]
impl INodeOperations for DataLinkOps {
    type FileSystem = BadFs;

    /// The target is in the inode's data, which is not in a usercopy whitelist.
    fn inline_link(data: &BadINode) -> Option<&CStr> {
        CStr::from_bytes_until_nul(&data.link).ok()
    }
}

// SPDX-License-Identifier: GPL-2.0

//! New inodes: set up by the file system inside [`SuperBlock::iget`], initialised and unlocked
//! by the bindings.
//!
//! [`SuperBlock::iget`]: crate::fs::sb::SuperBlock::iget

// patch: attr
use super::Flags;
// patch: end
// patch: link
use super::usercopy_allowed;
// patch: end
use super::{FileType, INode, INodeOperations, INodeOperationsVTable, INodeWithData, Timespec};
use crate::fs::FileSystem;
use crate::sync::aref::ARef;
use crate::{bindings, prelude::*};
use core::{mem::ManuallyDrop, ptr};

/// A new inode, locked (`I_NEW`), being set up by the `init` closure of [`SuperBlock::iget`].
///
/// Only the bindings own one: they initialise it with the parameters `init` returns, or, if it
/// fails, drop it, which marks it bad and releases it (`iget_failed`).
///
/// The second field says whether the operations set so far read through the inode's page cache
/// (the generic file reads, `page_get_link`), so that the initialisation can refuse an inode whose
/// mapping cannot fill it.
// patch: link
/// The third is the [`INodeOperations::inline_link`] of its inode operations, asked for the target
/// once the data is in place.
// patch: end
///
/// [`SuperBlock::iget`]: crate::fs::sb::SuperBlock::iget
pub struct NewINode<T: FileSystem>(
    pub(super) ManuallyDrop<ARef<INode<T>>>,
    pub(crate) bool,
    // patch: link
    Option<super::InlineLink<T>>,
    // patch: end
);

impl<T: FileSystem> NewINode<T> {
    #[inline]
    pub(crate) fn new(inode: ARef<INode<T>>) -> Self {
        Self(
            ManuallyDrop::new(inode),
            false,
            // patch: link
            None,
            // patch: end
        )
    }

    /// Returns the number of the new inode.
    #[inline]
    pub fn ino(&self) -> u64 {
        self.0.ino()
    }

    /// Returns the raw pointer of the new inode, which only its owner may write to.
    #[inline]
    pub(crate) fn as_ptr(&self) -> *mut bindings::inode {
        self.0.as_ptr()
    }

    /// Sets the inode operations of the new inode (`i_op`) to those of `U`; without this it
    /// keeps the VFS default (empty) table.
    #[inline]
    pub fn set_inode_ops<U: INodeOperations<FileSystem = T>>(&mut self) -> &mut Self {
        // SAFETY: The inode is new and exclusively ours; the table is static.
        unsafe { (*self.as_ptr()).i_op = INodeOperationsVTable::<T, U>::build() };
        // patch: link
        if U::PAGE_LINK {
            // `page_get_link` takes the kernel address of the folio (`folio_address`), which a
            // folio in high memory does not have: it BUGs unless the mapping's folios are
            // allocated without `__GFP_HIGHMEM`.
            // SAFETY: The inode is new and exclusively ours, its page cache still empty.
            unsafe { bindings::inode_nohighmem(self.as_ptr()) };
            self.1 = true;
        }
        self.2 = if U::HAS_INLINE_LINK {
            Some(U::inline_link)
        } else {
            None
        };
        // patch: end
        self
    }

    /// Initialises the new inode with `params` and unlocks it (`unlock_new_inode`).
    ///
    /// Fails with `EINVAL` (and releases the inode as if dropped) if its operations read through
    /// the page cache but its address space cannot read folios (no
    /// [`AddressSpaceOperations::read_folio`](crate::fs::address_space::AddressSpaceOperations)):
    /// `read(2)`, `mmap` or the link walk would make C call a NULL `read_folio`.
    // patch: write
    /// Likewise if its file operations write through the page cache but its address space has
    /// no `write_begin` and `write_end`.
    // patch: end
    #[inline]
    pub(crate) fn init(mut self, params: INodeParams<T>) -> Result<ARef<INode<T>>> {
        self.fill(params)?;
        // SAFETY: The inode is new (`I_NEW`) and initialised now; `unlock_new_inode` orders
        // the stores of `fill` before the wakeup of those waiting for it.
        unsafe { bindings::unlock_new_inode(self.as_ptr()) };
        let me = ManuallyDrop::new(self);
        // SAFETY: `me` is never used or dropped again, so the reference it owns is moved out
        // exactly once. The inode is initialised now, so it's fine to hand it out.
        Ok(ManuallyDrop::into_inner(unsafe { ptr::read(&me.0) }))
    }

    /// Writes `params` into the new inode, which stays locked (`I_NEW`): see
    /// [`NewINode::init`].
    pub(super) fn fill(&mut self, params: INodeParams<T>) -> Result {
        let inode_ptr = self.0.as_ptr();
        let mode = (params.typ.mode_bits() | (u32::from(params.mode) & 0o7777)) as u16;
        // Special inodes get the operations of their kind from `init_special_inode` below.
        let special = matches!(
            params.typ,
            FileType::Chr(_) | FileType::Blk(_) | FileType::Fifo | FileType::Sock
        );
        // SAFETY: The inode and its mapping are valid; the operations of a mapping are NULL or a
        // valid static table, set only while the inode is new.
        let read_folio = unsafe {
            let aops = (*(*inode_ptr).i_mapping).a_ops;
            !aops.is_null() && (*aops).read_folio.is_some()
        };
        if self.1 && !special && !read_folio {
            // The caller drops `self`: `iget_failed`.
            return Err(EINVAL);
        }
        // patch: write
        // Files written through the page cache (`generic_file_write_iter`) need `write_begin`
        // and `write_end`, which C calls without checking them.
        // SAFETY: As above; the file operations are a valid static table (the VFS default or
        // one set while the inode is new).
        let unwritable = unsafe {
            let fop = bindings::inode_fop(inode_ptr);
            let aops = (*(*inode_ptr).i_mapping).a_ops;
            !fop.is_null()
                && (*fop).write_iter.is_some()
                && (aops.is_null() || (*aops).write_begin.is_none() || (*aops).write_end.is_none())
        };
        if !special && unwritable {
            return Err(EINVAL);
        }
        // patch: end

        // SAFETY: The inode is new (`I_NEW`), so no one else looks at its fields until it is
        // unlocked; `inode_ptr` is valid.
        unsafe {
            let inode = &mut *inode_ptr;
            inode.i_mode = mode;
            match params.typ {
                FileType::Chr(dev) | FileType::Blk(dev) => {
                    bindings::init_special_inode(inode, mode, dev.to_kdev());
                }
                FileType::Fifo | FileType::Sock => bindings::init_special_inode(inode, mode, 0),
                FileType::Dir | FileType::Reg | FileType::Lnk => {}
            }
            bindings::set_nlink(inode, params.nlink);
            // `i_uid_write`/`i_gid_write`: `make_kuid`/`make_kgid` map the ids into the
            // superblock's user namespace, which without `CONFIG_USER_NS` is the identity (a
            // static inline function): then the ids are stored without two helper calls.
            #[cfg(CONFIG_USER_NS)]
            {
                bindings::i_uid_write(inode, params.uid);
                bindings::i_gid_write(inode, params.gid);
            }
            #[cfg(not(CONFIG_USER_NS))]
            {
                inode.i_uid = bindings::kuid_t { val: params.uid };
                inode.i_gid = bindings::kgid_t { val: params.gid };
            }
            // No one reads the size of a new inode before `unlock_new_inode` (which orders
            // these stores before the wakeup), so it is a plain store, not `i_size_write`.
            inode.i_size = params.size;
            inode.i_blocks = params.blocks;
            inode.i_generation = params.generation;
            // patch: attr
            // `inode_set_flags` as the VFS asks (i_flags may be read without the inode lock).
            bindings::inode_set_flags(inode, params.flags.0, Flags::ALL.0);
            // patch: end
            // As the file system keeps them (its granularity), as C's `current_time` gives them.
            let (atime, mtime, ctime) = (
                params.atime.truncated(inode),
                params.mtime.truncated(inode),
                params.ctime.truncated(inode),
            );
            // The nanoseconds `timestamp_truncate` returns are below one billion.
            inode.i_atime_sec = atime.tv_sec;
            inode.i_atime_nsec = atime.tv_nsec as u32;
            inode.i_mtime_sec = mtime.tv_sec;
            inode.i_mtime_nsec = mtime.tv_nsec as u32;
            inode.i_ctime_sec = ctime.tv_sec;
            inode.i_ctime_nsec = ctime.tv_nsec as u32;

            // INVARIANT: The data is written, then marked initialised; `free_work_callback`
            // drops it.
            let outer = crate::container_of!(inode_ptr, INodeWithData<T>, inode);
            (*outer).data.write(params.value);
            (*outer).data_init = true;

            // patch: link
            // A target in the data, in memory user copies may come from, is the VFS's to read
            // (`i_link`): in RCU walk without calling the file system. Both live until the
            // inode is freed, after an RCU grace period; the data is not changed after this.
            if let Some(link) = self.2.and_then(|f| f((*outer).data.assume_init_ref())) {
                if usercopy_allowed::<T>(inode_ptr, link) {
                    let len = link.to_bytes().len();
                    bindings::inode_set_cached_link(
                        inode_ptr,
                        link.as_char_ptr().cast_mut(),
                        len as c_int,
                    );
                }
            }
            // patch: end
        }
        Ok(())
    }
}

impl<T: FileSystem> Drop for NewINode<T> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: The inode is new and was not initialised: `iget_failed` marks it bad, unlocks
        // it and drops the reference that we own (so the `ARef` is not dropped).
        unsafe { bindings::iget_failed(self.0.as_ptr()) };
    }
}

/// Parameters of a new inode, returned by the `init` closure of [`SuperBlock::iget`].
///
/// [`SuperBlock::iget`]: crate::fs::sb::SuperBlock::iget
pub struct INodeParams<T: FileSystem> {
    /// The type of the inode.
    pub typ: FileType,
    /// The permission bits (and setuid/setgid/sticky) of the inode.
    pub mode: u16,
    /// Size of the contents in bytes.
    pub size: i64,
    /// Number of 512-byte blocks used by the inode.
    pub blocks: u64,
    /// Number of hard links to the inode.
    pub nlink: u32,
    /// Owner of the inode.
    pub uid: u32,
    /// Group of the inode.
    pub gid: u32,
    /// Creation/status-change time.
    pub ctime: Timespec,
    /// Last modification time.
    pub mtime: Timespec,
    /// Last access time.
    pub atime: Timespec,
    /// Generation number (for NFS file handles).
    pub generation: u32,
    // patch: attr
    /// The VFS inode flags that the on-disk state gives (`S_IMMUTABLE`, ...).
    pub flags: Flags,
    // patch: end
    /// The file system's data for this inode.
    pub value: T::INodeData,
}

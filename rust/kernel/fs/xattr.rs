// SPDX-License-Identifier: GPL-2.0

//! Extended attributes.
//!
//! C headers: [`include/linux/xattr.h`](srctree/include/linux/xattr.h)

use super::{dentry::DEntry, inode::INode, inode::INodeOperations, sb, sb::SuperBlock, FileSystem};
use crate::bindings;
use crate::error::{code::*, from_result, Result};
use crate::prelude::*;
use crate::str::CStrExt;
use core::marker::PhantomData;
// patch: xset
use super::inode::LockedINode;
// patch: end

/// An extended attribute handler for one name prefix: the Rust side of `struct xattr_handler`.
#[vtable]
pub trait XattrHandler {
    /// The file system that the handler is for.
    type FileSystem: FileSystem;

    /// The prefix of the names handled, e.g. `c"user."`.
    const PREFIX: &'static CStr;

    /// Reads attribute `PREFIX` + `name` of `inode` (`get`).
    ///
    /// Copies the value into `buf` and returns its length; if `buf` is empty, only returns the
    /// length. Returns `ERANGE` if `buf` is too small, `ENODATA` if there is no such attribute.
    #[inline]
    fn get(
        _dentry: Option<&DEntry<Self::FileSystem>>,
        _inode: &INode<Self::FileSystem>,
        _name: &[u8],
        _buf: &mut [u8],
    ) -> Result<usize> {
        Err(EOPNOTSUPP)
    }

    // patch: xset
    /// Sets attribute `PREFIX` + `name` of `inode` to `value`, or removes it if `value` is
    /// `None` (`set`: setxattr(2), removexattr(2)), with the inode's `i_rwsem` held
    /// exclusively (`inode` is the token). `flags` are [`flags::CREATE`] (fail with `EEXIST`
    /// if it exists) and [`flags::REPLACE`] (fail with `ENODATA` if it does not).
    #[inline]
    fn set(
        _dentry: Option<&DEntry<Self::FileSystem>>,
        _inode: &mut LockedINode<'_, Self::FileSystem>,
        _name: &[u8],
        _value: Option<&[u8]>,
        _flags: u32,
    ) -> Result {
        Err(EOPNOTSUPP)
    }
    // patch: end
}

// patch: xset
/// The flags of [`XattrHandler::set`] (`XATTR_CREATE`, `XATTR_REPLACE`).
pub mod flags {
    /// Fail with `EEXIST` if the attribute exists.
    pub const CREATE: u32 = crate::bindings::XATTR_CREATE;
    /// Fail with `ENODATA` if the attribute does not exist.
    pub const REPLACE: u32 = crate::bindings::XATTR_REPLACE;
}
// patch: end

/// The C table of one [`XattrHandler`].
#[repr(transparent)]
pub struct Handler<T: FileSystem>(bindings::xattr_handler, PhantomData<T>);

// SAFETY: The handler table is immutable and only holds pointers to static data and functions.
unsafe impl<T: FileSystem> Sync for Handler<T> {}

impl<T: FileSystem> Handler<T> {
    /// Returns the handler table of `U`.
    #[inline]
    pub const fn new<U: XattrHandler<FileSystem = T> + ?Sized>() -> &'static Self {
        &XattrHandlerVTable::<T, U>::VTABLE
    }
}

/// The `struct xattr_handler` of an [`XattrHandler`] implementation `U` of file system `T`, built
/// at compile time.
struct XattrHandlerVTable<T: FileSystem, U: ?Sized>(PhantomData<T>, PhantomData<*const U>);

impl<T: FileSystem, U: XattrHandler<FileSystem = T> + ?Sized> XattrHandlerVTable<T, U> {
    const VTABLE: Handler<T> = Handler(
        bindings::xattr_handler {
            prefix: U::PREFIX.to_bytes_with_nul().as_ptr().cast(),
            get: Some(Self::get_callback),
            // patch: xset
            set: if U::HAS_SET {
                Some(Self::set_callback)
            } else {
                None
            },
            // patch: end
            ..pin_init::zeroed()
        },
        PhantomData,
    );

    /// # Safety
    ///
    /// `get` of `struct xattr_handler`: `inode` is a valid inode of `T` (`dentry` is NULL
    /// or its dentry), `name` a valid C string and `buffer` NULL or valid for `size` bytes.
    unsafe extern "C" fn get_callback(
        _handler: *const bindings::xattr_handler,
        dentry: *mut bindings::dentry,
        inode: *mut bindings::inode,
        name: *const c_char,
        buffer: *mut c_void,
        size: usize,
    ) -> c_int {
        from_result(|| {
            // SAFETY: The C API guarantees that `dentry` is NULL or a valid dentry, and
            // `inode` a valid inode, of the superblock whose `s_xattr` has this handler.
            let dentry = (!dentry.is_null()).then(|| unsafe { DEntry::<T>::from_raw(dentry) });
            // SAFETY: As above.
            let inode = unsafe { INode::<T>::from_raw(inode) };
            // SAFETY: `name` is a valid NUL-terminated string (the part after the
            // prefix) for the duration of the call.
            let name = unsafe { CStr::from_char_ptr(name) }.to_bytes();
            let buf = if buffer.is_null() || size == 0 {
                &mut [][..]
            } else {
                // SAFETY: The C API guarantees that `buffer` is valid for `size` bytes.
                unsafe { core::slice::from_raw_parts_mut(buffer.cast::<u8>(), size) }
            };
            let len = buf.len();
            let n = U::get(dentry, inode, name, buf)?;
            // The VFS copies `n` bytes of the buffer to user space: never more than it
            // has. With no buffer, `n` is the size the caller needs.
            if len != 0 && n > len {
                return Err(ERANGE);
            }
            c_int::try_from(n).map_err(|_| E2BIG)
        })
    }

    // patch: xset
    /// # Safety
    ///
    /// `set` of `struct xattr_handler`: `inode` is a valid inode of `T` whose `i_rwsem` is held
    /// exclusively (`__vfs_setxattr_locked`, `__vfs_removexattr_locked`), `dentry` NULL or its
    /// dentry, `name` a valid C string and `value` NULL (a removal) or valid for `size`
    /// bytes, all for the call.
    unsafe extern "C" fn set_callback(
        _handler: *const bindings::xattr_handler,
        _idmap: *mut bindings::mnt_idmap,
        dentry: *mut bindings::dentry,
        inode: *mut bindings::inode,
        name: *const c_char,
        value: *const c_void,
        size: usize,
        flags: c_int,
    ) -> c_int {
        from_result(|| {
            // SAFETY: As in `get_callback`.
            let dentry = (!dentry.is_null()).then(|| unsafe { DEntry::<T>::from_raw(dentry) });
            // SAFETY: The VFS holds the inode's `i_rwsem` exclusively for the call.
            let mut locked = unsafe { LockedINode::new(INode::<T>::from_raw(inode)) };
            // SAFETY: `name` is a valid NUL-terminated string for the duration of the call.
            let name = unsafe { CStr::from_char_ptr(name) }.to_bytes();
            let value = if value.is_null() {
                None
            } else if size == 0 {
                Some(&[][..])
            } else {
                // SAFETY: The VFS passes a value valid for `size` bytes (a kernel copy of the
                // caller's), unchanged during the call.
                Some(unsafe { core::slice::from_raw_parts(value.cast::<u8>(), size) })
            };
            U::set(dentry, &mut locked, name, value, flags as u32)?;
            Ok(0)
        })
    }
    // patch: end
}

/// The NULL-terminated list of extended attribute handlers of a file system (`s_xattr`).
pub struct Handlers<T: FileSystem>(*const *const bindings::xattr_handler, PhantomData<T>);

impl<T: FileSystem> Handlers<T> {
    /// No handlers.
    pub const NONE: Self = Self(core::ptr::null(), PhantomData);

    /// Creates the list of handlers from `list`, which must end with `None`.
    ///
    /// ```ignore
    /// const XATTR_HANDLERS: xattr::Handlers<Self> = xattr::Handlers::new(&[
    ///     Some(xattr::Handler::new::<UserHandler>()),
    ///     None,
    /// ]);
    /// ```
    #[inline]
    pub const fn new(list: &'static [Option<&'static Handler<T>>]) -> Self {
        build_assert!(
            matches!(list.last(), Some(None)),
            "the list must end with None"
        );
        // `Option<&Handler>` has the layout of a nullable pointer, and `Handler` that of
        // `xattr_handler`, so this is a NULL-terminated array of handler pointers.
        Self(list.as_ptr().cast(), PhantomData)
    }

    /// Returns the raw NULL-terminated array.
    #[inline]
    pub(crate) const fn as_ptr(&self) -> *const *const bindings::xattr_handler {
        self.0
    }
}

impl<T: FileSystem> SuperBlock<T, sb::New> {
    /// Sets the extended attribute handlers of the new superblock (`s_xattr`).
    #[inline]
    pub fn set_xattr_handlers(&mut self, handlers: Handlers<T>) {
        // SAFETY: The superblock is being filled and exclusively ours; the list is static.
        unsafe { (*self.as_ptr()).s_xattr = handlers.as_ptr() };
    }
}

/// Returns whether the current task may see `trusted.` attributes in a listing: the policy of
/// the C file systems' `trusted.` handlers (`capable(CAP_SYS_ADMIN)`).
#[inline]
pub fn trusted_list_allowed() -> bool {
    // SAFETY: `capable` may be called from any process context.
    unsafe { bindings::capable(bindings::CAP_SYS_ADMIN as i32) }
}

/// # Safety
///
/// `listxattr` of `struct inode_operations`: `dentry_ptr` is a valid dentry of `T` and
/// `buf` is NULL or valid for `size` bytes.
pub(crate) unsafe extern "C" fn listxattr_callback<
    T: FileSystem,
    U: INodeOperations<FileSystem = T> + ?Sized,
>(
    dentry_ptr: *mut bindings::dentry,
    buf: *mut c_char,
    size: usize,
) -> isize {
    // SAFETY: The C API guarantees that `dentry_ptr` is a valid dentry of this fs.
    let dentry = unsafe { DEntry::<T>::from_raw(dentry_ptr) };
    let buf = if buf.is_null() || size == 0 {
        &mut [][..]
    } else {
        // SAFETY: The C API guarantees that `buf` is valid for `size` bytes.
        unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), size) }
    };
    let len = buf.len();
    match U::listxattr(dentry, buf) {
        // The VFS copies `n` bytes of `buf` to user space: never more than it has.
        Ok(n) if len != 0 && n > len => ERANGE.to_errno() as isize,
        Ok(n) => isize::try_from(n).unwrap_or(E2BIG.to_errno() as isize),
        Err(e) => e.to_errno() as isize,
    }
}

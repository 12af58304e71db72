// SPDX-License-Identifier: GPL-2.0

//! On-disk records: little-endian integers and `#[repr(C)]` structures of them that file systems
//! read from (and write to) bytes without `unsafe`.
//!
//! The integers ([`Le16`], [`Le32`], [`Le64`]) are byte arrays, so every record built from them
//! (and from `u8` and arrays) with [`on_disk_record!`](crate::on_disk_record) is aligned to 1
//! and has no padding: any bytes are a valid record ([`FromBytes`], whatever the slice's
//! alignment) and every record is plain bytes ([`AsBytes`]). The macro checks the fields at
//! compile time and implements both traits for the record.
//!
//! ```
//! use kernel::fs::ondisk::{Le16, Le32};
//! use kernel::transmute::FromBytes;
//!
//! kernel::on_disk_record! {
//!     /// A directory entry header.
//!     pub struct DirEntry {
//!         pub inode: Le32,
//!         pub rec_len: Le16,
//!         pub name_len: u8,
//!         pub file_type: u8,
//!     }
//! }
//!
//! let bytes = [2, 0, 0, 0, 12, 0, 1, 2];
//! let de = DirEntry::from_bytes_copy(&bytes).ok_or(EINVAL)?;
//! assert_eq!(de.inode.get(), 2);
//! assert_eq!(de.rec_len.get(), 12);
//! assert_eq!(core::mem::size_of::<DirEntry>(), 8);
//! # Ok::<(), Error>(())
//! ```

use crate::transmute::{AsBytes, FromBytes};

/// A type that on-disk records may contain: aligned to 1, without padding, valid for any bytes.
///
/// # Safety
///
/// The type must have alignment 1, no padding and no invalid bit patterns, and implement
/// [`FromBytes`] and [`AsBytes`].
pub unsafe trait OnDisk: FromBytes + AsBytes + Copy {}

// SAFETY: `u8` has alignment 1, no padding, and every value is valid.
unsafe impl OnDisk for u8 {}

// SAFETY: An array of `OnDisk` values has the alignment of its element (1) and no padding
// between elements of alignment 1, and every element is valid for any bytes.
unsafe impl<T: OnDisk, const N: usize> OnDisk for [T; N] {}

macro_rules! le_int {
    ($name:ident, $int:ty, $c:literal) => {
        #[doc = concat!("A little-endian `", stringify!($int), "` as stored on disk (`", $c, "`).")]
        #[repr(transparent)]
        #[derive(Copy, Clone, Default, PartialEq, Eq)]
        pub struct $name([u8; core::mem::size_of::<$int>()]);

        impl $name {
            /// Makes the on-disk form of `v`.
            #[inline]
            pub const fn new(v: $int) -> Self {
                Self(v.to_le_bytes())
            }

            /// Returns the value, in the CPU's byte order.
            #[inline]
            pub const fn get(self) -> $int {
                <$int>::from_le_bytes(self.0)
            }
        }

        impl From<$int> for $name {
            #[inline]
            fn from(v: $int) -> Self {
                Self::new(v)
            }
        }

        // SAFETY: A byte array: any bytes are a valid value.
        unsafe impl FromBytes for $name {}
        // SAFETY: A byte array: no padding.
        unsafe impl AsBytes for $name {}
        // SAFETY: A byte array: alignment 1, no padding, valid for any bytes.
        unsafe impl OnDisk for $name {}
    };
}

le_int!(Le16, u16, "__le16");
le_int!(Le32, u32, "__le32");
le_int!(Le64, u64, "__le64");

/// Checks at compile time that `T` may be a field of an on-disk record.
#[doc(hidden)]
pub const fn assert_on_disk<T: OnDisk>() {}

/// Declares `#[repr(C)]` on-disk records whose fields are [`OnDisk`] types (`u8`, [`Le16`],
/// [`Le32`], [`Le64`], arrays of them and other records), and implements [`FromBytes`],
/// [`AsBytes`] and [`OnDisk`] for them. A field of another type does not build.
///
/// See the [module documentation](crate::fs::ondisk) for an example.
#[macro_export]
macro_rules! on_disk_record {
    ($(
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $($(#[$fmeta:meta])* $fvis:vis $field:ident: $ty:ty),* $(,)?
        }
    )*) => {$(
        $(#[$meta])*
        #[repr(C)]
        #[derive(Copy, Clone)]
        $vis struct $name {
            $($(#[$fmeta])* $fvis $field: $ty),*
        }

        const _: () = {
            $($crate::fs::ondisk::assert_on_disk::<$ty>();)*
            // Fields of alignment 1 leave no padding: the size is the sum of theirs.
            ::core::assert!(::core::mem::align_of::<$name>() == 1);
            ::core::assert!(
                ::core::mem::size_of::<$name>() == 0 $(+ ::core::mem::size_of::<$ty>())*
            );
        };

        // SAFETY: `repr(C)` with fields that are valid for any bytes and of alignment 1 (checked
        // above): no padding, and any bytes are a valid record.
        unsafe impl $crate::transmute::FromBytes for $name {}
        // SAFETY: As above: no padding, every byte is initialised.
        unsafe impl $crate::transmute::AsBytes for $name {}
        // SAFETY: Alignment 1 (checked above), no padding, valid for any bytes.
        unsafe impl $crate::fs::ondisk::OnDisk for $name {}
    )*};
}

// SPDX-License-Identifier: GPL-2.0

//! Rust read-only ext2 file system sample.
//!
//! Reads ext2 images as `fs/ext2` does (revision 0 and dynamic revision, 1 KiB to 64 KiB
//! blocks, direct and 1/2/3-level indirect blocks, directories, fast and slow symlinks, device
//! nodes, fifos, sockets and extended attribute blocks), built only on the VFS bindings. The
//! files mirror `fs/ext2`: `super.rs`, `inode.rs`, `dir.rs`, `namei.rs`, `symlink.rs`,
//! `xattr.rs`, `acl.rs`,
//! `file.rs` and `ioctl.rs`; `ext2.rs` is `ext2.h`: the on-disk format as constants and
//! records, and the superblock and inode data every part uses.
//!
//! Every number read from the disk is hostile: arithmetic that could overflow (a panic with
//! `CONFIG_RUST_OVERFLOW_CHECKS`) is forbidden by clippy (`make check`), except where an
//! `#[allow]` comes with a comment that proves the bound.

#![deny(clippy::arithmetic_side_effects)]

mod acl;
mod balloc;
mod dir;
mod ext2;
mod file;
mod ialloc;
mod inode;
mod ioctl;
mod namei;
#[path = "super.rs"]
mod superblock;
mod symlink;
mod xattr;

kernel::module_fs! {
    type: ext2::Ext2Fs,
    name: "rust_ext2",
    authors: ["Rust for Linux Contributors"],
    description: "Rust read-only ext2 file system sample",
    license: "GPL",
    // mount -t rust_ext2 loads the module, as MODULE_ALIAS_FS does for C.
    alias: ["fs-rust_ext2"],
    params: {
        writes: bool {
            default: false,
            description: "Allow read-write mounts (regular files only, so far)",
        },
        as_ext2: bool {
            default: false,
            description: "Register as ext2 (with C ext2 kept out: initcall_blacklist=init_ext2_fs)",
        },
    },
}

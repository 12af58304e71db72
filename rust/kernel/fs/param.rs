// SPDX-License-Identifier: GPL-2.0

//! File system parameters (mount options).
//!
//! A file system lists the parameters it takes in a [`SpecTable`] of [`Spec`]s
//! ([`FileSystem::PARAMETERS`], the `fs_parameter_spec` array of C); the VFS parses each one given
//! to `mount(2)` or `fsconfig(2)` against it (`fs_parse`) and hands the file system a typed
//! [`Param`] for its [`FileSystem::Options`], which [`FileSystem::fill_super`] and
//! [`FileSystem::reconfigure`] then get.
//!
//! C headers: [`include/linux/fs_parser.h`](srctree/include/linux/fs_parser.h)
//!
//! [`FileSystem::PARAMETERS`]: super::FileSystem::PARAMETERS
//! [`FileSystem::Options`]: super::FileSystem::Options
//! [`FileSystem::fill_super`]: super::FileSystem::fill_super
//! [`FileSystem::reconfigure`]: super::FileSystem::reconfigure

use crate::bindings;
use crate::prelude::*;
use core::ptr;

/// A name and its value, for [`Spec::enumerated`] (`struct constant_table`).
#[repr(transparent)]
pub struct Constant(bindings::constant_table);

// SAFETY: The name is a `'static` C string, never written.
unsafe impl Sync for Constant {}

impl Constant {
    /// The entry that ends a table of constants.
    pub const END: Self = Self(bindings::constant_table {
        name: ptr::null(),
        value: 0,
    });

    /// Names `value` as `name`.
    #[inline]
    pub const fn new(name: &'static CStr, value: i32) -> Self {
        Self(bindings::constant_table {
            name: name.to_bytes_with_nul().as_ptr().cast(),
            value,
        })
    }
}

/// A table of constants that ends with [`Constant::END`], as `fs_parse` walks it.
#[derive(Copy, Clone)]
pub struct Constants(&'static [Constant]);

impl Constants {
    /// Makes a table from `entries`, whose last (and only last) entry must be
    /// [`Constant::END`]: anything else does not build.
    #[inline]
    pub const fn new(entries: &'static [Constant]) -> Self {
        let mut i = 0;
        while i < entries.len() {
            if entries[i].0.name.is_null() != (i + 1 == entries.len()) {
                crate::build_error!("a table of constants ends with `Constant::END`, only there");
            }
            i += 1;
        }
        if entries.is_empty() {
            crate::build_error!("a table of constants ends with `Constant::END`");
        }
        Self(entries)
    }
}

/// The description of one parameter (`struct fs_parameter_spec`).
#[repr(transparent)]
pub struct Spec(bindings::fs_parameter_spec);

// SAFETY: The name and data are `'static` and never written.
unsafe impl Sync for Spec {}

type TypeFn = unsafe extern "C" fn(
    *mut bindings::p_log,
    *const bindings::fs_parameter_spec,
    *mut bindings::fs_parameter,
    *mut bindings::fs_parse_result,
) -> c_int;

impl Spec {
    /// The entry that ends a table.
    pub const END: Self = Self::raw(None, None, 0, 0, ptr::null());

    const fn raw(
        ty: Option<TypeFn>,
        name: Option<&'static CStr>,
        opt: u32,
        flags: u32,
        data: *const c_void,
    ) -> Self {
        Self(bindings::fs_parameter_spec {
            name: match name {
                Some(n) => n.to_bytes_with_nul().as_ptr().cast(),
                None => ptr::null(),
            },
            type_: ty,
            opt: opt as u8,
            flags: flags as u16,
            data,
        })
    }

    /// `name` without a value (`fsparam_flag`): [`Value::Flag`]`(false)`.
    #[inline]
    pub const fn flag(name: &'static CStr, opt: u8) -> Self {
        Self::raw(None, Some(name), opt as u32, 0, ptr::null())
    }

    /// `name` or `no` + `name` (`fsparam_flag_no`): [`Value::Flag`], `true` when negated.
    #[inline]
    pub const fn flag_no(name: &'static CStr, opt: u8) -> Self {
        Self::raw(
            None,
            Some(name),
            opt as u32,
            bindings::fs_param_neg_with_no,
            ptr::null(),
        )
    }

    /// `name=N`, a 32-bit unsigned number (`fsparam_u32`): [`Value::U32`].
    #[inline]
    pub const fn u32(name: &'static CStr, opt: u8) -> Self {
        Self::raw(
            Some(bindings::fs_param_is_u32),
            Some(name),
            opt as u32,
            0,
            ptr::null(),
        )
    }

    /// `name=ID`, a user id valid in the caller's user namespace (`fsparam_uid`):
    /// [`Value::Id`].
    #[inline]
    pub const fn uid(name: &'static CStr, opt: u8) -> Self {
        Self::raw(
            Some(bindings::fs_param_is_uid),
            Some(name),
            opt as u32,
            0,
            ptr::null(),
        )
    }

    /// `name=ID`, a group id valid in the caller's user namespace (`fsparam_gid`):
    /// [`Value::Id`].
    #[inline]
    pub const fn gid(name: &'static CStr, opt: u8) -> Self {
        Self::raw(
            Some(bindings::fs_param_is_gid),
            Some(name),
            opt as u32,
            0,
            ptr::null(),
        )
    }

    /// `name=NAME`, one of the names of `table` (`fsparam_enum`): [`Value::U32`], the value
    /// of the name.
    #[inline]
    pub const fn enumerated(name: &'static CStr, opt: u8, table: Constants) -> Self {
        Self::raw(
            Some(bindings::fs_param_is_enum),
            Some(name),
            opt as u32,
            0,
            table.0.as_ptr().cast(),
        )
    }

    /// `name=STRING` (`fsparam_string`): [`Value::String`].
    #[inline]
    pub const fn string(name: &'static CStr, opt: u8) -> Self {
        Self::raw(
            Some(bindings::fs_param_is_string),
            Some(name),
            opt as u32,
            0,
            ptr::null(),
        )
    }

    #[inline]
    const fn is_end(&self) -> bool {
        self.0.name.is_null()
    }

    fn kind(&self) -> Kind {
        let is = |f: TypeFn| self.0.type_.is_some_and(|t| ptr::fn_addr_eq(t, f));
        if self.0.type_.is_none() {
            Kind::Flag
        } else if is(bindings::fs_param_is_string) {
            Kind::String
        } else if is(bindings::fs_param_is_uid) {
            Kind::Uid
        } else if is(bindings::fs_param_is_gid) {
            Kind::Gid
        } else {
            Kind::U32
        }
    }
}

#[derive(Copy, Clone)]
enum Kind {
    Flag,
    U32,
    Uid,
    Gid,
    String,
}

/// The parameters of a file system: [`Spec`]s that end with [`Spec::END`].
#[derive(Copy, Clone)]
pub struct SpecTable(&'static [Spec]);

impl SpecTable {
    /// A file system without parameters: the VFS refuses every one (`EINVAL`).
    pub const EMPTY: Self = Self(&[]);

    /// Makes a table from `specs`, whose last (and only last) entry must be [`Spec::END`]:
    /// anything else does not build.
    ///
    /// A flag and a spec with a value do not build under one option number. Specs with values of
    /// different kinds may share one (the kind is a C function, which cannot be compared at build
    /// time): `fs_parse` returns only the number, so the bindings find the spec that matched as
    /// `fs_parse` does (by the parameter's name) and read the value as that spec's kind, not as
    /// the kind of the first spec with the number.
    #[inline]
    pub const fn new(specs: &'static [Spec]) -> Self {
        let mut i = 0;
        while i < specs.len() {
            if specs[i].is_end() != (i + 1 == specs.len()) {
                crate::build_error!("a parameter table ends with `Spec::END`, only there");
            }
            let mut j = i + 1;
            while j + 1 < specs.len() {
                if specs[i].0.opt == specs[j].0.opt
                    && specs[i].0.type_.is_none() != specs[j].0.type_.is_none()
                {
                    crate::build_error!("a flag and a valued parameter share an option number");
                }
                j += 1;
            }
            i += 1;
        }
        if specs.is_empty() {
            crate::build_error!("a parameter table ends with `Spec::END`");
        }
        Self(specs)
    }

    /// Whether the file system takes no parameters.
    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    #[inline]
    pub(crate) fn as_ptr(&self) -> *const bindings::fs_parameter_spec {
        self.0.as_ptr().cast()
    }

    /// The specs named `name`, in order.
    #[inline]
    fn named<'n>(&self, name: &'n [u8]) -> impl Iterator<Item = &'static Spec> + 'n {
        let specs: &'static [Spec] = self.0;
        specs
            .iter()
            .filter(|s| !s.is_end())
            // SAFETY: The names of specs other than `END` are `'static` C strings.
            .filter(move |s| unsafe { CStr::from_char_ptr(s.0.name) }.to_bytes() == name)
    }

    /// The spec that `fs_parse` matched for a parameter named `key` (`fs_lookup_key`): the
    /// first with that name whose flag-ness is the value's (`flag`: given without a value),
    /// else the first with that name, else, for `no` + name, the first `flag_no` spec of that
    /// name.
    fn matched(&self, key: &[u8], flag: bool) -> Option<&'static Spec> {
        self.named(key)
            .find(|s| s.0.type_.is_none() == flag)
            .or_else(|| self.named(key).next())
            .or_else(|| {
                let rest = key.strip_prefix(b"no").filter(|r| !r.is_empty())?;
                self.named(rest)
                    .find(|s| u32::from(s.0.flags) & bindings::fs_param_neg_with_no != 0)
            })
    }
}

/// The value of a parameter, as its [`Spec`] says.
#[derive(Copy, Clone, Debug)]
pub enum Value<'a> {
    /// A flag; `true` if it was given as `no` + name ([`Spec::flag_no`]).
    Flag(bool),
    /// A number ([`Spec::u32`]) or the value of a name ([`Spec::enumerated`]).
    U32(u32),
    /// A user or group id ([`Spec::uid`], [`Spec::gid`]), converted to the initial user
    /// namespace, where file systems keep ids (`from_kuid_munged(&init_user_ns, ...)`).
    Id(u32),
    /// A string ([`Spec::string`]).
    String(&'a CStr),
}

/// A parsed parameter: the `opt` of its [`Spec`] and its value.
#[derive(Copy, Clone, Debug)]
pub struct Param<'a> {
    /// The `opt` of the [`Spec`] that matched.
    pub opt: u8,
    /// The value given.
    pub value: Value<'a>,
}

/// Parses `param` against `table` (`fs_parse`).
///
/// # Safety
///
/// `fc` and `param` must be valid for the duration of `'a` (the `parse_param` callback).
pub(crate) unsafe fn parse<'a>(
    fc: *mut bindings::fs_context,
    table: &SpecTable,
    param: *mut bindings::fs_parameter,
) -> Result<Param<'a>> {
    let mut result: bindings::fs_parse_result = pin_init::zeroed();
    // SAFETY: `fc` and `param` are valid (safety requirements); `table` ends with an entry
    // whose name is NULL (`SpecTable::new`), as `__fs_parse` requires.
    let opt = unsafe { bindings::__fs_parse(&mut (*fc).log, table.as_ptr(), param, &mut result) };
    let opt = u32::try_from(crate::error::to_result(opt).map(|()| opt)?).map_err(|_| EINVAL)?;
    // SAFETY: `param` is valid (safety requirements); its key is a NUL-terminated string.
    let (key, flag) = unsafe {
        (
            CStr::from_char_ptr((*param).key),
            (*param).type_() == bindings::fs_value_type_fs_value_is_flag,
        )
    };
    // The spec `fs_parse` matched, as it matched it: its kind says which member of the result
    // was set.
    let spec = table.matched(key.to_bytes(), flag).ok_or(EINVAL)?;
    if u32::from(spec.0.opt) != opt {
        return Err(EINVAL);
    }
    let value = match spec.kind() {
        Kind::Flag => Value::Flag(result.negated),
        // SAFETY: `fs_param_is_u32` and `fs_param_is_enum` set `uint_32`.
        Kind::U32 => Value::U32(unsafe { bindings::fs_parse_result_u32(&result) }),
        // SAFETY: `fs_param_is_uid` sets `uid`.
        Kind::Uid => Value::Id(unsafe { bindings::fs_parse_result_uid(&result) }),
        // SAFETY: `fs_param_is_gid` sets `gid`.
        Kind::Gid => Value::Id(unsafe { bindings::fs_parse_result_gid(&result) }),
        Kind::String => {
            // SAFETY: `fs_param_is_string` accepted a string value, owned by `param` for `'a`.
            let p = unsafe { bindings::fs_param_string(param) };
            // SAFETY: The string is NUL-terminated and lives as long as `param`, for `'a`.
            Value::String(unsafe { CStr::from_char_ptr(p.cast()) })
        }
    };
    Ok(Param {
        opt: opt as u8,
        value,
    })
}

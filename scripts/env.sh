# Sourced by the scripts: shared paths and toolchain settings.
CACHE=${CACHE:-/var/cache/rust-vfs}
KSERIES=${KSERIES:-7.3}
export PATH="$HOME/.cargo/bin:$PATH"
export RUST_LIB_SRC=$CACHE/src/rust-src/usr/lib/rustlib/src/rust/library
export CCACHE_DIR=$CACHE/ccache
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PRISTINE=$CACHE/pristine/linux-source-$KSERIES
KTREE=$CACHE/linux
CONFIG_NAME=${CONFIG_NAME:-base}
KBUILD_OUT=$CACHE/build-$CONFIG_NAME
# The LLVM of rustc 1.95 (22): with the same major version for clang, the C helpers are
# inlined into the Rust code (CONFIG_RUST_INLINE_HELPERS), as C inlines its static inlines.
LLVM_VER=22
# bindgen parses the headers with the same clang as the one that builds them.
export LIBCLANG_PATH=/usr/lib/llvm-$LLVM_VER/lib
KMAKE=(make -C "$KTREE" O="$KBUILD_OUT" LLVM=-$LLVM_VER "CC=ccache clang-$LLVM_VER" -j"$(nproc)")

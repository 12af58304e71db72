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
KMAKE=(make -C "$KTREE" O="$KBUILD_OUT" LLVM=-19 "CC=ccache clang-19" -j"$(nproc)")

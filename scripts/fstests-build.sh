#!/bin/bash
# Build fstests into the cache from the pinned upstream snapshot
# (FSTESTS_TARBALL, default ../shared/fstests/), once. A user's own checkout
# is used instead with make xfstests FSTESTS_DIR=... (built by the user).
set -euo pipefail
. "$(dirname "$0")/env.sh"
tarball=${FSTESTS_TARBALL:-$(ls "$REPO"/../shared/fstests/fstests-*.tar.xz 2>/dev/null | head -1)}
dst=$CACHE/fstests
stamp=$dst/.built-$(basename "${tarball:-none}")
[ -f "$stamp" ] && exit 0
[ -f "$tarball" ] || { echo "fstests-build: no snapshot (set FSTESTS_TARBALL= or FSTESTS_DIR=)"; exit 1; }
rm -rf "$dst"; mkdir -p "$dst"
tar -C "$dst" -xf "$tarball"
echo "fstests-build: building $(basename "$tarball") in $dst/fstests"
make -C "$dst/fstests" -j"$(nproc)" > "$dst/build.log" 2>&1 || { tail -30 "$dst/build.log"; exit 1; }
touch "$stamp"

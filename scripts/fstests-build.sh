#!/bin/bash
# Build fstests into the cache from the pinned upstream snapshot
# (FSTESTS_TARBALL, default ../shared/fstests/), once. A user's own checkout
# is used instead with make xfstests FSTESTS_DIR=... (built by the user).
set -euo pipefail
. "$(dirname "$0")/env.sh"
tarball=${FSTESTS_TARBALL:-}
if [ -z "$tarball" ]; then
	for t in "$REPO"/../shared/fstests/fstests-*.tar.xz; do
		[ -f "$t" ] && tarball=$t
	done
fi
dst=$CACHE/fstests
if [ -z "$tarball" ]; then
	# No snapshot here (a worktree elsewhere): whatever was built before.
	ls "$dst"/.built-* > /dev/null 2>&1 && exit 0
	echo "fstests-build: no fstests snapshot in $REPO/../shared/fstests (set FSTESTS_TARBALL= or FSTESTS_DIR=)"
	exit 1
fi
stamp=$dst/.built-$(basename "$tarball")
[ -f "$stamp" ] && exit 0
rm -rf "$dst"; mkdir -p "$dst"
tar -C "$dst" -xf "$tarball"
echo "fstests-build: building $(basename "$tarball") in $dst/fstests"
make -C "$dst/fstests" -j"$(nproc)" > "$dst/build.log" 2>&1 || { tail -30 "$dst/build.log"; exit 1; }
touch "$stamp"

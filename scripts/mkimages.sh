#!/bin/bash
# Build the test images on the host: every tests/images/*.sh is sourced with
# $IMGDIR set and makes one or more images named $IMGDIR/NAME.img. Also
# writes $IMGDIR/expected/ (data the in-VM tests compare against).
set -euo pipefail
. "$(dirname "$0")/env.sh"
IMGDIR=${IMGDIR:-$REPO/out/images}
export IMGDIR
rm -rf "$IMGDIR"
mkdir -p "$IMGDIR/expected"
export PATH="/sbin:/usr/sbin:$PATH"
for gen in "$REPO"/tests/images/*.sh; do
	[ -e "$gen" ] || continue
	WORK=$(mktemp -d)
	export WORK
	( . "$gen" )
	rm -rf "$WORK"
done
ls "$IMGDIR"/*.img 2>/dev/null | wc -l | xargs echo "mkimages: images:"

#!/bin/bash
# Make $CACHE/linux a pristine 7.3 tree plus the overlay: new files from
# rust/, samples/ copied in, patches/*.patch applied. Re-copying keeps the
# mtime of unchanged files, so only edited files are rebuilt.
set -euo pipefail
. "$(dirname "$0")/env.sh"

if [ ! -d "$PRISTINE" ]; then
	mkdir -p "$CACHE/pristine"
	tar -C "$CACHE/pristine" -xf "$CACHE"/src/linux-source-"$KSERIES".tar.*
fi
# The overlay hash keys the patched state of the tree.
hash=$( (cd "$REPO" && cat patches/*.patch 2>/dev/null || true) | sha256sum | cut -c1-16)
if [ "$(cat "$KTREE/.overlay-patches" 2>/dev/null)" != "$hash" ]; then
	echo "prepare-tree: fresh tree (patches $hash)"
	rm -rf "$KTREE.new"
	cp -a "$PRISTINE" "$KTREE.new"
	for p in "$REPO"/patches/*.patch; do
		[ -e "$p" ] || continue
		patch -d "$KTREE.new" -p1 --quiet --forward < "$p"
	done
	rm -rf "$KTREE"
	mv "$KTREE.new" "$KTREE"
	echo "$hash" > "$KTREE/.overlay-patches"
fi
# New files: rsync -c only touches files whose contents changed.
for d in rust samples; do
	if [ -d "$REPO/$d" ]; then rsync -rc "$REPO/$d/" "$KTREE/$d/"; fi
done
exit 0

#!/bin/bash
# Make $CACHE/linux a pristine 7.3 tree plus the overlay: new files from
# rust/, samples/ copied in, the patches of patches/series applied in its
# order (each is named by the tag of the series step that uses it).
# Re-copying keeps the mtime of unchanged files, so only edited files are
# rebuilt.
set -euo pipefail
. "$(dirname "$0")/env.sh"

if [ ! -d "$PRISTINE" ]; then
	mkdir -p "$CACHE/pristine"
	tar -C "$CACHE/pristine" -xf "$CACHE"/src/linux-source-"$KSERIES".tar.*
fi
mapfile -t patches < <(grep -v '^[#>]' "$REPO/patches/series" | grep -o 'patches/[^ ]*\.patch' || true)
# The overlay hash keys the patched state of the tree.
hash=$( (cd "$REPO" && cat ${patches[@]+"${patches[@]}"}) | sha256sum | cut -c1-16)
if [ "$(cat "$KTREE/.overlay-patches" 2>/dev/null)" != "$hash" ]; then
	echo "prepare-tree: fresh tree (patches $hash)"
	rm -rf "$KTREE.new"
	cp -a "$PRISTINE" "$KTREE.new"
	for p in ${patches[@]+"${patches[@]}"}; do
		patch -d "$KTREE.new" -p1 --quiet --forward < "$REPO/$p"
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

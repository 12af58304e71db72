#!/bin/bash
# Style and lint checks: rustfmtcheck, a CLIPPY=1 build, rustdoc, and
# checkpatch.pl on every patch of out/patches/.
set -uo pipefail
. "$(dirname "$0")/env.sh"
rc=0
"$REPO/scripts/kmake.sh" rustfmtcheck || { echo "check: rustfmtcheck failed"; rc=1; }
"$REPO/scripts/kmake.sh" CLIPPY=1 vmlinux modules || { echo "check: clippy failed"; rc=1; }
"$REPO/scripts/kmake.sh" rustdoc || { echo "check: rustdoc failed"; rc=1; }
for p in "$REPO"/out/patches/0*.patch; do
	[ -e "$p" ] || continue
	case "$p" in *0000-cover-letter.patch) continue ;; esac
	# Each patch that adds files lists them in MAINTAINERS (RUST [FS]), so
	# checkpatch has nothing to say, FILE_PATH_CHANGES included.
	"$KTREE/scripts/checkpatch.pl" --no-tree --strict --terse "$p" || rc=1
done
[ $rc = 0 ] && echo "check: all clean"
exit $rc

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
	# FILE_PATH_CHANGES ("does MAINTAINERS need updating?"): the series adds
	# files but leaves MAINTAINERS to the maintainers who would take them.
	"$KTREE/scripts/checkpatch.pl" --no-tree --strict --terse --ignore FILE_PATH_CHANGES "$p" || rc=1
done
[ $rc = 0 ] && echo "check: all clean"
exit $rc

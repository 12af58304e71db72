#!/bin/bash
# Style and lint checks: rustfmtcheck, a CLIPPY=1 build, rustdoc, and
# checkpatch.pl on every patch of out/patches/.
set -uo pipefail
. "$(dirname "$0")/env.sh"
rc=0
"$REPO/scripts/kmake.sh" rustfmtcheck || { echo "check: rustfmtcheck failed"; rc=1; }
# Warnings count as failures (Kbuild rebuilds the Rust objects when the
# command line changes, so a build after `make kernel` shows every warning).
lint() { # WHAT MAKE-ARGS...
	local what=$1 log
	shift
	log=$(mktemp)
	"$REPO/scripts/kmake.sh" "$@" 2>&1 | tee "$log"
	if [ "${PIPESTATUS[0]}" != 0 ]; then
		echo "check: $what failed"; rc=1
	elif grep -q '^warning' "$log"; then
		echo "check: $what warned"; rc=1
	fi
	rm -f "$log"
}
lint clippy CLIPPY=1 vmlinux modules
lint rustdoc rustdoc
for p in "$REPO"/out/patches/0*.patch; do
	[ -e "$p" ] || continue
	case "$p" in *0000-cover-letter.patch) continue ;; esac
	# Each patch that adds files lists them in MAINTAINERS (RUST [FS]), so
	# checkpatch has nothing to say, FILE_PATH_CHANGES included.
	"$KTREE/scripts/checkpatch.pl" --no-tree --strict --terse "$p" || rc=1
done
[ $rc = 0 ] && echo "check: all clean"
exit $rc

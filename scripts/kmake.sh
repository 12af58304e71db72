#!/bin/bash
# Run a kernel make target in the cached, configured tree: kmake.sh TARGET...
set -euo pipefail
. "$(dirname "$0")/env.sh"
[ -f "$KBUILD_OUT/.config" ] || { echo "kmake: no configured tree; run 'make kernel'" >&2; exit 1; }
"$REPO/scripts/prepare-tree.sh"
exec "${KMAKE[@]}" "$@"

#!/bin/bash
# Emit the overlay as a `git format-patch` series (with a cover letter)
# against the pristine tree, into out/patches/.
#
# patches/series lists one commit a line:  SUBJECT | PATH [PATH...]
# where a PATH under patches/ is applied as a patch and any other PATH is an
# overlay file copied into the tree. Without a series file every
# patches/*.patch becomes one commit and all new files one more.
set -euo pipefail
. "$(dirname "$0")/env.sh"
WORKTREE=$CACHE/patchwork
OUT=$REPO/out/patches
G=(git -C "$WORKTREE" -c user.name="rust-vfs" -c user.email="rust-vfs@localhost")

if [ ! -f "$WORKTREE/.git/base-ok" ]; then
	rm -rf "$WORKTREE"
	cp -a "$PRISTINE" "$WORKTREE"
	"${G[@]}" init -q
	# -f: Debian's linux-source .gitignore ignores the whole top level.
	"${G[@]}" add -A -f
	"${G[@]}" commit -q -m "Linux $(cat "$CACHE/src/linux.version")"
	"${G[@]}" tag base
	touch "$WORKTREE/.git/base-ok"
fi
"${G[@]}" checkout -q -f -B series base
"${G[@]}" clean -q -fdx

commit() { # SUBJECT PATH...
	local subject=$1; shift
	for p in "$@"; do
		case "$p" in
		patches/*) "${G[@]}" apply --index "$REPO/$p" ;;
		*) mkdir -p "$WORKTREE/$(dirname "$p")"; cp "$REPO/$p" "$WORKTREE/$p"; "${G[@]}" add -f "$p" ;;
		esac
	done
	"${G[@]}" commit -q -s -m "$subject" -m "Part of the Rust VFS overlay; see the cover letter."
}

if [ -f "$REPO/patches/series" ]; then
	while IFS='|' read -r subject paths; do
		subject=$(echo "$subject" | sed 's/[[:space:]]*$//')
		case "$subject" in ''|'#'*) continue ;; esac
		# shellcheck disable=SC2086
		commit "$subject" $paths
	done < "$REPO/patches/series"
else
	for p in "$REPO"/patches/*.patch; do
		[ -e "$p" ] || continue
		commit "$(basename "$p" .patch)" "patches/$(basename "$p")"
	done
	files=$(cd "$REPO" && find rust samples -type f 2>/dev/null | sort || true)
	# shellcheck disable=SC2086
	[ -z "$files" ] || commit "rust: add the VFS overlay files" $files
fi
rm -rf "$OUT"
mkdir -p "$OUT"
n=$("${G[@]}" rev-list --count base..series)
if [ "$n" = 0 ]; then
	echo "mkpatches: the overlay has no changes yet; no series written"
	exit 0
fi
"${G[@]}" format-patch -q --cover-letter -o "$OUT" base..series
ls "$OUT"

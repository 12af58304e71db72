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
# Author and sign-off: git's configured identity in this repository.
NAME=$(git -C "$REPO" config user.name) || { echo "mkpatches: set git config user.name"; exit 1; }
EMAIL=$(git -C "$REPO" config user.email) || { echo "mkpatches: set git config user.email"; exit 1; }
G=(git -C "$WORKTREE" -c user.name="$NAME" -c user.email="$EMAIL")

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

# maintainers PATH...: list new overlay files in MAINTAINERS' RUST [FS] entry
# (made by the first commit that adds files), as each patch that adds files
# should (checkpatch: FILE_PATH_CHANGES).
maintainers() {
	python3 - "$WORKTREE/MAINTAINERS" "$NAME <$EMAIL>" "$@" <<'PY'
import re, sys
path, who, files = sys.argv[1], sys.argv[2], sys.argv[3:]
text = open(path).read()
def pattern(f):
    # Directories of their own: the ext2 sample, the file operations module.
    for d in ("samples/rust/rust_ext2/", "rust/kernel/fs/file/"):
        if f.startswith(d):
            return d
    return f
head = "RUST [FS]\n"
if head not in text:
    entry = (head + f"M:\t{who}\nL:\tlinux-fsdevel@vger.kernel.org\n"
             "L:\trust-for-linux@vger.kernel.org\nS:\tMaintained\n\n")
    # Alphabetical among the RUST [...] entries.
    later = [m.start() for m in re.finditer(r"^RUST \[([^\]]*)\]\n", text, re.M) if m.group(1) > "FS"]
    at = later[0] if later else text.index("\n\n", text.index("\nRUST\n") + 1) + 2
    text = text[:at] + entry + text[at:]
start = text.index(head)
end = text.index("\n\n", start)
lines = text[start:end].split("\n")
fl = sorted(set([l for l in lines if l.startswith("F:\t")] + ["F:\t" + pattern(f) for f in files]))
lines = [l for l in lines if not l.startswith("F:\t")] + fl
text = text[:start] + "\n".join(lines) + text[end:]
open(path, "w").write(text)
PY
}

# Tags of "// patch: TAG" blocks enabled so far (+TAG in patches/series).
TAGS=()
commit() { # SUBJECT BODY PATH...
	local subject=$1 body=$2 new=(); shift 2
	for p in "$@"; do
		case "$p" in +*) TAGS+=("${p#+}") ;; esac
	done
	for p in "$@"; do
		case "$p" in
		+*) ;;
		patches/*) "${G[@]}" apply --index "$REPO/$p" ;;
		*)
			[ -e "$WORKTREE/$p" ] || new+=("$p")
			mkdir -p "$WORKTREE/$(dirname "$p")"
			"$REPO/scripts/series-file.py" "$REPO/$p" ${TAGS[@]+"${TAGS[@]}"} > "$WORKTREE/$p"
			"${G[@]}" add -f "$p" ;;
		esac
	done
	if [ ${#new[@]} -gt 0 ]; then
		maintainers "${new[@]}"
		"${G[@]}" add MAINTAINERS
	fi
	"${G[@]}" commit -q -s -m "$subject" -m "${body:-Part of the Rust VFS overlay; see the cover letter.}"
}

if [ -f "$REPO/patches/series" ]; then
	# Paragraphs: "SUBJECT | PATHS" then "> body" lines.
	subject= paths= body=
	flush() {
		# shellcheck disable=SC2086
		[ -z "$subject" ] || commit "$subject" "$body" $paths
		subject= paths= body=
	}
	while IFS= read -r line; do
		case "$line" in
		'#'*|'') ;;
		'>'*) l=${line#>}; l=${l# }; body="${body:+$body
}$l" ;;
		*'|'*) flush; subject=$(echo "${line%%|*}" | sed 's/[[:space:]]*$//'); paths=${line#*|} ;;
		esac
	done < "$REPO/patches/series"
	flush
	# Every overlay file must be in the series, and end as the overlay has it
	# (less its fences): every tag it uses was enabled by a commit that lists it.
	for f in $(cd "$REPO" && find rust samples -type f | sort); do
		grep -q "$f" "$REPO/patches/series" || { echo "mkpatches: $f is not in patches/series" >&2; exit 1; }
		"$REPO/scripts/series-file.py" "$REPO/$f" $("$REPO/scripts/series-file.py" --tags "$REPO/$f") |
			cmp -s - "$WORKTREE/$f" ||
			{ echo "mkpatches: $f: the series does not end with the overlay's (a tag not enabled where the file is listed?)" >&2; exit 1; }
	done
else
	for p in "$REPO"/patches/*.patch; do
		[ -e "$p" ] || continue
		commit "$(basename "$p" .patch)" "" "patches/$(basename "$p")"
	done
	files=$(cd "$REPO" && find rust samples -type f 2>/dev/null | sort || true)
	# shellcheck disable=SC2086
	[ -z "$files" ] || commit "rust: add the VFS overlay files" "" $files
fi
rm -rf "$OUT"
mkdir -p "$OUT"
n=$("${G[@]}" rev-list --count base..series)
if [ "$n" = 0 ]; then
	echo "mkpatches: the overlay has no changes yet; no series written"
	exit 0
fi
# base-commit: the import of the pristine linux-source tree (the tag "base").
"${G[@]}" format-patch -q --cover-letter --base=base -o "$OUT" base..series
# Cover letter text from patches/cover-letter (first line: subject).
cl=$OUT/0000-cover-letter.patch
if [ -f "$REPO/patches/cover-letter" ]; then
	python3 - "$cl" "$REPO/patches/cover-letter" <<'PY'
import sys
cl, src = sys.argv[1], open(sys.argv[2]).read().split("\n", 1)
s = open(cl).read().replace("*** SUBJECT HERE ***", src[0]).replace("*** BLURB HERE ***", src[1].strip())
open(cl, "w").write(s)
PY
fi
ls "$OUT"
# CHECK=1: build every commit of the series in turn (vmlinux + modules, the
# base config plus the samples), so that each patch is known to build.
if [ "${CHECK:-0}" = 1 ]; then
	bo=$CACHE/build-series
	mkdir -p "$bo"
	for c in $("${G[@]}" rev-list --reverse base..series); do
		"${G[@]}" checkout -q -f "$c"
		cp "$KBUILD_OUT/.config" "$bo/.config"
		make -C "$WORKTREE" O="$bo" LLVM=-$LLVM_VER CC="ccache clang-$LLVM_VER" olddefconfig > /dev/null
		if make -C "$WORKTREE" O="$bo" LLVM=-$LLVM_VER CC="ccache clang-$LLVM_VER" -j"$(nproc)" vmlinux modules > "$bo/log" 2>&1; then
			# A patch that only builds with warnings (an import the next
			# patch uses, ...) is not done either.
			if grep -q '^warning' "$bo/log"; then
				echo "BUILD WARNS: $("${G[@]}" log -1 --format=%s "$c")"; grep -A8 '^warning' "$bo/log" | head -40; exit 1
			fi
			echo "builds: $("${G[@]}" log -1 --format=%s "$c")"
		else
			echo "BUILD FAILS: $("${G[@]}" log -1 --format=%s "$c")"; tail -30 "$bo/log"; exit 1
		fi
	done
	"${G[@]}" checkout -q -f series
fi

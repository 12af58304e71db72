#!/bin/bash
# Build the test initramfs: busybox-static, /init (scripts/vm-init.sh), the
# in-VM tests (tests/vm/), the expected data from mkimages, and the modules.
set -euo pipefail
. "$(dirname "$0")/env.sh"
IMGDIR=${IMGDIR:-$REPO/out/images}
OUT=${1:-$REPO/out/initramfs.cpio.gz}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,mnt,etc,root,lib}
cp /bin/busybox "$root/bin/busybox"
for app in $("$root/bin/busybox" --list); do
	[ "$app" = busybox ] || ln -sf busybox "$root/bin/$app"
done
install -m 755 "$REPO/scripts/vm-init.sh" "$root/init"
# Host tools that busybox lacks (attr's getfattr/setfattr, fstests' fsx and
# fsstress, and
# EXTRA_TOOLS such as perf for make bench PERF=...), with their libraries.
"$REPO/scripts/fstests-build.sh" >&2
fsx=$CACHE/fstests/fstests/ltp/fsx
fsstress=$CACHE/fstests/fstests/ltp/fsstress
for tool in getfattr setfattr e2fsck mke2fs "$fsx" "$fsstress" ${EXTRA_TOOLS:-}; do
	bin=$(command -v "$tool") || { echo "mkinitramfs: $tool missing (make setup installs attr and linux-perf, and builds fstests)" >&2; exit 1; }
	install -D -m 755 "$bin" "$root/usr/bin/$(basename "$tool")"
	for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
		[ -e "$root$lib" ] || install -D -m 755 "$lib" "$root$lib"
	done
done
mkdir -p "$root/tests"
# Test tools (tests/tools/*.c), static so they need nothing from the initramfs.
for src in "$REPO"/tests/tools/*.c; do
	[ -e "$src" ] || continue
	gcc -O2 -static -Wall -Werror -o "$root/usr/bin/$(basename "$src" .c)" "$src"
done
# TESTS: space-separated globs of the tests/vm scripts to include (default all);
# KERNELS: space-separated kernel names: only the tests whose "# kernel:" line
# names one of them (make test: base, debug).
set -f; globs=(${TESTS:-*}); set +f
for glob in "${globs[@]}"; do
	for t in "$REPO"/tests/vm/$glob.sh; do
		[ -e "$t" ] || continue
		if [ -n "${KERNELS:-}" ]; then
			want=$(sed -n 's/^# kernel: //p' "$t" | head -1)
			hit=
			for k in $KERNELS; do
				case " $want " in *" $k "*) hit=1 ;; esac
			done
			[ -n "$hit" ] || continue
		fi
		cp "$t" "$root/tests/"
	done
done
[ -f "$REPO/tests/lib.sh" ] && cp "$REPO/tests/lib.sh" "$root/tests/lib.sh"
mkdir -p "$root/expected"
[ -d "$IMGDIR/expected" ] && cp -a "$IMGDIR/expected/." "$root/expected/"
cp "$KBUILD_OUT/include/config/kernel.release" "$root/expected/kernel.release"
# FSX_OPS: fsx operations per mode for tests/vm/26-ext2-rw-write.sh (default
# 10,000). Its time limit grows with it.
if [ -n "${FSX_OPS:-}" ]; then
	echo "$FSX_OPS" > "$root/expected/fsx-ops"
	[ -e "$root/tests/26-ext2-rw-write.sh" ] &&
		sed -i "s/^# timeout: .*/# timeout: $((2400 * (FSX_OPS / 10000 + 1)))/" "$root/tests/26-ext2-rw-write.sh"
fi
# Disk order: images sorted by name become vda, vdb, ...
i=0
: > "$root/expected/disks"
for img in "$IMGDIR"/*.img; do
	[ -e "$img" ] || continue
	dev=vd$(printf "\\x$(printf %x $((97 + i)))")
	echo "$(basename "$img" .img) $dev" >> "$root/expected/disks"
	i=$((i + 1))
done
[ -d "$KBUILD_OUT/modinst/lib/modules" ] && cp -a "$KBUILD_OUT/modinst/lib/modules" "$root/lib/"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$OUT"

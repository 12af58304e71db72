#!/bin/bash
# Boot the built kernel interactively, with an optional image attached
# (read-only) as the first virtio disk: run-vm.sh [IMAGE]
set -euo pipefail
. "$(dirname "$0")/env.sh"
img=${1:-}
kimg=$KBUILD_OUT/arch/x86/boot/bzImage
if [ -x "$CACHE/venv/bin/vng" ]; then
	args=(--run "$kimg" --disable-kvm --user root)
	[ -n "$img" ] && args+=(--disk "$img")
	exec "$CACHE/venv/bin/vng" "${args[@]}"
fi
echo "run-vm: virtme-ng not installed, booting the test initramfs shell"
root=$(mktemp -d)
"$REPO/scripts/mkinitramfs.sh" "$root/initramfs.cpio.gz"
drive=()
[ -n "$img" ] && drive=(-drive "file=$img,if=virtio,format=raw,readonly=on")
exec qemu-system-x86_64 -accel tcg -m 2G -smp 2 -nographic -no-reboot \
	-kernel "$kimg" -initrd "$root/initramfs.cpio.gz" \
	-append "console=ttyS0 rdinit=/bin/sh" "${drive[@]}"

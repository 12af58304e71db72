#!/bin/bash
# Boot the built kernel interactively, with an optional image attached as
# the first virtio-blk disk, /dev/vda in the guest: run-vm.sh [IMAGE]
# With $CMD set, runs that command in the guest instead of a shell: its
# output is printed and its exit status is this script's.
set -euo pipefail
. "$(dirname "$0")/env.sh"
img=${1:-}
kimg=$KBUILD_OUT/arch/x86/boot/bzImage
if [ -x "$CACHE/venv/bin/vng" ]; then
	# TCG (KVM hangs on these machines); 9p root (no virtiofsd needed).
	# The cache (modules, tools) is visible read-only: vng hides /var/cache.
	args=(--run "$kimg" --disable-kvm --force-9p --user root --memory 2G --rodir "$CACHE")
	# virtio-blk (vng's --disk is virtio-scsi, which the kernel lacks)
	[ -n "$img" ] && args+=("--qemu-opts=-drive file=$(readlink -f "$img"),if=virtio,format=raw,cache=unsafe")
	[ -n "${CMD:-}" ] && args+=(--exec "$CMD")
	export PATH="$CACHE/venv/bin:$PATH"
	exec vng "${args[@]}"
fi
echo "run-vm: virtme-ng not installed, booting the test initramfs shell"
root=$(mktemp -d)
"$REPO/scripts/mkinitramfs.sh" "$root/initramfs.cpio.gz"
drive=()
[ -n "$img" ] && drive=(-drive "file=$img,if=virtio,format=raw,readonly=on")
exec qemu-system-x86_64 -accel tcg -m 2G -smp 2 -nographic -no-reboot \
	-kernel "$kimg" -initrd "$root/initramfs.cpio.gz" \
	-append "console=ttyS0 rdinit=/bin/sh" "${drive[@]}"

#!/bin/bash
# Boot the built kernel under QEMU with the test initramfs and images, parse
# the results and the dmesg, print `N passed, N failed`; exit non-zero on
# any failure.
set -uo pipefail
. "$(dirname "$0")/env.sh"
OUTDIR=$REPO/out
IMGDIR=${IMGDIR:-$OUTDIR/images}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-3600}
mkdir -p "$OUTDIR"
"$REPO/scripts/mkinitramfs.sh" "$OUTDIR/initramfs.cpio.gz" || exit 1

drives=()
for img in "$IMGDIR"/*.img; do
	[ -e "$img" ] || continue
	drives+=(-drive "file=$img,if=virtio,format=raw,readonly=on,cache=unsafe")
done
accel=tcg
[ "${KVM:-0}" = 1 ] && accel=kvm
log=$OUTDIR/console.log
timeout "$BOOT_TIMEOUT" qemu-system-x86_64 -accel "$accel" -m 2G -smp "${SMP:-2}" \
	-nographic -no-reboot -nodefaults -serial stdio \
	-kernel "$KBUILD_OUT/arch/x86/boot/bzImage" \
	-initrd "$OUTDIR/initramfs.cpio.gz" \
	-append "console=ttyS0 loglevel=${LOGLEVEL:-4} panic=-1 oops=panic acpi=noirq rdinit=/init" \
	"${drives[@]}" < /dev/null | stdbuf -oL tr -d '\r' > "$log"
rc=${PIPESTATUS[0]}

pass=0 fail=0
if ! grep -q '^@@VM-UP' "$log"; then
	echo "FAIL boot: the VM did not reach userspace (qemu rc $rc); see $log"
	tail -30 "$log"
	fail=$((fail + 1))
fi
# Each test's output goes to out/logs/NAME.log; it is printed for failures.
logs=$REPO/out/logs
rm -rf "$logs"; mkdir -p "$logs"
while read -r _ res name rest; do
	grep "^@@LOG $name " "$log" | sed "s/^@@LOG $name //" > "$logs/$name.log" || true
	echo "$res $name $rest"
	if [ "$res" = PASS ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		sed 's/^/    /' "$logs/$name.log"
	fi
done < <(grep '^@@RESULT ' "$log")

# dmesg must be clean; a panic before the dump also counts.
if grep -q '^@@DMESG-END' "$log"; then
	bad=$(sed -n '/^@@DMESG-BEGIN/,/^@@DMESG-END/p' "$log" |
		grep -E '\bBUG\b|\bWARNING\b|Oops|KASAN|Kernel panic|rust_panic|panicked|general protection' || true)
else
	bad="no dmesg dump (VM died or hung, qemu rc $rc): $(grep -E '\bBUG\b|\bWARNING\b|Oops|KASAN|Kernel panic|panicked' "$log" | head -5)"
fi
if [ -z "$bad" ]; then
	echo "PASS dmesg-clean"
	pass=$((pass + 1))
else
	echo "FAIL dmesg-clean:"
	echo "$bad" | head -40 | sed 's/^/    /'
	fail=$((fail + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

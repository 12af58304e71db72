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
timeout "$BOOT_TIMEOUT" qemu-system-x86_64 -accel "$accel" -m "${MEM:-2G}" -smp "${SMP:-2}" \
	-nographic -no-reboot -nodefaults -serial stdio \
	-kernel "$KBUILD_OUT/arch/x86/boot/bzImage" \
	-initrd "$OUTDIR/initramfs.cpio.gz" \
	-append "console=ttyS0 loglevel=${LOGLEVEL:-4} panic=-1 oops=panic acpi=noirq slab_nomerge rdinit=/init" \
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

# KUnit suites (the kernel crate's doctests, ...): one result per suite.
while read -r _ res rest; do
	case "$res" in
	ok) echo "PASS kunit:${rest#* }"; pass=$((pass + 1)) ;;
	not) echo "FAIL kunit:${rest#* * }"; fail=$((fail + 1))
		grep '^@@KUNIT     not ok' "$log" | sed 's/^@@KUNIT /    /' | head -20 ;;
	esac
done < <(grep -E '^@@KUNIT (not )?ok ' "$log")
grep -E '^@@KUNIT # ' "$log" | sed 's/^@@KUNIT /    kunit /' || true

# kmemleak: no unreferenced object allocated by our code: a backtrace through
# Rust code (the bindings, the samples: their symbols are Rust-mangled or
# rust_*), or a buffer head.
if grep -q '^@@KMEMLEAK-END' "$log"; then
	sed -n 's/^@@ML //p' "$log" > "$OUTDIR/kmemleak.txt"
	total=$(grep -c '^unreferenced object' "$OUTDIR/kmemleak.txt" || true)
	ours=$(awk '/^unreferenced object/ { if (obj != "" && hit) n++; obj = $0; hit = 0; next }
		/rust|badfs|rofs|buffer_head/ { hit = 1 }
		END { if (obj != "" && hit) n++; print n + 0 }' "$OUTDIR/kmemleak.txt")
	if [ "$ours" = 0 ]; then
		echo "PASS kmemleak ($total unreferenced objects, none from file system code; $OUTDIR/kmemleak.txt)"
		pass=$((pass + 1))
	else
		echo "FAIL kmemleak: $ours of $total unreferenced objects from file system code:"
		head -60 "$OUTDIR/kmemleak.txt" | sed 's/^/    /'
		fail=$((fail + 1))
	fi
fi

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

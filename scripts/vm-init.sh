#!/bin/sh
# PID 1 in the test VM: run every /tests/*.sh, report, dump dmesg, power off.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs tmp /tmp
# The initramfs root comes from a private temporary directory (mode 0700):
# let unprivileged test users reach /mnt.
mkdir -p /mnt
chmod 755 / /mnt
# The leading newline ends the firmware's escape codes, so every marker
# starts a line and the host can match them anchored.
echo; echo "@@VM-UP $(uname -r)"
# KUnit (CONFIG_KUNIT: the kernel crate's doctests, ...) ran before init: its
# KTAP results, from the kernel log before the tests fill it.
dmesg | sed -n 's/^\[[ 0-9.]*\] //p' | grep -E '^(not )?ok [0-9]+ |^    (not )?ok [0-9]+ |^# [^ ]+: pass:' |
	sed 's/^/@@KUNIT /' || true
for t in /tests/[0-9]*.sh; do
	name=$(basename "$t" .sh)
	log=/tmp/$name.log
	# A test may ask for a longer limit with a "# timeout: SECONDS" line.
	limit=$(sed -n 's/^# timeout: //p' "$t" | head -1)
	t0=$(date +%s)
	if timeout "${limit:-${TEST_TIMEOUT:-300}}" sh "$t" > "$log" 2>&1; then
		res="PASS $name ($(($(date +%s) - t0)) s)"
	else
		rc=$?
		res="FAIL $name (exit $rc, $(($(date +%s) - t0)) s)"
	fi
	sed "s/^/@@LOG $name /" "$log"
	echo "@@RESULT $res"
done
# CONFIG_DEBUG_KMEMLEAK: scan for unreferenced objects once the tests are done
# (twice, as its documentation advises, so new objects are not reported).
if [ -e /sys/kernel/debug ] && mount -t debugfs none /sys/kernel/debug 2>/dev/null &&
	[ -e /sys/kernel/debug/kmemleak ]; then
	echo scan > /sys/kernel/debug/kmemleak; sleep 5
	echo scan > /sys/kernel/debug/kmemleak
	echo "@@KMEMLEAK-BEGIN"
	sed 's/^/@@ML /' /sys/kernel/debug/kmemleak
	echo "@@KMEMLEAK-END"
fi
echo "@@DMESG-BEGIN"
dmesg | sed 's/^/@@K /'
echo "@@DMESG-END"
sync
# -no-reboot turns the reboot into a QEMU exit (no ACPI needed)
reboot -f

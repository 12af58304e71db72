#!/bin/bash
# make run IMAGE=... CMD=...: the command's output reaches the user and its
# exit status is make run's; the image is /dev/vda in the guest. Checked on
# a conformance image: rust_ext2's listing equals C ext2's in the same boot.
# Prints PASS/FAIL lines.
set -uo pipefail
cd "$(dirname "$0")/../.."
img=out/images/ext2-4k.img
out=$(make -s run IMAGE=$img CMD="echo @@R && mount -t rust_ext2 -o ro /dev/vda /mnt && ls -la --time-style=+%s /mnt && umount /mnt && echo @@C && mount -t ext2 -o ro /dev/vda /mnt && ls -la --time-style=+%s /mnt" 2>&1)
rc=$?
rust=$(printf '%s\n' "$out" | sed -n '/^@@R$/,/^@@C$/p' | grep -v '^@@[RC]$' | tr -d '\r')
c=$(printf '%s\n' "$out" | sed -n '/^@@C$/,$p' | grep -v '^@@C$' | tr -d '\r')
if [ $rc = 0 ] && [ -n "$c" ] && [ "$rust" = "$c" ] && [ "$(printf '%s\n' "$c" | wc -l)" -gt 3 ]; then
	echo "PASS make-run-cmd (listing of $img, $(printf '%s\n' "$c" | wc -l) lines, identical on rust_ext2 and ext2)"
else
	echo "FAIL make-run-cmd: exit $rc"
	printf '%s\n' "$out" | tail -30 | sed 's/^/    /'
fi
# A failing command: its error reaches the user, and make run fails. (The
# exit status arrives through make, which turns any failure into 2.)
out=$(make -s run IMAGE=$img CMD="mount -t rust_ext2 -o ro /dev/vda /mnt && ls /mnt/no-such-file" 2>&1)
rc=$?
if [ $rc != 0 ] && printf '%s\n' "$out" | grep -q "no-such-file.*No such file"; then
	echo "PASS make-run-cmd-fails (ls's error shown, make run exits $rc)"
else
	echo "FAIL make-run-cmd-fails: make run exit $rc"
	printf '%s\n' "$out" | tail -30 | sed 's/^/    /'
fi
# The exit status itself, from the script make run calls.
CMD="exit 7" scripts/run-vm.sh > /dev/null 2>&1
rc=$?
if [ $rc = 7 ]; then
	echo "PASS make-run-exit-status (CMD=\"exit 7\" gives 7)"
else
	echo "FAIL make-run-exit-status: CMD=\"exit 7\" gave $rc"
fi

# Sourced by the tests/host tests that run the same operations on C ext2 and
# rust_ext2 in one boot: each image as two copies (NAME.c.img for C ext2,
# NAME.r.img for rust_ext2), attached as virtio drives in that order, one
# virtme-ng boot of the built kernel that runs $W/guest.sh, and the splat
# check of its dmesg (the guest writes the matching lines to $W/splats).

# virtme-ng runs QEMU through its own commands (on the host; the guest
# sources this file too, for pair_guest_runs and pair_guest_disk).
[ -z "${CACHE:-}" ] || export PATH="$CACHE/venv/bin:$PATH"

# pair_drives C-IMG R-IMG: attaches both (array `drives`).
pair_drives() {
	drives+=(-drive "file=$1,if=virtio,format=raw,cache=unsafe" -drive "file=$2,if=virtio,format=raw,cache=unsafe")
}

# pair_boot TEST W KO: boots with `drives` (and the kernel arguments in
# PAIR_APPEND, if any), runs `bash W/guest.sh W KO`; prints a FAIL line and
# returns 1 unless the guest printed @@DONE.
pair_boot() {
	local test=$1 w=$2 ko=$3
	"$CACHE/venv/bin/vng" --run "$KBUILD_OUT/arch/x86/boot/bzImage" --disable-kvm --force-9p --user root --memory 2G \
		${PAIR_APPEND:+--append "$PAIR_APPEND"} --rodir "$CACHE" --rwdir "$w" "--qemu-opts=${drives[*]}" \
		--exec "bash $w/guest.sh $w $ko" > "$w/console.log" 2>&1
	if ! grep -q '^@@DONE' "$w/console.log"; then
		echo "FAIL $test: the guest did not finish"
		tail -20 "$w/console.log" | sed 's/^/    /'
		return 1
	fi
}

# pair_splats TEST W: a FAIL line with the guest's splats, else a PASS line.
pair_splats() {
	if [ -s "$2/splats" ]; then
		echo "FAIL $1-dmesg:"
		sed 's/^/    /' "$2/splats"
	else
		echo "PASS $1-dmesg (no splat)"
	fi
}

# In the guest (sourced by W/guest.sh, with w=W and a function `run FSTYPE
# DEV MOUNT-OPTS` defined): for each line "NAME MOUNT-OPTS" of $w/names, `run`
# on the C copy (/dev/vd{a,c,...}) into $w/NAME.c.out, then on the rust copy
# into $w/NAME.r.out; the splats of the kernel log go to $w/splats, the errors
# it logs (without the driver's prefix and C's function name) to the output.
pair_guest_runs() {
	local letters=abcdefghijklmnopqrstuvwxyz i=0 name o c r t dev out m
	dmesg -c > /dev/null
	: > "$w/splats"
	while read -r name o; do
		c=/dev/vd${letters:$((2 * i)):1} r=/dev/vd${letters:$((2 * i + 1)):1}
		for t in ext2 rust_ext2; do
			[ $t = ext2 ] && { dev=$c out=$w/$name.c.out; } || { dev=$r out=$w/$name.r.out; }
			run $t "$dev" "$o" > "$out" 2>&1
			m=$(dmesg -c)
			grep -E 'BUG|WARNING|Oops|KASAN|panicked|lockdep' <<< "$m" >> "$w/splats"
			sed -nE 's/.*error: ([a-z0-9_]+: )?/error: /p' <<< "$m" >> "$out"
		done
		i=$((i + 1))
	done < "$w/names"
	dmesg | grep -E 'BUG|WARNING|Oops|KASAN|panicked|lockdep' >> "$w/splats"
}

# pair_same TEST W NAME: whether C ext2's run of NAME finished (its output
# ends with an e2fsck line) and rust_ext2's output is the same; prints a FAIL
# line (with the diff) and returns 1 if not.
pair_same() {
	local c=$2/$3.c.out r=$2/$3.r.out
	if ! [ -s "$c" ] || ! grep -q '^e2fsck' "$c"; then
		echo "FAIL $1-$3: C ext2's run did not finish:"
		sed 's/^/    /' "$c" | head -20
		return 1
	fi
	if ! diff -u "$c" "$r" > "$2/$3.diff"; then
		echo "FAIL $1-$3: rust_ext2 differs from C ext2 (- C, + rust):"
		sed 's/^/    /' "$2/$3.diff" | head -40
		return 1
	fi
}

# In the guest, after the unmount: pair_guest_disk DEV FILE...: the block map
# of each file, the groups' free counts and ranges, the state and features,
# and e2fsck -fn's verdict.
pair_guest_disk() {
	local d=$1 f
	shift
	for f in "$@"; do echo "$f blocks: $(debugfs -R "blocks $f" "$d" 2>/dev/null)"; done
	dumpe2fs "$d" 2>/dev/null | grep -E '^Group|free blocks|Free blocks:|^Free blocks count|^Filesystem (state|features)'
	e2fsck -fn "$d" > /dev/null 2>&1; echo "e2fsck -fn: exit $?"
}

# pair_verdict TEST W NAME: pair_same, then whether C ext2's script ran to its
# end and e2fsck -fn was clean on both; prints a FAIL line and returns 1 if
# not (the caller prints its PASS line), and counts the steps: `pair_ok` is
# the number of steps that succeeded, `pair_refused` the errnos as C's.
pair_verdict() {
	local c=$2/$3.c.out
	pair_same "$1" "$2" "$3" || return 1
	if grep -q '^Traceback' "$c"; then
		echo "FAIL $1-$3: the script stopped on C ext2 too:"
		grep -A8 '^Traceback' "$c" | sed 's/^/    /'
		return 1
	fi
	if ! grep -qx 'e2fsck -fn: exit 0' "$c"; then
		echo "FAIL $1-$3: e2fsck not clean on both"
		return 1
	fi
	pair_ok=$(grep -c ': ok$' "$c")
	pair_refused="$(grep -cE ': E[A-Z0-9]+$' "$c") refused as C ($(grep -oE ': E[A-Z0-9]+$' "$c" | sort | uniq -c | tr -s ' ' | tr '\n' ' '))"
}

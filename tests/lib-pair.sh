# Sourced by the tests/host tests that run the same operations on C ext2 and
# rust_ext2 in one boot: each image as two copies (NAME.c.img for C ext2,
# NAME.r.img for rust_ext2), attached as virtio drives in that order, one
# virtme-ng boot of the built kernel that runs $W/guest.sh, and the splat
# check of its dmesg (the guest writes the matching lines to $W/splats).

# virtme-ng runs QEMU through its own commands.
export PATH="$CACHE/venv/bin:$PATH"

# pair_drives C-IMG R-IMG: attaches both (array `drives`).
pair_drives() {
	drives+=(-drive "file=$1,if=virtio,format=raw,cache=unsafe" -drive "file=$2,if=virtio,format=raw,cache=unsafe")
}

# pair_boot TEST W KO: boots with `drives`, runs `bash W/guest.sh W KO`;
# prints a FAIL line and returns 1 unless the guest printed @@DONE.
pair_boot() {
	local test=$1 w=$2 ko=$3
	"$CACHE/venv/bin/vng" --run "$KBUILD_OUT/arch/x86/boot/bzImage" --disable-kvm --force-9p --user root --memory 2G \
		--rodir "$CACHE" --rwdir "$w" "--qemu-opts=${drives[*]}" \
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

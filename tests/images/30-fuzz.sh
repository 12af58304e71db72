# Hostile images: FUZZ_COUNT (default 300) seeded mutations (tests/fuzz/
# mutate.py) of small 1k/2k/4k/rev0 images, then FUZZ_BOUNDARY (default 120,
# or "all") boundary-value images (tests/fuzz/boundary.py), in slots of one
# container disk (fuzz.img); expected/fuzz.list says what each slot holds.
here=$(dirname "${BASH_SOURCE[0]}")
export E2FSPROGS_FAKE_TIME=1700000000
fb() { # NAME TREE MKE2FS-ARGS...
	local name=$1 kind=$2
	shift 2
	python3 "$here/ext2_tree.py" "$WORK/$name" "$kind"
	mke2fs -q -F -U 0b1d2a3c-4e5f-4061-8273-94a5b6c7d8e9 \
		-E hash_seed=5e1f2d3c-4b5a-4968-8776-655443322110 \
		-d "$WORK/$name" "$@" "$WORK/$name.img" 4M
	debugfs -w -R "ea_set /hello.txt user.comment fuzz-xattr-value" "$WORK/$name.img" > /dev/null 2>&1
	debugfs -w -R "ea_set /special/fifo trusted.t trusted-value" "$WORK/$name.img" > /dev/null 2>&1
	debugfs -w -R "ea_set /dir security.s security-value" "$WORK/$name.img" > /dev/null 2>&1
}
fb fuzz-1k fuzz -t ext2 -b 1024 -I 128
fb fuzz-2k fuzz -t ext2 -b 2048 -I 128
fb fuzz-4k fuzz -t ext2 -b 4096 -I 128
fb fuzz-rev0 fuzz -t ext2 -r 0 -b 1024
mkdir -p "$IMGDIR/fuzz-bases"
cp "$WORK"/fuzz-*.img "$IMGDIR/fuzz-bases/"
FUZZ_BOUNDARY=${FUZZ_BOUNDARY:-120} python3 "$here/../fuzz/fuzzgen.py" "${FUZZ_COUNT:-300}" "${FUZZ_SEED:-1000}" \
	"$IMGDIR/fuzz.img" "$IMGDIR/expected/fuzz.list" \
	"$WORK"/fuzz-1k.img "$WORK"/fuzz-2k.img "$WORK"/fuzz-4k.img "$WORK"/fuzz-rev0.img
# The fixed set of make test (no FUZZ_SEED) must reach every reachable check.
rm -f "$IMGDIR/expected/coverage-required"
[ -n "${FUZZ_SEED:-}" ] || : > "$IMGDIR/expected/coverage-required"
# The error messages of rust_ext2, as regexes, for the coverage report of
# tests/vm/30-hostile.sh.
python3 "$here/../fuzz/checks.py" "$here"/../../samples/rust/rust_ext2/*.rs > "$IMGDIR/expected/ext2-checks"

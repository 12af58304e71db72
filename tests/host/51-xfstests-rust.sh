#!/bin/bash
# fstests on rust_ext2 itself, in the kernel make test built (no other
# build): C ext2's initcall kept from running, rust_ext2 loaded as "ext2"
# with writes (make xfstests RUST=1), the tests of tests/xfstests/rust.list
# (a subset chosen for time: see the list). Every verdict must be
# C ext2's (tests/xfstests/baseline-ext2), and the guest must prove that
# ext2 was rust_ext2: one PASS/FAIL line per test, and one for the proof.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=out/xfstests-rust-ci
TESTS=$(grep -v '^#' tests/xfstests/rust.list) GROUP= FSTYP=ext2 JOBS=1 FRESH=1 RUST=1 OUT=$out scripts/xfstests.sh
if grep -q 'users with TEST_DEV mounted as ext2: [1-9]' "$out/proof" 2>/dev/null; then
	echo "PASS xfstests-rust-proof ($(head -1 "$out/proof"))"
else
	echo "FAIL xfstests-rust-proof: the guest did not show rust_ext2 serving ext2 ($(head -1 "$out/proof" 2>/dev/null))"
fi

#!/bin/bash
# fstests' CI subset (tests/xfstests/ci.list) on C ext2 with the rust_ext2
# read-back check: one PASS/FAIL line per test (make xfstests's summary).
set -uo pipefail
cd "$(dirname "$0")/../.."
TESTS= GROUP= FSTYP=ext2 JOBS=1 FRESH=1 OUT=out/xfstests-ci scripts/xfstests.sh

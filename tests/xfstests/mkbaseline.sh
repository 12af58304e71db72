#!/bin/bash
# mkbaseline.sh OUTDIR [FSTYP]: the baseline from a make xfstests run's
# verdicts (OUTDIR/verdicts): every test that did not pass, with its verdict
# and fstests' one-line reason. Tests not listed are expected to pass.
set -euo pipefail
out=$1
echo "# fstests verdicts of C ${2:-ext2} on this project's kernel (base config), other than"
echo "# pass: TEST VERDICT REASON. Made by tests/xfstests/mkbaseline.sh from a"
echo "# make xfstests GROUP=quick run ($(date -u +%F)); a run reports changes against it."
awk '$2 != "pass" { t = $1; v = $2; $1 = $2 = $3 = ""; sub(/^ +/, ""); print t, v, $0 }' "$out/verdicts" | sort

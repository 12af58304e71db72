# kernel: base debug
# The VM runs the kernel we built (release string from our build).
. /tests/lib.sh
expect_eq "uname -r" "$(uname -r)" "$(cat /expected/kernel.release)"
case "$(uname -r)" in *-rustvfs) ;; *) fail "not our LOCALVERSION: $(uname -r)" ;; esac

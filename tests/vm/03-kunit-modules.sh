# kernel: debug
# The KUnit suites of the sample modules (rust_ext2's pure logic: max_size,
# group_sparse, rec_len, ACL sizes, block paths) run when the module is loaded; each
# suite must report "ok" and none "not ok". The kernel crate's suites run at
# boot and are counted by the harness.
. /tests/lib.sh
rmmod rust_ext2 2>/dev/null || true
echo "@@kunit-modules-start" > /dev/kmsg
modprobe rust_ext2
ktap=$(dmesg | sed -n '/@@kunit-modules-start/,$p' | sed -n 's/^\[[ 0-9.]*\] //p' |
	grep -E '^(not )?ok [0-9]+ |^    (not )?ok [0-9]+ |^# [^ ]+: pass:' || true)
echo "$ktap"
suites=$(echo "$ktap" | grep -cE '^ok [0-9]+ rust_ext2_' || true)
echo "$ktap" | grep -q 'not ok' && fail "a KUnit test failed"
[ "$suites" -ge 4 ] || fail "$suites rust_ext2 KUnit suites passed, want 4"
echo "$suites rust_ext2 KUnit suites passed"

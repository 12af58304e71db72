# kernel: base debug
# A Rust sample module is in the kernel: rust_minimal printed at init.
. /tests/lib.sh
dmesg | grep -q 'Rust minimal sample (init)' || fail "rust_minimal's printk not in dmesg"

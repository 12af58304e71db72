# Rust VFS bindings overlay on Linux 7.3: build, boot, test.
# See README.md. Everything heavy lives in $(CACHE), outside the repo.

CACHE ?= /var/cache/rust-vfs
ifdef CONFIG
export CONFIG_EXPLICIT := 1
endif
CONFIG ?= base
export CACHE
export CONFIG_NAME := $(CONFIG)

S := scripts

.PHONY: all setup kernel images test fuzz bench run xfstests patches check rustdoc clean distclean

all: kernel

setup:
	$(S)/setup.sh

kernel:
	$(S)/build-kernel.sh

images:
	$(S)/mkimages.sh

# Each tests/vm test names its kernels ("# kernel: base debug"); the debug
# kernel is built while the host tests run on the base kernel.
# make test CONFIG=NAME: every base and debug test on one kernel.
test:
	$(S)/test.sh

# make fuzz [N=1000] [SEED=...] [SWEEP=1]: N mutated images (and with SWEEP=1
# the whole boundary-value sweep) on the debug kernel;
# misbehaving ones go to out/crashes/ with a reproducer.
fuzz:
	N="$(N)" SEED="$(SEED)" SWEEP="$(SWEEP)" $(S)/fuzz.sh

# make bench [QUICK=1] [REPS=5] [CASES="find-stat tar"] [PERF="getdents tar"] [PERF_RUNS=3] [PERF_LIMIT=0.7]: rust_ext2 vs C ext2 read and write
# performance, out/bench.md; PERF profiles the named cases with perf in the VM
# (warm runs; PERF_MODE=cold: cold runs)
bench:
	QUICK="$(QUICK)" REPS="$(REPS)" CASES="$(CASES)" PERF="$(PERF)" PERF_MODE="$(PERF_MODE)" PERF_RUNS="$(PERF_RUNS)" PERF_LIMIT="$(PERF_LIMIT)" PERF_GRAPH="$(PERF_GRAPH)" $(S)/bench.sh

# make run IMAGE=disk.img [CMD="..."]  (virtme-ng if installed, else QEMU)
run: kernel
	CMD="$(CMD)" $(S)/run-vm.sh $(IMAGE)

# make xfstests [TESTS="generic/001 ..."] [GROUP=quick] [FSTYP=ext2] [JOBS=N]
#   [FRESH=1] [AGAIN=1] [READBACK=0] [FSTESTS_DIR=...]: fstests in virtme-ng,
#   with the rust_ext2 read-back check wherever fstests checks a file system;
#   resumes (tests with a verdict in out/xfstests/ are skipped) unless
#   FRESH=1 (all anew) or AGAIN=1 (the listed tests again).
#   Default TESTS: the CI subset, tests/xfstests/ci.list.
xfstests:
	TESTS="$(TESTS)" GROUP="$(GROUP)" FSTYP="$(FSTYP)" JOBS="$(JOBS)" FRESH="$(FRESH)" \
		AGAIN="$(AGAIN)" READBACK="$(READBACK)" FSTESTS_DIR="$(FSTESTS_DIR)" $(S)/xfstests.sh

patches:
	$(S)/mkpatches.sh

check: patches
	$(S)/check.sh

rustdoc:
	$(S)/kmake.sh rustdoc

clean:
	rm -rf out
	-$(S)/kmake.sh clean

distclean:
	rm -rf out $(CACHE)

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

.PHONY: all setup kernel images test fuzz bench run patches check rustdoc clean distclean

all: kernel

setup:
	$(S)/setup.sh

kernel:
	$(S)/build-kernel.sh

images:
	$(S)/mkimages.sh

# Base kernel: all tests but the hostile images; debug kernel: those.
# make test CONFIG=NAME: everything on one kernel.
test:
	$(S)/test.sh

# make fuzz [N=1000] [SEED=...] [SWEEP=1]: N mutated images (and with SWEEP=1
# the whole boundary-value sweep) on the debug kernel;
# misbehaving ones go to out/crashes/ with a reproducer.
fuzz:
	N="$(N)" SEED="$(SEED)" SWEEP="$(SWEEP)" $(S)/fuzz.sh

# make bench [QUICK=1] [REPS=5] [PERF="getdents tar"]: rust_ext2 vs C ext2 read
# performance, out/bench.md; PERF profiles the named cases with perf in the VM
bench:
	QUICK="$(QUICK)" REPS="$(REPS)" PERF="$(PERF)" $(S)/bench.sh

# make run IMAGE=disk.img [CMD="..."]  (virtme-ng if installed, else QEMU)
run: kernel
	CMD="$(CMD)" $(S)/run-vm.sh $(IMAGE)

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

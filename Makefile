# Rust VFS bindings overlay on Linux 7.3: build, boot, test.
# See README.md. Everything heavy lives in $(CACHE), outside the repo.

CACHE ?= /var/cache/rust-vfs
CONFIG ?= base
export CACHE
export CONFIG_NAME := $(CONFIG)

S := scripts

.PHONY: all setup kernel images test run patches check rustdoc clean distclean

all: kernel

setup:
	$(S)/setup.sh

kernel:
	$(S)/build-kernel.sh

images:
	$(S)/mkimages.sh

test: kernel images
	$(S)/run-tests.sh

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

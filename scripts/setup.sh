#!/bin/bash
# Install everything `make test` needs on a Debian bookworm machine.
# Idempotent: a second run only checks what is already there.
set -euo pipefail

CACHE=${CACHE:-/var/cache/rust-vfs}
KSERIES=${KSERIES:-7.3}
RUSTSRC_VER=${RUSTSRC_VER:-1.95.0}
mkdir -p "$CACHE"

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo

# Kernel build, images, QEMU; udev (virtme-ng's guest init needs udevd for
# /dev/virtio-ports: make run CMD=...); fstests' build and run dependencies
# (make xfstests).
PKGS="clang-22 lld-22 llvm-22 libclang-22-dev flex bison bc cpio libelf-dev
libssl-dev e2fsprogs busybox-static ccache qemu-system-x86 python3-venv
attr rsync kmod dwarves gcc libc6-dev python3 linux-perf udev
xfslibs-dev uuid-dev libtool-bin automake autoconf libacl1-dev libaio-dev
xfsprogs libgdbm-dev gawk fio uuid-runtime libcap-dev liburcu-dev
libinih-dev acl quota dbench psmisc"

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "setup: installing$missing"
	$SUDO apt-get update -q
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
fi

# bindgen (kernel 7.3 needs >= 0.71.1)
export PATH="$HOME/.cargo/bin:$PATH"
if ! bindgen --version 2>/dev/null | awk '{ split($2, v, "."); exit !(v[1] > 0 || v[2] >= 71) }'; then
	cargo install --locked bindgen-cli
fi

# Arch-all packages from newer suites, via a private apt config so that
# nothing from trixie is ever installed into the system.
"$(dirname "$0")/fetch-debs.sh"

# virtme-ng's guest init mounts the kernel's modules on /lib/modules, which
# must exist in the host's root (it does wherever a kernel is installed).
[ -d /lib/modules ] || $SUDO mkdir -p /lib/modules
# virtme-ng for `make run`
if [ ! -x "$CACHE/venv/bin/vng" ]; then
	python3 -m venv "$CACHE/venv"
	"$CACHE/venv/bin/pip" install -q virtme-ng==1.42 || \
		echo "setup: warning: virtme-ng not installed; 'make run' falls back to plain QEMU"
fi
# fstests, from the pinned snapshot, built into the cache (make xfstests)
"$(dirname "$0")/fstests-build.sh"
echo "setup: done (cache in $CACHE)"

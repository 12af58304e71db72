#!/bin/bash
# Download and extract linux-source-$KSERIES and rust-src $RUSTSRC_VER
# (arch all, trixie-backports) into the cache, with a private apt config.
# Arch-all packages are read from the amd64 index (it lists them too), which
# avoids depending on the separate binary-all index being in sync.
set -euo pipefail

CACHE=${CACHE:-/var/cache/rust-vfs}
KSERIES=${KSERIES:-7.3}
RUSTSRC_VER=${RUSTSRC_VER:-1.95.0}
APTDIR=$CACHE/apt
SRC=$CACHE/src

if [ -f "$SRC/linux.version" ] && [ -d "$SRC/rust-src/usr/lib/rustlib/src/rust/library" ] &&
   ls "$SRC"/linux-source-"$KSERIES"*.tar.* >/dev/null 2>&1; then
	echo "fetch-debs: cached: linux $(cat "$SRC/linux.version"), rust-src $(cat "$SRC/rust-src.version")"
	exit 0
fi

# The mirror is whatever this machine's Debian sources use.
MIRROR=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
if [ -z "$MIRROR" ]; then
	MIRROR=$(awk '/^deb / { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
fi
[ -n "$MIRROR" ] || { echo "fetch-debs: cannot find the Debian mirror" >&2; exit 1; }

mkdir -p "$APTDIR"/{lists/partial,cache/archives/partial,etc/preferences.d,etc/apt.conf.d} "$SRC"
cat > "$APTDIR/etc/sources.list" <<SRCS
deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR trixie-backports main
SRCS
cat > "$APTDIR/apt.conf" <<CONF
Dir::State "$APTDIR";
Dir::State::Lists "$APTDIR/lists";
Dir::State::status "$APTDIR/status";
Dir::Cache "$APTDIR/cache";
Dir::Etc::SourceList "$APTDIR/etc/sources.list";
Dir::Etc::SourceParts "$APTDIR/etc/sources.list.d";
Dir::Etc::Preferences "$APTDIR/etc/preferences";
Dir::Etc::PreferencesParts "$APTDIR/etc/preferences.d";
Dir::Etc::Parts "$APTDIR/etc/apt.conf.d";
APT::Architecture "amd64";
APT::Architectures { "amd64"; };
Acquire::Languages "none";
Acquire::By-Hash "force";
Acquire::Retries "3";
CONF
touch "$APTDIR/status"
export APT_CONFIG=$APTDIR/apt.conf
apt-get update -q -o APT::Sandbox::User=root >/dev/null

cd "$SRC"
# Newest point release of the pinned series.
kver=$(apt-cache madison "linux-source-$KSERIES" | awk '{ print $3 }' | sort -V | tail -1)
[ -n "$kver" ] || { echo "fetch-debs: linux-source-$KSERIES not found" >&2; exit 1; }
rver=$(apt-cache madison rust-src | awk '{ print $3 }' | grep "^${RUSTSRC_VER}" | sort -V | tail -1)
[ -n "$rver" ] || { echo "fetch-debs: rust-src $RUSTSRC_VER not found" >&2; exit 1; }
apt-get download -q -o APT::Sandbox::User=root "linux-source-$KSERIES=$kver" "rust-src=$rver"

rm -rf linux-deb rust-src
dpkg-deb -x linux-source-"$KSERIES"_*.deb linux-deb
mv linux-deb/usr/src/linux-source-"$KSERIES"*.tar.* .
rm -rf linux-deb
dpkg-deb -x rust-src_*.deb rust-src
rm -f ./*.deb
echo "$kver" > linux.version
echo "$rver" > rust-src.version
echo "fetch-debs: linux-source-$KSERIES $kver, rust-src $rver"

#!/bin/bash
# Configure (tinyconfig + configs/$CONFIG_NAME.config) and build bzImage + modules.
set -euo pipefail
. "$(dirname "$0")/env.sh"
"$REPO/scripts/prepare-tree.sh"
mkdir -p "$KBUILD_OUT" "$CCACHE_DIR"
frag="$REPO/configs/base.config"
[ "$CONFIG_NAME" = base ] || frag="$frag $REPO/configs/$CONFIG_NAME.config"
fhash=$(cat $frag | sha256sum | cut -c1-16)
if [ "$(cat "$KBUILD_OUT/.frag-hash" 2>/dev/null)" != "$fhash" ] || [ ! -f "$KBUILD_OUT/.config" ]; then
	"${KMAKE[@]}" tinyconfig >/dev/null
	KCONFIG_CONFIG="$KBUILD_OUT/.config" "$KTREE/scripts/kconfig/merge_config.sh" \
		-m -O "$KBUILD_OUT" "$KBUILD_OUT/.config" $frag >/dev/null
	"${KMAKE[@]}" olddefconfig >/dev/null
	# Every line of the fragments must have stuck (catches missing deps); a
	# later fragment overrides an earlier one.
	bad=0
	declare -A want=()
	for f in $frag; do
		while IFS= read -r line; do
			case "$line" in CONFIG_*) want[${line%%=*}]=${line#*=} ;; esac
		done < "$f"
	done
	for sym in "${!want[@]}"; do
		val=${want[$sym]}
		if [ "$val" = n ]; then
			grep -q "^$sym=" "$KBUILD_OUT/.config" && { echo "config: $sym should be off"; bad=1; }
		else
			grep -qx "$sym=$val" "$KBUILD_OUT/.config" || { echo "config: $sym=$val did not stick"; bad=1; }
		fi
	done
	[ $bad = 0 ] || exit 1
	echo "$fhash" > "$KBUILD_OUT/.frag-hash"
fi
"${KMAKE[@]}" rustavailable >/dev/null
"${KMAKE[@]}" bzImage modules
"${KMAKE[@]}" INSTALL_MOD_PATH="$KBUILD_OUT/modinst" modules_install >/dev/null
echo "build-kernel: $(cat "$KBUILD_OUT/include/config/kernel.release") at $KBUILD_OUT/arch/x86/boot/bzImage"

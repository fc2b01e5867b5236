#!/bin/bash
# Build the perf dprof guest kernel out of tree:
#   $BUILD_DIR/kernel/arch/x86/boot/bzImage and $BUILD_DIR/kernel/vmlinux
#
# Config: tinyconfig + scripts/guest/dprof-guest.config (+ $KERNEL_CONFIG_EXTRA,
# space-separated fragment files).  Reconfigures when a fragment or the source
# tree changes, and fails naming every wanted symbol that olddefconfig dropped.
#
# env: BUILD_DIR   (default <repo>/build)
#      DPROF_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/perf-dprof)
#      KERNEL_SRC  kernel tree to build as is (skips scripts/prepare-tree.sh);
#                  default: $BUILD_DIR/linux, prepared by scripts/prepare-tree.sh
#                  (LINUX_SRC there names the pristine tree the overlay is made from)
#      KERNEL_OUT  (default $BUILD_DIR/kernel)
#      KERNEL_CONFIG_EXTRA  extra fragment files
#      JOBS        (default nproc)
#      CCACHE_DIR  (default $DPROF_CACHE/ccache-kernel)
# Prints the bzImage path on the last line of stdout.
set -eu

# shellcheck source=lib/env.sh
. "$(dirname "$0")/lib/env.sh"
out=${KERNEL_OUT:-$BUILD_DIR/kernel}
frags="$REPO/scripts/guest/dprof-guest.config ${KERNEL_CONFIG_EXTRA:-}"

die() { echo "build-kernel: $*" >&2; exit 1; }
# the guest config compresses the kernel with LZ4: a fresh machine lacks lz4
"$REPO/scripts/deps.sh" lz4 || die "lz4 is needed to compress the guest kernel: install it as above"
log() { echo "build-kernel: $*" >&2; }

for t in make gcc flex bison bc; do
	command -v $t >/dev/null || die "$t not found (apt-get install build-essential flex bison bc libelf-dev libssl-dev)"
done
[ -f /usr/include/libelf.h ] || [ -f /usr/include/gelf.h ] ||
	die "libelf headers missing (objtool/ORC needs them): apt-get install libelf-dev"
for f in $frags; do [ -r "$f" ] || die "config fragment $f not found"; done

if [ -n "${KERNEL_SRC:-}" ]; then
	src=$(cd "$KERNEL_SRC" 2>/dev/null && pwd) || die "KERNEL_SRC=$KERNEL_SRC is not a directory"
else
	if [ -x "$REPO/scripts/prepare-tree.sh" ]; then
		"$REPO/scripts/prepare-tree.sh" || die "scripts/prepare-tree.sh failed"
	fi
	src=$BUILD_DIR/linux
	[ -d "$src" ] || die "no kernel tree at $src: run scripts/prepare-tree.sh, or set KERNEL_SRC"
fi
[ -f "$src/Makefile" ] && [ -f "$src/arch/x86/Kconfig" ] || die "$src is not a kernel tree"
[ ! -f "$src/.config" ] || die "$src/.config exists: out-of-tree builds need a clean source tree (make -C $src mrproper)"

mkdir -p "$out"
out=$(cd "$out" && pwd)

# One build at a time per output dir (make run and the shell test may race).
exec 9>"$out/.build-kernel.lock"
flock 9

# ccache: the same objects from any clone path.  Paths under BASEDIR are
# rewritten relative to the compiler's cwd ($out), so $BUILD_DIR/linux and
# $BUILD_DIR/kernel hash the same wherever BUILD_DIR is; NOHASHDIR keeps
# the cwd out of the hash of -g compiles.  (Cached objects then carry the
# DW_AT_comp_dir of the first build; type info, which perf uses, is unaffected.)
command -v ccache >/dev/null || log "ccache not found, building without it (apt-get install ccache)"
export CCACHE_DIR=${CCACHE_DIR:-$DPROF_CACHE/ccache-kernel}
export CCACHE_BASEDIR=$(dirname "$out")
[ "$(dirname "$src")" = "$CCACHE_BASEDIR" ] ||
	log "note: $src is not next to $out; ccache hits across clone paths need both under one dir"
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Reproducible: no rebuild of init/version.o, and the same bytes everywhere.
export KBUILD_BUILD_TIMESTAMP="2025-01-01 00:00:00 UTC" KBUILD_BUILD_USER=dprof KBUILD_BUILD_HOST=dprof
export KBUILD_BUILD_VERSION=1
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"
mk() { make -s -C "$src" O="$out" CC="$cc" HOSTCC=gcc "$@"; }

# --- configure when the fragments or the tree changed ---
# shellcheck disable=SC2086
stamp=$( { echo "$src"; cat $frags; cat "$src/Makefile";
	cat "$BUILD_DIR/.linux.stamp" 2>/dev/null || true; } | sha256sum | cut -d' ' -f1)
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.dprof-config.stamp" 2>/dev/null)" != "$stamp" ]; then
	log "configuring $out (tinyconfig + $(echo $frags | sed "s|$REPO/||g"))"
	rm -f "$out/.dprof-config.stamp"
	mk tinyconfig >/dev/null
	# shellcheck disable=SC2086
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $frags >"$out/.merge_config.log" 2>&1 ||
		{ cat "$out/.merge_config.log" >&2; die "merge_config.sh failed"; }
	mk olddefconfig >/dev/null
	# Every symbol in the fragments must have survived olddefconfig.
	bad=
	# shellcheck disable=SC2086
	while read -r k v; do
		got=$(sed -n "s/^$k=//p" "$out/.config")
		case $v in
		n) [ -z "$got" ] || bad="$bad  $k: want n, got $got\n" ;;
		*) [ "$got" = "$v" ] || bad="$bad  $k: want $v, got ${got:-n (unset or unavailable)}\n" ;;
		esac
	done < <(sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=\(.*\)$/\1 \2/p' \
			-e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1 n/p' $frags)
	if [ -n "$bad" ]; then
		printf "build-kernel: olddefconfig did not keep these wanted symbols (missing dependency, or select-only):\n$bad" >&2
		die "fix scripts/guest/dprof-guest.config (see make -C $src O=$out menuconfig, / to search)"
	fi
	echo "$stamp" > "$out/.dprof-config.stamp"
fi

# --- build ---
log "building $out (src $src, -j${JOBS:-$(nproc)}, CC=$cc)"
t0=$(date +%s)
mk -j"${JOBS:-$(nproc)}" bzImage >"$out/build.log" 2>&1 || {
	grep -B4 -A3 -m5 -E "error:|Error [0-9]" "$out/build.log" >&2 || tail -40 "$out/build.log" >&2
	die "make failed, full log: $out/build.log"
}
log "done in $(( $(date +%s) - t0 ))s"
[ -f "$out/vmlinux" ] || die "no $out/vmlinux after the build"
echo "$out/arch/x86/boot/bzImage"

#!/bin/bash
# Build perf with dprof out of tree: $BUILD_DIR/perf/perf.
#
# env: BUILD_DIR, DPROF_CACHE, LINUX_SRC (see prepare-tree.sh)
#      JOBS (default: nproc), PERF_MAKE_ARGS (extra make arguments)
set -eu

# shellcheck source=lib/env.sh
. "$(dirname "$0")/lib/env.sh"

"$REPO/scripts/deps.sh"
"$REPO/scripts/prepare-tree.sh"

# ccache: paths below BUILD_DIR are hashed relative to it, so a clone
# elsewhere (with its own BUILD_DIR) hits the same cache entries.
export CCACHE_DIR=$DPROF_CACHE/ccache
export CCACHE_BASEDIR=$BUILD_DIR
export CCACHE_NOHASHDIR=1
cc="gcc"
command -v ccache >/dev/null && cc="$REPO/scripts/ccache-cc"

mkdir -p "$BUILD_DIR/perf"
# shellcheck disable=SC2086
make -C "$BUILD_DIR/linux/tools/perf" O="$BUILD_DIR/perf" -j"${JOBS:-$(nproc)}" \
	CC="$cc" BUILD_BPF_SKEL=0 ${PERF_MAKE_ARGS:-} >"$BUILD_DIR/perf/build.log" 2>&1 || {
	grep -B4 -A3 -m5 "error:" "$BUILD_DIR/perf/build.log" >&2 || tail -40 "$BUILD_DIR/perf/build.log" >&2
	echo "build-perf: make failed, full log: $BUILD_DIR/perf/build.log" >&2
	exit 1
}

# The features dprof needs, and the Debian package providing each.
opts=$("$BUILD_DIR/perf/perf" version --build-options)
fail=0
for fp in libtraceevent:libtraceevent-dev libelf:libelf-dev dwarf:libdw-dev \
	  dwarf_getlocations:libdw-dev libunwind:libunwind-dev libslang:libslang2-dev; do
	f=${fp%%:*}
	echo "$opts" | grep -Eq "^ +$f: \[ on +\]" && continue
	echo "build-perf: perf was built without $f: install ${fp#*:}," \
	     "then rm -rf $BUILD_DIR/perf and rebuild" >&2
	fail=1
done
[ $fail = 0 ] || exit 1
echo "build-perf: $BUILD_DIR/perf/perf"

#!/bin/bash
# make series-check (long, not part of make check): build each series of
# 'make series' on its own, as a maintainer would take it, and run perf's
# own tests on it against the stock tree.
#
# For the stock tree and each series (on the series it needs), in
# $BUILD_DIR/series-check/NAME/: a hard-link copy of the pristine tree with
# the series' patch files (as make series wrote them) applied by 'patch';
# then perf is built if the series touches tools/, and the kernel objects
# of the files it touches otherwise (in a copy of the guest kernel's
# configuration, with the options the series adds enabled), and
# 'perf test' runs on each perf that was built.  The summary says, per
# series, the tests that fail, and which of them fail on stock too; it is
# also written to $BUILD_DIR/series-check/summary.txt.
#
# env: BUILD_DIR, DPROF_CACHE, LINUX_SRC (see prepare-tree.sh)
#      SERIES_CHECK_TESTS   'perf test' arguments (default: all tests)
#      SERIES_CHECK_TEST=0  build only, run no test
#      SERIES_CHECK_ONLY    the series to check, by number ("1 2"); the stock
#                           perf and its results of the last run are kept
#      KERNEL_CONFIG        the kernel configuration for kernel series
#                           (default $BUILD_DIR/kernel/.config, the guest
#                           kernel's of make kernel)
#      JOBS                 make -j (default: nproc)
set -eu

# shellcheck source=lib/env.sh
. "$(dirname "$0")/lib/env.sh"
# shellcheck source=lib/series.sh
. "$(dirname "$0")/lib/series.sh"
W=$BUILD_DIR/series-check
jobs=${JOBS:-$(nproc)}

die() { echo "series-check: $*" >&2; exit 1; }
say() { echo "series-check: $*"; }

src=$(series_pristine) || die "$src"

mkdir -p "$W"
say "writing the series into $W/series"
SERIES_CHECKPATCH=0 LINUX_SRC=$src "$REPO/scripts/make-series.sh" "$W/series" >"$W/make-series.log" 2>&1 ||
	{ cat "$W/make-series.log" >&2; die "make-series.sh failed"; }

patches_of() {	# the patch files of series number $1
	ls "$W"/series/"$1"-*/v*.patch | grep -v -- '-0000-cover-letter\.patch$'
}

# tree NAME PATCHES...: $W/NAME/linux, the pristine tree with the patches
tree() {
	local d=$W/$1 p
	shift
	rm -rf "$d/linux" "$d/linux.tmp"
	mkdir -p "$d"
	cp -al "$src" "$d/linux.tmp"
	# git apply (binary diffs too) writes a new file: the hard links to the
	# pristine tree break, as checked below
	for p in "$@"; do
		(cd "$d/linux.tmp" && GIT_CEILING_DIRECTORIES=$d git apply -p1 --whitespace=nowarn "$p") \
			>"$d/patch.log" 2>&1 ||
			{ cat "$d/patch.log" >&2; die "${p#"$W"/series/} does not apply"; }
	done
	for f in $(sed -n 's|^+++ b/||p' "$@" /dev/null | sed 's/\t.*//' | sort -u); do
		[ ! -e "$src/$f" ] || [ "$(stat -c %i "$src/$f")" != "$(stat -c %i "$d/linux.tmp/$f")" ] ||
			die "applying the series wrote $f through the hard link into $src"
	done
	mv -T "$d/linux.tmp" "$d/linux"
}

# build_perf NAME: $W/NAME/perf/perf
build_perf() {
	local d=$W/$1 cc=gcc
	command -v ccache >/dev/null && cc="$REPO/scripts/ccache-cc"
	rm -rf "$d/perf"
	mkdir -p "$d/perf"
	CCACHE_DIR=$DPROF_CACHE/ccache CCACHE_BASEDIR=$d CCACHE_NOHASHDIR=1 \
		make -C "$d/linux/tools/perf" O="$d/perf" -j"$jobs" CC="$cc" \
		BUILD_BPF_SKEL=0 >"$d/perf.log" 2>&1 || {
		grep -B4 -A3 -m5 "error:" "$d/perf.log" >&2 || tail -20 "$d/perf.log" >&2
		return 1
	}
}

# build_kernel NAME FILES...: the objects of the .c files among FILES, in
# $W/NAME/kernel, configured from KERNEL_CONFIG with what the series adds
build_kernel() {
	local d=$W/$1 n=${1%%-*} cfg objs f cc=gcc sym
	shift
	cfg=${KERNEL_CONFIG:-$BUILD_DIR/kernel/.config}
	[ -f "$cfg" ] || { echo "no kernel configuration $cfg (set KERNEL_CONFIG)" >&2; return 1; }
	objs=
	for f in "$@"; do
		case $f in *.c) objs="$objs ${f%.c}.o" ;; esac
	done
	# no .c file: make with no target would build the whole kernel
	[ -n "$objs" ] || { echo "no kernel source file among: $*" >&2; return 1; }
	command -v ccache >/dev/null && cc="ccache gcc"
	rm -rf "$d/kernel"
	mkdir -p "$d/kernel"
	cp "$cfg" "$d/kernel/.config"
	# new options the series adds to a Kconfig file: on
	for sym in $(sed -n 's/^+config \([A-Z0-9_]*\)$/\1/p' $(patches_of "$n")); do
		"$d/linux/scripts/config" --file "$d/kernel/.config" --enable "$sym"
	done
	# shellcheck disable=SC2086
	CCACHE_DIR=$DPROF_CACHE/ccache-kernel CCACHE_BASEDIR=$d CCACHE_NOHASHDIR=1 \
		make -C "$d/linux" O="$d/kernel" CC="$cc" HOSTCC=gcc olddefconfig >"$d/kernel.log" 2>&1 &&
	CCACHE_DIR=$DPROF_CACHE/ccache-kernel CCACHE_BASEDIR=$d CCACHE_NOHASHDIR=1 \
		make -C "$d/linux" O="$d/kernel" CC="$cc" HOSTCC=gcc -j"$jobs" $objs >>"$d/kernel.log" 2>&1 || {
		grep -B4 -A3 -m5 -E "error:|Error [0-9]" "$d/kernel.log" >&2 || tail -20 "$d/kernel.log" >&2
		return 1
	}
	echo "$objs"
}

# run_tests NAME: the failed tests of $W/NAME/perf/perf, one a line, in
# $W/NAME/failed; the counts on stdout
run_tests() {
	local d=$W/$1 tmp
	tmp=$(mktemp -d)
	# perf test takes ./tests/shell first: the tree's (see check.sh);
	# -v: a test that fails once and passes on the rerun says why in the log
	ln -s "$d/perf/source/tests" "$tmp/tests"
	# shellcheck disable=SC2086
	(cd "$tmp" && PATH=$d/perf:$PATH perf test -v ${SERIES_CHECK_TESTS:-} >"$d/test.log" 2>&1) ||
		true
	rm "$tmp/tests"
	rmdir "$tmp"
	sed 's/\x1b\[[0-9;]*m//g' "$d/test.log" |
		sed -nE 's/^ *([0-9]+(\.[0-9]+)?: .*[^ ]) *: (Ok|Skip|FAILED!)( \(.*\))?$/\3 \1/p' > "$d/results"
	grep '^FAILED! ' "$d/results" | sed 's/^FAILED! //' > "$d/failed" || true
	echo "$(grep -c '^Ok ' "$d/results" || true) passed," \
	     "$(grep -c '^Skip ' "$d/results" || true) skipped," \
	     "$(wc -l < "$d/failed") failed"
}

summary=$W/summary.txt
[ ! -f "$summary" ] || mv "$summary" "$summary.old"
: > "$summary"
report() { echo "$*" | tee -a "$summary"; }
testing() { [ "${SERIES_CHECK_TEST:-1}" != 0 ]; }

if [ -n "${SERIES_CHECK_ONLY:-}" ] && [ -x "$W/stock/perf/perf" ] && [ -f "$W/stock/failed" ]; then
	say "stock: the perf and the test results of the last run"
	sed -n '/^stock /,/^[^ ]/p' "$summary.old" 2>/dev/null | sed '$d' | tee -a "$summary"
else
	say "stock: building perf"
	tree stock
	build_perf stock || die "stock perf does not build"
	if testing; then
		say "stock: perf test ${SERIES_CHECK_TESTS:-} (a few minutes)"
		report "stock $(basename "$src"): perf test: $(run_tests stock)"
		sed 's/^/    fails: /' "$W/stock/failed" | tee -a "$summary"
	fi
fi

bad=0
for l in $(series_lists); do
	name=$(series_name "$l")
	n=${name%%-*}
	[ -z "${SERIES_CHECK_ONLY:-}" ] || case " $SERIES_CHECK_ONLY " in *" $n "*) ;; *) continue ;; esac
	needs=$(series_field "$l" needs)
	plist=$(for x in $needs $n; do patches_of "$x"; done)
	# shellcheck disable=SC2086
	tree "$name" $plist
	# shellcheck disable=SC2086
	files=$(sed -n 's|^+++ b/||p' $(patches_of "$n") | sed 's/\t.*//' | sort -u)
	ptools=$(grep -c '^tools/' <<<"$files" || true)
	# kernel sources: not tools/, not MAINTAINERS or Documentation/ (series
	# 5 adds a MAINTAINERS entry: no kernel object to build for it)
	pkern=$(grep -v '^tools/' <<<"$files" | grep -cv '^MAINTAINERS$\|^Documentation/' || true)
	line="$name: $(patches_of "$n" | wc -l) patches${needs:+ on series $needs} apply"
	if [ "$pkern" -gt 0 ]; then
		say "$name: building the kernel objects it touches"
		# shellcheck disable=SC2046
		if objs=$(build_kernel "$name" $(grep -v '^tools/\|^MAINTAINERS$\|^Documentation/' \
						<<<"$files")); then
			line="$line; kernel objects build:$objs"
		else
			line="$line; kernel objects DO NOT BUILD (see $W/$name/kernel.log)"
			bad=1
		fi
	fi
	if [ "$ptools" -gt 0 ]; then
		say "$name: building perf"
		if build_perf "$name"; then
			line="$line; perf builds"
			if testing; then
				say "$name: perf test ${SERIES_CHECK_TESTS:-} (a few minutes)"
				line="$line; perf test: $(run_tests "$name")"
			fi
		else
			line="$line; perf DOES NOT BUILD (see $W/$name/perf.log)"
			bad=1
		fi
	fi
	report "$line"
	if [ "$ptools" -gt 0 ] && testing && [ -f "$W/$name/failed" ]; then
		while IFS= read -r t; do
			desc=${t#*: }
			if grep -qF -- ": $desc" "$W/stock/failed" 2>/dev/null; then
				report "    fails: $t (fails on stock too)"
			elif (cd "$W" && PATH=$W/$name/perf:$PATH perf test "$desc" 2>&1 |
			      grep -q ': Ok'); then
				report "    fails: $t (passes on stock, and on a rerun: flaky)"
			else
				report "    FAILS: $t (passes on stock: a regression)"
				bad=1
			fi
		done < "$W/$name/failed"
	fi
done
say "summary in $summary"
exit $bad

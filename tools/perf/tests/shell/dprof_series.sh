#!/bin/bash
# perf dprof: the patch series applies to a pristine tree
# SPDX-License-Identifier: GPL-2.0
#
# Runs scripts/make-series.sh of the perf dprof repository into a temporary
# directory, applies every patch of the series with 'git am' to a scratch
# repository holding the pristine files they touch, and checks that the
# result is the build overlay: every file the series touches is the
# overlay's, each of our files is the repository's, and perf's copies of
# uapi headers (tools/include/uapi/) are the kernel's.
#
# env: DPROF_REPO (or DPROF_RUN_IN_VM=<repo>/scripts/run-in-vm.sh) the
#      repository; BUILD_DIR its build directory (overlay in BUILD_DIR/linux).

set -eu

skip() { echo "dprof_series: skip: $*"; exit 2; }
fail() { echo "dprof_series: FAIL: $*" >&2; exit 1; }

repo=${DPROF_REPO:-}
if [ -z "$repo" ] && [ -n "${DPROF_RUN_IN_VM:-}" ]; then
	repo=$(dirname "$(dirname "$DPROF_RUN_IN_VM")")
fi
if [ -z "$repo" ]; then	# this script is a symlink into the repository
	self=$(readlink -f "$0")
	repo=${self%/tools/perf/tests/shell/dprof_series.sh}
fi
[ -x "$repo/scripts/make-series.sh" ] ||
	skip "no perf dprof repository (set DPROF_REPO)"
command -v git >/dev/null || skip "git is not installed"

build=${BUILD_DIR:-$repo/build}
overlay=$build/linux
src=$(cat "$build/.linux.src" 2>/dev/null) ||
	skip "no overlay in $build (run make, or set BUILD_DIR)"
[ -f "$src/tools/perf/Makefile.perf" ] || skip "pristine tree $src is gone"
[ -d "$overlay/tools/perf" ] || skip "no overlay in $overlay"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dprof_series.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# 1. The series.
LINUX_SRC=$src BUILD_DIR=$build "$repo/scripts/make-series.sh" "$tmp/series" ||
	fail "make-series.sh failed"
[ -f "$tmp/series/0000-cover-letter.patch" ] || fail "no cover letter"
! grep -q '\*\*\* .* HERE \*\*\*' "$tmp/series/0000-cover-letter.patch" ||
	fail "cover letter template not filled in"
patches=$(ls "$tmp"/series/0*.patch | grep -v '/0000-cover-letter\.patch$')
[ -n "$patches" ] || fail "empty series"
for p in $patches; do
	grep -q '^Signed-off-by: ' "$p" || fail "no Signed-off-by in ${p##*/}"
	if sed -n '/^Subject:/,/^$/p' "$p" | grep -q '\*\*\*'; then
		fail "no subject in ${p##*/}"
	fi
done

# 2. A scratch repository with the pristine files the series modifies (a
# file it creates and then modifies is not there: git am says so if it is).
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_COMMITTER_NAME=dprof_series GIT_COMMITTER_EMAIL=dprof_series@localhost
mkdir "$tmp/tree"
# shellcheck disable=SC2086
for f in $(sed -n 's|^--- a/||p' $patches | sed 's/\t.*//' | sort -u); do
	[ ! -f "$src/$f" ] || (cd "$src" && cp --parents "$f" "$tmp/tree/")
done
cd "$tmp/tree"
git init -q .
git add -A
git -c user.name=dprof_series -c user.email=dprof_series@localhost \
	commit -q -m pristine

# 3. Every patch applies, in order.
n=0
for p in $patches; do
	git am -q "$p" >"$tmp/am.log" 2>&1 || {
		cat "$tmp/am.log" >&2
		fail "${p##*/} does not apply with git am"
	}
	n=$((n + 1))
done
echo "dprof_series: $n patches applied to $(basename "$src")"
[ -z "$(git status --porcelain)" ] || fail "git am left changes: $(git status --porcelain)"

# 4. The result is the overlay, and our files are the repository's.
bad=0
while IFS= read -r f; do
	cmp -s "$f" "$overlay/$f" || { echo "dprof_series: $f differs from the overlay's" >&2; bad=1; }
done < <(git ls-files)
while IFS= read -r f; do
	cmp -s "$f" "$repo/$f" || { echo "dprof_series: $f differs from the repository's" >&2; bad=1; }
done < <(cd "$repo" && find tools -type f ! -name '.*' ! -name '*~' ! -name '*.o')
# perf's copies of uapi headers are the kernel's.
while IFS= read -r f; do
	[ ! -f "${f#tools/}" ] || cmp -s "$f" "${f#tools/}" ||
		{ echo "dprof_series: $f differs from ${f#tools/}" >&2; bad=1; }
done < <(git ls-files 'tools/include/uapi/*')
[ $bad = 0 ] || fail "the series does not reproduce the overlay"
echo "dprof_series: $(git ls-files | wc -l) files equal the overlay's"
exit 0

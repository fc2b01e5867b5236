#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: the patch series apply to a pristine tree
#
# Runs scripts/make-series.sh of the perf dprof repository into a temporary
# directory and checks that:
#  - the series definitions are whole: a patch of patches/perf/ or
#    kernel-patches/ that no scripts/series/*.list names is reported;
#  - every series applies with 'git am' on its own to the pristine files
#    (after the series it says it needs), with recipients and base-commit;
#  - all of them in order give the build overlay: every file they touch is
#    the overlay's, each of our files is the repository's, and perf's copies
#    of uapi headers (tools/include/uapi/) are the kernel's;
#  - checkpatch.pl --strict finds no error and no warning in any patch.
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
	repo=${self%/tools/perf/tests/shell/*}
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

# 1. A patch in no series is named.  A copy of the definitions, and of the
# patch lists with one patch more.
mkdir -p "$tmp/fake/scripts" "$tmp/fake/patches/perf" "$tmp/fake/kernel-patches"
cp -r "$repo/scripts/series" "$tmp/fake/scripts/"
for p in "$repo"/patches/perf/*.patch "$repo"/kernel-patches/*.patch; do
	ln -s "$p" "$tmp/fake/${p#"$repo"/}"
done
: > "$tmp/fake/patches/perf/9999-perf-test-Not-in-a-series.patch"
problems=$(REPO=$tmp/fake bash -c '. "$1/scripts/lib/series.sh"; series_problems' _ "$repo")
grep -q '9999-perf-test-Not-in-a-series.patch is in no series' <<<"$problems" ||
	fail "a patch in no series is not reported: $problems"
problems=$(REPO=$repo bash -c '. "$1/scripts/lib/series.sh"; series_problems' _ "$repo")
[ -z "$problems" ] || fail "the series definitions are not whole: $problems"

# 2. The series.
checkpatch=1
if ! command -v perl >/dev/null || [ ! -f "$src/scripts/checkpatch.pl" ]; then
	echo "dprof_series: no perl or no $src/scripts/checkpatch.pl: checkpatch not run"
	checkpatch=0
fi
SERIES_CHECKPATCH=$checkpatch LINUX_SRC=$src BUILD_DIR=$build \
	"$repo/scripts/make-series.sh" "$tmp/series" >"$tmp/make.log" 2>&1 || {
	cat "$tmp/make.log" >&2
	fail "make-series.sh failed"
}
dirs=$(ls -d "$tmp"/series/[1-9]*/ | sort -V)
[ "$(echo "$dirs" | wc -l)" -ge 5 ] || fail "fewer than five series: $dirs"
for d in $dirs; do
	name=$(basename "$d")
	cover=$(ls "$d"/v*-0000-cover-letter.patch 2>/dev/null) || fail "$name: no cover letter"
	! grep -q '\*\*\* .* HERE \*\*\*' "$cover" ||
		fail "$name: cover letter template not filled in"
	grep -q '^base-commit: ' "$cover" || fail "$name: no base-commit: trailer"
	grep -q "^make-series: $name: [0-9]* patches" "$tmp/make.log" ||
		fail "make-series.sh printed no patch count for $name"
	[ $checkpatch = 0 ] ||
		grep -q "^make-series: $name: .*checkpatch --strict: 0 errors, 0 warnings," \
			"$tmp/make.log" ||
		fail "checkpatch: $(grep "^make-series: $name:" "$tmp/make.log")"
	for p in $(ls "$d"/v*.patch | grep -v -- '-0000-cover-letter\.patch$'); do
		grep -q '^Signed-off-by: ' "$p" || fail "no Signed-off-by in $name/${p##*/}"
		grep -q '^To: ' "$p" || fail "no To: in $name/${p##*/}"
		if sed -n '/^Subject:/,/^$/p' "$p" | grep -q '\*\*\*'; then
			fail "no subject in $name/${p##*/}"
		fi
	done
done

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_COMMITTER_NAME=dprof_series GIT_COMMITTER_EMAIL=dprof_series@localhost
patches_of() {	# the patches of series directory $1
	ls "$1"/v*.patch | grep -v -- '-0000-cover-letter\.patch$'
}
# pristine DIR PATCHES...: a git repository with the pristine files the
# patches modify (a file one creates and another modifies is not there:
# git am says so if it is)
pristine() {
	local dir=$1 f
	shift
	mkdir "$dir"
	for f in $(sed -n 's|^--- a/||p' "$@" | sed 's/\t.*//' | sort -u); do
		[ ! -f "$src/$f" ] || (cd "$src" && cp --parents "$f" "$dir/")
	done
	git -C "$dir" init -q .
	git -C "$dir" add -A
	git -C "$dir" -c user.name=dprof_series -c user.email=dprof_series@localhost \
		commit -q -m pristine
}
apply() {	# apply DIR SERIES: git am the series' patches in DIR
	local p
	for p in $(patches_of "$2"); do
		git -C "$1" am -q "$p" >"$tmp/am.log" 2>&1 || {
			cat "$tmp/am.log" >&2
			fail "$(basename "$2")/${p##*/} does not apply with git am${3:+ $3}"
		}
	done
}

# 3. Every series applies on its own, after the series its cover letter
# names as prerequisites (make-series.sh's 'needs').
for d in $dirs; do
	name=$(basename "$d")
	needs=$(sed -n "s/^make-series: $name: .* (on series \([0-9 ]*\)).*/\1/p" "$tmp/make.log")
	nd=
	for n in $needs; do
		nd="$nd $(ls -d "$tmp/series/$n"-*/)"
	done
	# shellcheck disable=SC2046,SC2086
	pristine "$tmp/alone-$name" $(for x in $nd $d; do patches_of "$x"; done)
	for x in $nd; do
		apply "$tmp/alone-$name" "$x" "(needed by $name)"
	done
	apply "$tmp/alone-$name" "$d" "${needs:+after series $needs}"
	echo "dprof_series: $name applies to $(basename "$src")${needs:+ after series $needs}"
done

# 4. All of them in order: the overlay.
# shellcheck disable=SC2046
pristine "$tmp/tree" $(for d in $dirs; do patches_of "$d"; done)
n=0
for d in $dirs; do
	apply "$tmp/tree" "$d" "after the series before it"
	n=$((n + $(patches_of "$d" | wc -l)))
done
cd "$tmp/tree"
echo "dprof_series: $n patches applied to $(basename "$src")"
[ -z "$(git status --porcelain)" ] || fail "git am left changes: $(git status --porcelain)"

# The result is the overlay, and our files are the repository's; but for
# MAINTAINERS, which the overlay leaves alone: the series adds an entry.
bad=0
while IFS= read -r f; do
	[ "$f" != MAINTAINERS ] || continue
	cmp -s "$f" "$overlay/$f" ||
		{ echo "dprof_series: $f differs from the overlay's" >&2; bad=1; }
done < <(git ls-files)
maint=$(diff "$src/MAINTAINERS" MAINTAINERS || true)
if grep -q '^<' <<<"$maint" || ! grep -qx '> PERFORMANCE EVENTS TOOLING DPROF' <<<"$maint"; then
	echo "dprof_series: MAINTAINERS is not the pristine one plus the perf dprof entry" >&2
	bad=1
fi
while IFS= read -r f; do
	cmp -s "$f" "$repo/$f" ||
		{ echo "dprof_series: $f differs from the repository's" >&2; bad=1; }
done < <(cd "$repo" && find tools -type f ! -name '.*' ! -name '*~' ! -name '*.o')
# perf's copies of uapi headers are the kernel's.
while IFS= read -r f; do
	[ ! -f "${f#tools/}" ] || cmp -s "$f" "${f#tools/}" ||
		{ echo "dprof_series: $f differs from ${f#tools/}" >&2; bad=1; }
done < <(git ls-files 'tools/include/uapi/*')
[ $bad = 0 ] || fail "the series does not reproduce the overlay"
echo "dprof_series: $(git ls-files | wc -l) files equal the overlay's"
exit 0

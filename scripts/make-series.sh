#!/bin/bash
# make series: write the upstream form of this repository, a 'git format-patch'
# series against the pristine 6.12 tree, into OUTDIR (default
# $BUILD_DIR/series): a cover letter, kernel-patches/*.patch as they are,
# the upstream perf fixes in patches/perf/ as they are, then our tools/ files
# in a few commits (scripts/series/NN-*.txt), each with the hunks of the
# patches/perf/ patches that hook its files into perf.
#
# usage: make-series.sh [OUTDIR]
# env:   BUILD_DIR, DPROF_CACHE, LINUX_SRC (see prepare-tree.sh)
#        SERIES_PREFIX  subject prefix (default: RFC PATCH)
#        SERIES_KEEP=1  keep the scratch git repository (its path is printed)
#
# The files are those the overlay links in (prepare-tree.sh: every file under
# tools/, tracked or not), so the series builds what 'make' builds.
set -eu
[ -z "${SERIES_TRACE:-}" ] || { PS4='+ $(date +%s.%N) '; set -x; }

# shellcheck source=lib/env.sh
. "$(dirname "$0")/lib/env.sh"
OUT=${1:-$BUILD_DIR/series}
MSGS=$REPO/scripts/series
NAME="perf dprof developers"
EMAIL="dprof@localhost"

die() { echo "make-series: $*" >&2; exit 1; }

# The pristine tree, as prepare-tree.sh finds it (it unpacks it if needed).
if [ -n "${LINUX_SRC:-}" ]; then
	src=$(cd "$LINUX_SRC" 2>/dev/null && pwd) || die "LINUX_SRC=$LINUX_SRC is not a directory"
else
	src=$DPROF_CACHE/linux-source-6.12
	[ -d "$src" ] || "$REPO/scripts/prepare-tree.sh" >&2 ||
		die "no pristine tree: set LINUX_SRC or run 'make tree'"
fi
[ -f "$src/tools/perf/Makefile.perf" ] || die "$src is not a kernel tree"
command -v git >/dev/null || die "git is not installed (apt-get install git)"

# Group of a file: the scripts/series/ message whose commit adds it.  The
# first match wins; files under tools/perf/util/dprof/ not named here go with
# the last library commit, so that everything they use is already there.
group_of() {
	case $1 in
	tools/include/uapi/*)
		echo 05-uapi ;;
	tools/perf/util/Build|\
	tools/perf/util/dprof/addrset.*|tools/perf/util/dprof/profile.*|\
	tools/perf/util/dprof/resolve.*|tools/perf/util/dprof/sink.h|\
	tools/perf/util/dprof/ea.*|tools/perf/util/dprof/hashfn.h|\
	tools/perf/util/dprof/typecache.*)
		echo 10-profile ;;
	tools/perf/arch/x86/util/Build|tools/perf/arch/x86/util/dprof-ea.*)
		echo 20-softsample ;;
	tools/perf/util/dprof/cachenames.*|tools/perf/util/dprof/dwtypes.*|\
	tools/perf/util/dprof/btftypes.*|tools/perf/util/dprof/types.*)
		echo 30-types ;;
	tools/perf/util/dprof/histories.*|tools/perf/util/dprof/pathtrace.*|\
	tools/perf/util/dprof/flow.*)
		echo 45-flow ;;
	tools/perf/util/dprof/replay.*|tools/perf/util/dprof/report.*|\
	tools/perf/util/dprof/typeinfo.*|tools/perf/util/dprof/watch*|\
	tools/perf/util/dprof/record.*|tools/perf/util/dprof/diff.*|\
	tools/perf/util/dprof/userfiles.*|tools/perf/util/dprof/symload.*|\
	tools/perf/util/dprof/delivery.*)
		echo 48-report ;;
	tools/perf/util/dprof/*)
		echo 40-classify ;;
	tools/perf/ui/*)
		echo 50-ui ;;
	tools/perf/builtin-dprof.c|tools/perf/Build|tools/perf/builtin.h|\
	tools/perf/command-list.txt|tools/perf/perf.c)
		echo 60-command ;;
	tools/perf/tests/*)
		echo 70-tests ;;
	tools/perf/Documentation/*)
		echo 80-doc ;;
	*)	return 1 ;;
	esac
}

GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_CONFIG_NOSYSTEM GIT_CONFIG_GLOBAL
export GIT_AUTHOR_NAME=$NAME GIT_AUTHOR_EMAIL=$EMAIL
export GIT_COMMITTER_NAME=$NAME GIT_COMMITTER_EMAIL=$EMAIL
# Reproducible output: our commits carry the date of the repository's HEAD.
date=$(git -C "$REPO" log -1 --format=%cI 2>/dev/null || echo 2024-11-17T00:00:00+00:00)
export GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date

kpatches=$(ls "$REPO"/kernel-patches/*.patch 2>/dev/null || true)
# A perf patch that adds a line naming dprof hooks our files into perf and
# goes into the commit that adds them; any other is an upstream fix, sent as
# it is (before our commits, so that hooks may build on fixes).
fixes= hooks=
for p in "$REPO"/patches/perf/*.patch; do
	[ -f "$p" ] || continue
	if grep -q '^+.*dprof' "$p"; then hooks="$hooks $p"; else fixes="$fixes $p"; fi
done
rel() { echo "${1#"$REPO"/}"; }

work=$(mktemp -d "${TMPDIR:-/tmp}/dprof-series.XXXXXX")
if [ "${SERIES_KEEP:-0}" = 1 ]; then
	echo "make-series: scratch repository $work" >&2
else
	trap 'rm -rf "$work"' EXIT
fi

# 1. A scratch repository holding the pristine files the patches touch.
cd "$src"
# shellcheck disable=SC2086
for f in $(sed -n 's|^--- a/||p' $kpatches $fixes $hooks /dev/null | sed 's/\t.*//' | sort -u); do
	[ ! -f "$f" ] || cp --parents "$f" "$work/"	# else made by a patch
done
cd "$work"
git init -q -b base .
git config core.autocrlf false
git add -A
git commit -q -m "Pristine files from $(basename "$src") ($(make -s -C "$src" kernelversion 2>/dev/null || echo unknown))"
base=$(git rev-parse HEAD)

# 2. The kernel series and the perf fixes, as they are (-s: signed off by the
# sender when the last Signed-off-by is not already ours).
for p in $kpatches $fixes; do
	git am -q -s --keep-cr "$p" >/dev/null 2>&1 || {
		git am --abort >/dev/null 2>&1 || true
		die "$(rel "$p") does not apply with git am"
	}
done

# 3. Our files: hook patches into the work tree, our files copied in.
for p in $hooks; do
	git apply "$p" 2>/dev/null || die "$(rel "$p") does not apply after the kernel series and the fixes"
done
# shellcheck disable=SC2086
hooked=$(sed -n 's|^+++ b/||p' $hooks /dev/null | sed 's/\t.*//' | sort -u)
(cd "$REPO" && find tools -type f ! -name '.*' ! -name '*~' ! -name '*.o' -print0) |
	(cd "$REPO" && xargs -0r cp --parents -t "$work")
ours=$(cd "$REPO" && find tools -type f ! -name '.*' ! -name '*~' ! -name '*.o' | sort)

declare -A files
for f in $hooked $ours; do
	g=$(group_of "$f") || die "$f belongs to no commit: add it to group_of() in scripts/make-series.sh"
	[ -f "$MSGS/$g.txt" ] || die "no changelog $MSGS/$g.txt for $f"
	files[$g]="${files[$g]:-} $f"
done

# Our own Build files list objects of later commits too: until the last of
# them is in, stage only the lines whose object's source is already there.
builds=$(echo "$ours" | grep '/Build$' | tr '\n' ' ' || true)
stage_builds() {
	local b d kept
	for b in $builds; do
		d=${b%/Build}
		kept=$(git ls-files -- "$d" | awk -v dir="$d/" -v build="$b" '
			FNR == NR { have[$0] = 1; next }
			{
				line = $0
				sub(/^CFLAGS(_REMOVE)?_/, "", line)
				if (match(line, /[A-Za-z0-9_-]+\.o/)) {
					obj = substr(line, RSTART, RLENGTH - 2)
					if (!((dir obj ".c") in have))
						next
				}
				print
				n++
			}
			END { if (!n) exit 1 }' - "$b") || continue
		grep -q '\.o' <<<"$kept" || continue
		git update-index --add --cacheinfo \
			"100644,$(printf '%s\n' "$kept" | git hash-object -w --stdin),$b"
	done
}

for msg in "$MSGS"/[0-9]*.txt; do
	g=$(basename "$msg" .txt)
	[ -n "${files[$g]:-}" ] || continue
	add=()
	for f in ${files[$g]}; do
		case " $builds " in *" $f "*) ;; *) add+=("$f") ;; esac
	done
	[ ${#add[@]} = 0 ] || git add -- "${add[@]}"
	stage_builds
	git diff --cached --quiet && continue
	git commit -q -s -F "$msg" || die "cannot commit $g"
done
[ -z "$(git status --porcelain)" ] ||
	die "files left out of the series: $(git status --porcelain | tr '\n' ' ')"

# 4. The series.
mkdir -p "$OUT"
rm -f "$OUT"/*.patch
git format-patch -q --cover-letter --binary --subject-prefix="${SERIES_PREFIX:-RFC PATCH}" \
	-o "$OUT" "$base..HEAD" >/dev/null
cover=$OUT/0000-cover-letter.patch
{
	sed -n '1,/^Subject:/p' "$cover" | sed '$d'
	subj=$(sed -n 's/^Subject: \(\[[^]]*\]\) \*\*\* SUBJECT HERE \*\*\*$/\1/p' "$cover")
	echo "Subject: $subj $(head -1 "$MSGS/cover-letter.txt")"
	sed -n '/^Subject:/,/\*\*\* BLURB HERE \*\*\*/p' "$cover" | sed '1d;$d'
	tail -n +3 "$MSGS/cover-letter.txt"
	sed -n '/\*\*\* BLURB HERE \*\*\*/,$p' "$cover" | sed '1d'
} > "$cover.tmp"
mv "$cover.tmp" "$cover"
grep -q '\*\*\*' "$cover" && die "cover letter template not filled in: $cover"
echo "make-series: $(ls "$OUT"/*.patch | wc -l) patches in $OUT"

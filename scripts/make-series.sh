#!/bin/bash
# make series: write the upstream form of this repository, independent
# 'git format-patch' series against the pristine 6.12 tree, one directory
# each in OUTDIR (default $BUILD_DIR/series): OUTDIR/N-name/vV-NNNN-*.patch
# with a cover letter, To:/Cc: from the tree's scripts/get_maintainer.pl and
# the base-commit: trailer (and prerequisite-patch-id: for what it needs).
#
# The series are defined by scripts/series/N-name.list (format: see
# scripts/series/1-perf-fixes.list): the patches of patches/perf/ and
# kernel-patches/ as they are, in the listed order, and for the line 'tools'
# our tools/ files in a few commits (scripts/series/NN-*.txt), each with the
# hunks of the listed hook patches that hook its files into perf.  Every
# patch must be in a series: a patch in none is an error.
#
# Prints per series the patch count and checkpatch.pl --strict's figures
# (commit ids in changelogs are not checked: that needs a kernel git tree).
#
# usage: make-series.sh [OUTDIR]
# env:   BUILD_DIR, DPROF_CACHE, LINUX_SRC (see prepare-tree.sh)
#        SERIES_CHECKPATCH=0  do not run checkpatch.pl
#        SERIES_BASE_COMMIT   the upstream commit the pristine tree is, for
#                             the base-commit: trailer (default: the commit
#                             of the pristine files in the scratch repository)
#        SERIES_KEEP=1  keep the scratch git repository (its path is printed)
#
# The files are those the overlay links in (prepare-tree.sh: every file under
# tools/, tracked or not), so the series builds what 'make' builds.
set -eu
[ -z "${SERIES_TRACE:-}" ] || { PS4='+ $(date +%s.%N) '; set -x; }

# shellcheck source=lib/env.sh
. "$(dirname "$0")/lib/env.sh"
# shellcheck source=lib/series.sh
. "$(dirname "$0")/lib/series.sh"
OUT=${1:-$BUILD_DIR/series}
MSGS=$SERIES_DIR
NAME="perf dprof developers"
EMAIL="dprof@localhost"

die() { echo "make-series: $*" >&2; exit 1; }

problems=$(series_problems)
[ -z "$problems" ] || die "the series definitions (scripts/series/*.list) are not whole:
$problems"

src=$(series_pristine) || die "$src"
command -v git >/dev/null || die "git is not installed (apt-get install git)"

GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_CONFIG_NOSYSTEM GIT_CONFIG_GLOBAL
export GIT_AUTHOR_NAME=$NAME GIT_AUTHOR_EMAIL=$EMAIL
export GIT_COMMITTER_NAME=$NAME GIT_COMMITTER_EMAIL=$EMAIL
# Reproducible output: our commits carry the date of the repository's HEAD.
date=$(git -C "$REPO" log -1 --format=%cI 2>/dev/null || echo 2024-11-17T00:00:00+00:00)
export GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date

rel() { echo "${1#"$REPO"/}"; }
lists=$(series_lists)
[ -n "$lists" ] || die "no series defined (scripts/series/*.list)"

work=$(mktemp -d "${TMPDIR:-/tmp}/dprof-series.XXXXXX")
# checkpatch.pl runs outside of any git tree (it leaves a file in one)
ckdir=$(mktemp -d "${TMPDIR:-/tmp}/dprof-series-ck.XXXXXX")
if [ "${SERIES_KEEP:-0}" = 1 ]; then
	echo "make-series: scratch repository $work" >&2
	trap 'rm -rf "$ckdir"' EXIT
else
	trap 'rm -rf "$work" "$ckdir"' EXIT
fi

# 1. A scratch repository holding the pristine files the patches touch.
allpatches=$(cd "$REPO" && ls patches/perf/*.patch kernel-patches/*.patch 2>/dev/null || true)
cd "$src"
# shellcheck disable=SC2086
for f in $( (cd "$REPO" && sed -n 's|^--- a/||p' $allpatches /dev/null) | sed 's/\t.*//' | sort -u); do
	[ ! -f "$f" ] || cp --parents "$f" "$work/"	# else made by a patch
done
# the tools commits add a MAINTAINERS entry (scripts/series/*.maintainers)
[ ! -f MAINTAINERS ] || cp MAINTAINERS "$work/"
version=$(make -s -C "$src" kernelversion 2>/dev/null || echo unknown)
cd "$work"
git init -q -b base .
git config core.autocrlf false
git add -A
git commit -q -m "Pristine files from $(basename "$src") ($version)"
base=$(git rev-parse HEAD)

# git am a patch of the repository (-s: signed off by the sender when the
# last Signed-off-by is not already ours).
am() {
	git am -q -s --keep-cr "$REPO/$1" >/dev/null 2>&1 || {
		git am --abort >/dev/null 2>&1 || true
		die "$1 does not apply with git am ($2)"
	}
}

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
	tools/perf/util/dprof/typecache.*|tools/perf/util/dprof/estimate.*)
		echo 10-profile ;;
	tools/perf/arch/x86/util/Build|tools/perf/arch/x86/util/dprof-ea.*)
		echo 20-softsample ;;
	tools/perf/util/dprof/cachenames.*|tools/perf/util/dprof/dwtypes.*|\
	tools/perf/util/dprof/layouts.*|\
	tools/perf/util/dprof/btftypes.*|tools/perf/util/dprof/types.*)
		echo 30-types ;;
	tools/perf/util/dprof/histories.*|tools/perf/util/dprof/pathtrace.*|\
	tools/perf/util/dprof/flow.*)
		echo 45-flow ;;
	tools/perf/util/dprof/replay*|tools/perf/util/dprof/report.*|\
	tools/perf/util/dprof/typeinfo.*|tools/perf/util/dprof/watch*|\
	tools/perf/util/dprof/record.*|tools/perf/util/dprof/diff.*|\
	tools/perf/util/dprof/userfiles.*|tools/perf/util/dprof/symload.*|\
	tools/perf/util/dprof/symname.*|\
	tools/perf/util/dprof/delivery.*|tools/perf/util/dprof/heaplog*|\
	tools/perf/util/dprof/recorder.*|tools/perf/util/dprof/replay-heaplog.*|\
	tools/perf/util/dprof/keep.*|tools/perf/util/dprof/prune.*|\
	tools/perf/util/dprof/decoded.*|\
	tools/perf/dprof-preload/*|tools/perf/Makefile.perf)
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

# Our own Build files list objects of later commits too: until the last of
# them is in, stage only the lines whose object's source is already there.
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

# maint_entry SPEC GROUP: the MAINTAINERS entry of SPEC (a series'
# N-name.maintainers) with the F: lines of the commits up to GROUP, sorted
maint_entry() {
	grep -v '^#' "$1" | awk -v upto="$2" '
		/^F:/ { if ($3 <= upto) f[++n] = "F:\t" $2; next }
		{ print }
		END {
			for (i = 1; i <= n; i++)	# insertion sort: few lines
				for (j = i; j > 1 && f[j - 1] > f[j]; j--) {
					t = f[j]; f[j] = f[j - 1]; f[j - 1] = t
				}
			for (i = 1; i <= n; i++)
				print f[i]
		}'
}

# maint_update SPEC GROUP: write that entry into MAINTAINERS, in its place
# among the entries sorted by title, replacing the one of an earlier commit
maint_update() {
	local entry title
	entry=$(maint_entry "$1" "$2")
	title=$(head -1 <<<"$entry")
	awk -v title="$title" -v entry="$entry" '
		{ line[++n] = $0 }
		END {
			# an entry: its title after an empty line, then "X:\t" lines,
			# up to an empty line
			for (i = 1; i <= n; i++) {
				if (line[i] == title && line[i - 1] == "") {
					while (i <= n && line[i] != "")
						i++
					continue	# the old entry and its empty line
				}
				if (!done && line[i - 1] == "" && line[i + 1] ~ /^[A-Z]:\t/ &&
				    toupper(line[i]) > toupper(title)) {
					print entry
					print ""
					done = 1
				}
				print line[i]
			}
		}' MAINTAINERS > MAINTAINERS.tmp
	mv MAINTAINERS.tmp MAINTAINERS
	grep -qxF "$title" MAINTAINERS || die "no place for the entry $title in MAINTAINERS"
}

# maint_check SPEC GROUP FILES...: each file matches an F: line of the
# commits up to GROUP
maint_check() {
	local spec=$1 group=$2 f pat ok
	shift 2
	for f in "$@"; do
		ok=0
		for pat in $(maint_entry "$spec" "$group" | sed -n 's/^F:\t//p'); do
			case $pat in
			*/) [[ $f == "$pat"* ]] && ok=1 ;;
			*) # shellcheck disable=SC2053
			   [[ $f == $pat && ${f%/*} == "${pat%/*}" ]] && ok=1 ;;
			esac
			[ $ok = 0 ] || break
		done
		[ $ok = 1 ] || die "$f matches no F: line of $spec up to $group"
	done
}

# Our files in the commits of scripts/series/NN-*.txt, with the hook patches
# $* (applied to the work tree, not committed) in the commit of their files.
commit_tools() {
	local p f g msg add hooked ours
	declare -A files
	for p in "$@"; do
		git apply "$REPO/$p" 2>/dev/null || die "$p does not apply before the tools commits"
	done
	hooked=$( (cd "$REPO" && sed -n 's|^+++ b/||p' "$@" /dev/null) | sed 's/\t.*//' | sort -u)
	(cd "$REPO" && find tools -type f ! -name '.*' ! -name '*~' ! -name '*.o' -print0) |
		(cd "$REPO" && xargs -0r cp --parents -t "$work")
	ours=$(cd "$REPO" && find tools -type f ! -name '.*' ! -name '*~' ! -name '*.o' | sort)
	for f in $hooked $ours; do
		g=$(group_of "$f") || die "$f belongs to no commit: add it to group_of() in scripts/make-series.sh"
		[ -f "$MSGS/$g.txt" ] || die "no changelog $MSGS/$g.txt for $f"
		files[$g]="${files[$g]:-} $f"
	done
	builds=$(echo "$ours" | grep '/Build$' | tr '\n' ' ' || true)
	for msg in "$MSGS"/[0-9][0-9]-*.txt; do
		g=$(basename "$msg" .txt)
		[ -n "${files[$g]:-}" ] || continue
		add=()
		for f in ${files[$g]}; do
			case " $builds " in *" $f "*) ;; *) add+=("$f") ;; esac
		done
		[ ${#add[@]} = 0 ] || git add -- "${add[@]}"
		if [ -f "$maint_spec" ] && grep -q "^F:.*[[:space:]]$g\$" "$maint_spec"; then
			# shellcheck disable=SC2046
			maint_check "$maint_spec" "$g" $(for f in ${files[$g]}; do
				grep -qxF "$f" <<<"$ours" && echo "$f"; done)
			maint_update "$maint_spec" "$g"
			git add MAINTAINERS
		fi
		stage_builds
		git diff --cached --quiet && continue
		git commit -q -s -F "$msg" || die "cannot commit $g"
	done
	[ -z "$(git status --porcelain)" ] ||
		die "files left out of the series: $(git status --porcelain | tr '\n' ' ')"
}

# Recipients of the patches "$@" from the pristine tree's get_maintainer.pl:
# "To: x" for maintainers, "Cc: x" for reviewers and lists, one a line.
recipients() {
	(cd "$src" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-tree --no-keywords --rolestats "$@" 2>/dev/null) |
	awk '{
		i = index($0, " (")
		who = i ? substr($0, 1, i - 1) : $0
		role = i ? substr($0, i + 2) : ""
		if (role ~ /^(maintainer|supporter|odd fixer)/) to[++nt] = who
		else cc[++nc] = who
	}
	END {	# no maintainer: to the lists
		for (i = 1; i <= nt; i++) print "To: " to[i]
		for (i = 1; i <= nc; i++) print (nt ? "Cc: " : "To: ") cc[i]
	}' | awk '!seen[$0]++'
}

# add_headers PATCH RECIPIENTS: put the To:/Cc: lines before Subject:
add_headers() {
	awk -v r="$2" 'done == 0 && /^Subject:/ { print r; done = 1 } { print }' "$1" > "$1.tmp"
	mv "$1.tmp" "$1"
}

mkdir -p "$OUT"
summary=$OUT/summary.txt
: > "$summary"
for l in $lists; do
	name=$(series_name "$l")
	prefix=$(series_field "$l" prefix)
	ver=$(series_field "$l" version)
	git checkout -q --detach "$base"
	# 2. What the series needs, then its patches.
	for need in $(series_field "$l" needs); do
		nl=$(series_list_of "$need")
		for p in $(series_entries "$nl"); do
			[ "$p" != tools ] || die "$name needs $(series_name "$nl"), whose tools commits no series can need"
			am "$p" "on the series $name needs"
		done
	done
	start=$(git rev-parse HEAD)
	hooks= tools=0
	for p in $(series_entries "$l"); do
		if [ "$p" = tools ]; then
			tools=1
		elif [ $tools = 1 ]; then
			hooks="$hooks $p"
		else
			am "$p" "in $name"
		fi
	done
	maint_spec=${l%.list}.maintainers
	# shellcheck disable=SC2086
	[ $tools = 0 ] || commit_tools $hooks

	# 3. The series.
	dir=$OUT/$name
	rm -rf "$dir"
	mkdir -p "$dir"
	git format-patch -q -v"$ver" --cover-letter --binary --base="$base" \
		--subject-prefix="$prefix" -o "$dir" "$start..HEAD" >/dev/null
	cover=$(ls "$dir"/*-0000-cover-letter.patch)
	coverfile=${l%.list}.cover
	{
		sed -n '1,/^Subject:/p' "$cover" | sed '$d'
		subj=$(sed -n 's/^Subject: \(\[[^]]*\]\) \*\*\* SUBJECT HERE \*\*\*$/\1/p' "$cover")
		echo "Subject: $subj $(head -1 "$coverfile")"
		sed -n '/^Subject:/,/\*\*\* BLURB HERE \*\*\*/p' "$cover" | sed '1d;$d'
		tail -n +3 "$coverfile"
		echo
		echo "Based on Linux $version."
		sed -n '/\*\*\* BLURB HERE \*\*\*/,$p' "$cover" | sed '1d'
	} > "$cover.tmp"
	mv "$cover.tmp" "$cover"
	grep -q '\*\*\*' "$cover" && die "cover letter template not filled in: $cover"
	[ -z "${SERIES_BASE_COMMIT:-}" ] ||
		sed -i "s/^base-commit: $base\$/base-commit: $SERIES_BASE_COMMIT/" "$dir"/*.patch
	patches=$(ls "$dir"/*.patch | grep -v -- '-0000-cover-letter\.patch$' || true)
	[ -n "$patches" ] || die "$name is empty"
	for p in $patches; do
		add_headers "$p" "$(recipients "$p")"
	done
	# shellcheck disable=SC2086
	add_headers "$cover" "$(recipients $patches)"

	# 4. checkpatch's figures.
	n=$(echo "$patches" | wc -l)
	figures="checkpatch not run"
	if [ "${SERIES_CHECKPATCH:-1}" != 0 ]; then
		e=0 w=0 c=0 bad=
		for p in $patches; do
			t=$(cd "$ckdir" && perl "$src/scripts/checkpatch.pl" --strict --no-tree \
				--ignore UNKNOWN_COMMIT_ID "$p" 2>/dev/null |
				sed -n 's/^total: \([0-9]*\) errors, \([0-9]*\) warnings, \([0-9]*\) checks.*/\1 \2 \3/p')
			[ -n "$t" ] || t="1 0 0"
			read -r pe pw pc <<<"$t"
			e=$((e + pe)) w=$((w + pw)) c=$((c + pc))
			[ "$pe $pw" = "0 0" ] || bad="$bad ${p##*/}"
		done
		figures="checkpatch --strict: $e errors, $w warnings, $c checks"
		[ -z "$bad" ] || figures="$figures; errors or warnings in:$bad"
	fi
	needs=$(series_field "$l" needs)
	echo "make-series: $name: $n patches${needs:+ (on series $needs)} in $dir; $figures" |
		tee -a "$summary"
done

# shellcheck shell=bash
# Sourced by the series scripts: the series definitions, scripts/series/N-name.list
# (format: see scripts/series/1-perf-fixes.list).  Needs $REPO (lib/env.sh).

SERIES_DIR=$REPO/scripts/series

# The definitions, in series order.
series_lists() {
	ls "$SERIES_DIR"/[1-9]*.list 2>/dev/null | sort -V
}

# series_pristine: the pristine tree, as prepare-tree.sh finds it (it
# unpacks it if needed); else why not, and a non-zero status
series_pristine() {
	local src
	if [ -n "${LINUX_SRC:-}" ]; then
		src=$(cd "$LINUX_SRC" 2>/dev/null && pwd) ||
			{ echo "LINUX_SRC=$LINUX_SRC is not a directory"; return 1; }
	else
		src=$DPROF_CACHE/linux-source-6.12
		[ -d "$src" ] || "$REPO/scripts/prepare-tree.sh" >&2 ||
			{ echo "no pristine tree: set LINUX_SRC or run 'make tree'"; return 1; }
	fi
	[ -f "$src/tools/perf/Makefile.perf" ] || { echo "$src is not a kernel tree"; return 1; }
	echo "$src"
}

# series_name LIST: "N-name"
series_name() {
	basename "$1" .list
}

# series_field LIST KEY: the value of the "KEY: value" line (empty if none)
series_field() {
	sed -n "s/^$2:[[:space:]]*//p" "$1" | head -1 | sed 's/[[:space:]]*$//'
}

# series_entries LIST: the patches (and the 'tools' line), in order
series_entries() {
	grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' -e '^[a-z]*:' "$1" |
		sed 's/[[:space:]]*$//'
}

# series_list_of N: the definition of series number N
series_list_of() {
	local l
	for l in $(series_lists); do
		[ "$(series_name "$l" | cut -d- -f1)" != "$1" ] || { echo "$l"; return 0; }
	done
	return 1
}

# series_problems: one line per patch that is in no series, in two, or
# listed but missing, and per series that needs a later (or unknown) one.
# Prints nothing when the definitions are whole.
series_problems() {
	local l e n need all
	all=$(for l in $(series_lists); do series_entries "$l" | grep -vx tools; done)
	for e in $(cd "$REPO" && ls patches/perf/*.patch kernel-patches/*.patch 2>/dev/null); do
		n=$(grep -cxF "$e" <<<"$all" || true)
		[ "$n" != 0 ] || echo "$e is in no series: add it to one of scripts/series/*.list"
		[ "$n" -le 1 ] || echo "$e is in $n series (scripts/series/*.list): keep it in the earliest"
	done
	for e in $all; do
		[ -f "$REPO/$e" ] || echo "$e is listed in scripts/series/ but does not exist"
	done
	for l in $(series_lists); do
		n=$(series_name "$l" | cut -d- -f1)
		for need in $(series_field "$l" needs); do
			series_list_of "$need" >/dev/null ||
				echo "$(series_name "$l") needs series $need, which does not exist"
			[ "$need" -lt "$n" ] 2>/dev/null ||
				echo "$(series_name "$l") needs series $need: a series needs earlier ones only"
		done
		[ -n "$(series_field "$l" prefix)" ] || echo "$(series_name "$l") has no 'prefix:' line"
		[ -n "$(series_field "$l" version)" ] || echo "$(series_name "$l") has no 'version:' line"
		[ -f "${l%.list}.cover" ] || echo "$(series_name "$l") has no cover letter ${l%.list}.cover"
	done
}

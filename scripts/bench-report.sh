#!/bin/bash
# Benchmark (not a test): perf dprof report vs perf report on the same file.
#
#   scripts/bench-report.sh [perf.data [vmlinux]]
#
# Default input: the main job's recording ($BUILD_DIR/demo/perf.data, made
# by 'make run') and its vmlinux.  Runs each report REPS times (default 3),
# takes the fastest wall time, the least CPU time (user + sys: what load on
# a shared machine disturbs least) and the largest peak RSS, and prints the
# ratios perf report / perf dprof report: >= 1.0 means dprof is at least as
# fast, or needs no more memory.  For the first report it also prints the
# least wall time its CPU time allows on this machine's CPUs, and the best
# speed ratio that leaves.  The runs of the tools alternate, so that
# the load of a shared machine falls on both alike.  perf dprof report runs
# as a report of a recording of binaries reported before does (the typings
# and DWARF lookups a first report kept, --type-cache-dir in a scratch
# directory), and as a first report (an empty one each time).
#
# env: PERF         perf binary (default $BUILD_DIR/perf/perf)
#      REPS         runs of each report (default 3)
#      SORT_TYPE=0  do not also time perf's data-type profiling
#                   ('perf report --sort type', slower than both)
#      LARGE=1      also the same on a longer recording ($BUILD_DIR/bench-large,
#                   made once with scripts/run-demo.sh: DEMO_SECONDS=$LARGE_SECONDS,
#                   default 40, ten times the demo's 4 s; ~1 GB of perf.data,
#                   a few minutes of QEMU TCG on 2 cores; no watch recordings)
#      LARGE_DATA   a longer recording to use instead (LARGE_VMLINUX its vmlinux)
set -eu

# shellcheck source=lib/env.sh
. "$(dirname "$0")/lib/env.sh"
PERF=${PERF:-$BUILD_DIR/perf/perf}
data=${1:-$BUILD_DIR/demo/perf.data}
vmlinux=${2:-$BUILD_DIR/kernel/vmlinux}
reps=${REPS:-3}
ncpu=$(nproc)

[ -x "$PERF" ] || { echo "bench-report: no perf at $PERF (make)" >&2; exit 1; }
[ -f "$data" ] || { echo "bench-report: no $data (make run records one)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# one run of "$@": appends "wall_s peak_rss_kb cpu_s" to $tmp/$tag
run() {
	local tag=$1 t m u s
	shift
	/usr/bin/time -f '%e %M %U %S' -o "$tmp/time" "$@" >/dev/null 2>&1 ||
		{ echo "bench-report: failed: $*" >&2; exit 1; }
	read -r t m u s < "$tmp/time"
	echo "$t $m $(echo "$u + $s" | bc)" >> "$tmp/$tag"
}

# fastest wall time, largest peak RSS and least CPU time of a tag's runs
best() {
	sort -n "$tmp/$1" | awk 'NR == 1 { t = $1; c = $3 } $2 > m { m = $2 }
		$3 < c { c = $3 } END { print t, m, c }'
}

ratio() { echo "scale=4; $1 / $2" | bc; }

# bench DATA VMLINUX: the table for one recording
bench() {
	local data=$1 vmlinux=$2 kopt=() samples i tags=(sym dprof)
	local t_sym m_sym t_dp m_dp t_ty m_ty c_sym c_dp c_ty t_dc m_dc c_dc

	[ -f "$vmlinux" ] && kopt=(-k "$vmlinux")
	[ "${SORT_TYPE:-1}" = 0 ] || tags+=(type)
	rm -rf "$tmp/sym" "$tmp/dprof" "$tmp/dcold" "$tmp/type" "$tmp/tc"
	samples=$("$PERF" report -i "$data" --stats 2>/dev/null |
		  sed -nE 's/^ *SAMPLE events: *([0-9]+).*/\1/p' | head -1)
	echo "input: $data (${samples:-?} samples, $(du -h "$data" | cut -f1)), ${kopt[*]:-no vmlinux}, best of $reps"
	# the typings and lookups a first report keeps for the next (--type-cache)
	"$PERF" dprof report --stdio -i "$data" "${kopt[@]}" --type-cache-dir "$tmp/tc" \
		>/dev/null 2>&1
	for ((i = 0; i < reps; i++)); do
		run sym "$PERF" report --stdio -i "$data" "${kopt[@]}" --sort sym
		run dprof "$PERF" dprof report --stdio -i "$data" "${kopt[@]}" \
			--type-cache-dir "$tmp/tc"
		rm -rf "$tmp/cold"
		run dcold "$PERF" dprof report --stdio -i "$data" "${kopt[@]}" \
			--type-cache-dir "$tmp/cold"
		[ "${SORT_TYPE:-1}" = 0 ] ||
			run type "$PERF" report --stdio -i "$data" "${kopt[@]}" --sort type
	done
	read -r t_sym m_sym c_sym < <(best sym)
	read -r t_dp m_dp c_dp < <(best dprof)
	read -r t_dc m_dc c_dc < <(best dcold)
	printf 'perf report --stdio --sort sym : %6.2f s  %7d KB  %6.2f s CPU\n' \
		"$t_sym" "$m_sym" "$c_sym"
	if [ "${SORT_TYPE:-1}" != 0 ]; then
		read -r t_ty m_ty c_ty < <(best type)
		printf 'perf report --stdio --sort type: %6.2f s  %7d KB  %6.2f s CPU\n' \
			"$t_ty" "$m_ty" "$c_ty"
	fi
	printf 'perf dprof report --stdio      : %6.2f s  %7d KB  %6.2f s CPU\n' \
		"$t_dp" "$m_dp" "$c_dp"
	printf '  ... first report (no typings kept): %6.2f s  %7d KB  %6.2f s CPU\n' \
		"$t_dc" "$m_dc" "$c_dc"
	printf 'speed ratio (perf report / dprof report): %.2fx  (goal >= 1.0x; first report %.2fx)\n' \
		"$(ratio "$t_sym" "$t_dp")" "$(ratio "$t_sym" "$t_dc")"
	printf 'CPU ratio (perf report / dprof report): %.2fx  (first report %.2fx)\n' \
		"$(ratio "$c_sym" "$c_dp")" "$(ratio "$c_sym" "$c_dc")"
	printf 'memory ratio (perf report / dprof report): %.2fx  (goal >= 1.0x; first report %.2fx)\n' \
		"$(ratio "$m_sym" "$m_dp")" "$(ratio "$m_sym" "$m_dc")"
	# no schedule of a report's CPU time on this machine's CPUs is shorter
	printf 'first report: %.2f s CPU on %d CPUs, %.2f s at the least: %.2fx at the most\n' \
		"$c_dc" "$ncpu" "$(echo "scale=4; $c_dc / $ncpu" | bc)" \
		"$(echo "scale=4; $t_sym * $ncpu / $c_dc" | bc)"
	[ "${SORT_TYPE:-1}" = 0 ] ||
		printf 'vs perf report --sort type: %.2fx the speed, %.2fx the memory\n' \
			"$(ratio "$t_ty" "$t_dp")" "$(ratio "$m_ty" "$m_dp")"
}

bench "$data" "$vmlinux"

[ "${LARGE:-0}" = 1 ] || [ -n "${LARGE_DATA:-}" ] || exit 0
large=${LARGE_DATA:-$BUILD_DIR/bench-large/perf.data}
if [ ! -f "$large" ]; then
	echo "bench-report: recording $large (DEMO_SECONDS=${LARGE_SECONDS:-40})"
	DEMO_DIR=${large%/*} DEMO_SECONDS=${LARGE_SECONDS:-40} DEMO_WATCH= DEMO_HANDOFF=0 \
	DEMO_REPORT=--percent-limit=1 VM_MEM=${VM_MEM:-4G} \
		"$REPO/scripts/run-demo.sh" >/dev/null ||
		{ echo "bench-report: recording $large failed" >&2; exit 1; }
fi
echo
bench "$large" "${LARGE_VMLINUX:-$vmlinux}"

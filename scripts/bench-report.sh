#!/bin/bash
# Benchmark (not a test): perf dprof report vs perf report on the same file.
#
#   scripts/bench-report.sh [perf.data [vmlinux]]
#
# Default input: the main job's recording ($BUILD_DIR/demo/perf.data, made
# by 'make run') and its vmlinux.  Runs each report REPS times (default 3),
# takes the fastest wall time and the peak RSS, and prints the ratio
# perf report / perf dprof report: >= 1.0 means dprof is at least as fast.
set -eu

# shellcheck source=lib/env.sh
. "$(dirname "$0")/lib/env.sh"
PERF=${PERF:-$BUILD_DIR/perf/perf}
data=${1:-$BUILD_DIR/demo/perf.data}
vmlinux=${2:-$BUILD_DIR/kernel/vmlinux}
reps=${REPS:-3}

[ -x "$PERF" ] || { echo "bench-report: no perf at $PERF (make)" >&2; exit 1; }
[ -f "$data" ] || { echo "bench-report: no $data (make run records one)" >&2; exit 1; }
kopt=()
[ -f "$vmlinux" ] && kopt=(-k "$vmlinux")

# best wall time (s) and peak RSS (KB) of REPS runs of "$@"
measure() {
	local best="" rss=0 t m i
	for ((i = 0; i < reps; i++)); do
		/usr/bin/time -f '%e %M' -o "$tmp/time" "$@" >/dev/null 2>&1 ||
			{ echo "bench-report: failed: $*" >&2; exit 1; }
		read -r t m < "$tmp/time"
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
		[ "$m" -gt "$rss" ] && rss=$m
	done
	echo "$best $rss"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
samples=$("$PERF" report -i "$data" --stats 2>/dev/null | sed -nE 's/^ *SAMPLE events: *([0-9]+).*/\1/p' | head -1)
echo "input: $data (${samples:-?} samples, $(du -h "$data" | cut -f1)), ${kopt[*]:-no vmlinux}, best of $reps"
read -r t_rep m_rep < <(measure "$PERF" report --stdio -i "$data" "${kopt[@]}" --sort sym)
read -r t_dp m_dp < <(measure "$PERF" dprof report --stdio -i "$data" "${kopt[@]}")
printf 'perf report --stdio --sort sym : %6.2f s  %7d KB\n' "$t_rep" "$m_rep"
printf 'perf dprof report --stdio      : %6.2f s  %7d KB\n' "$t_dp" "$m_dp"
printf 'speed ratio (perf report / dprof report): %.2fx  (goal >= 1.0x)\n' \
	"$(echo "scale=4; $t_rep / $t_dp" | bc)"

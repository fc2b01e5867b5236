#!/bin/bash
# Benchmark (not a test): the cost of the allocator's uprobes.
#
#   scripts/bench-heap.sh
#
# Builds the heap test program (tools/perf/tests/shell/lib/dprof_user/heap.c)
# and times two runs of it, each alone, under 'perf dprof record --no-heap'
# and under 'perf dprof record' (uprobes on malloc & co.), and with
# --heap-min-size=128 (all its objects are smaller: filtered in the kernel):
#   churn: CHURN malloc + free pairs (default 200000), allocation-heavy
#   work:  20000 nodes then WORK random touches (default 100000000), typical
# Each time is the program's own CPU time (user + system, from
# /usr/bin/time inside the recording: the machine may be shared), best of
# REPS (default 3).  Prints the slowdown against the run alone and, for
# churn, the cost of one malloc + free with their probes.
set -eu

# shellcheck source=lib/env.sh
. "$(dirname "$0")/lib/env.sh"
PERF=${PERF:-$BUILD_DIR/perf/perf}
reps=${REPS:-3}
churn=${CHURN:-200000}
work=${WORK:-100000000}

[ -x "$PERF" ] || { echo "bench-heap: no perf at $PERF (make)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench-heap: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -g -O1 -fno-inline -pthread -o "$tmp/heap" \
	"$REPO/tools/perf/tests/shell/lib/dprof_user/heap.c"

# best CPU seconds of REPS runs of: [perf dprof record OPTS --] heap ARGS
# usage: cpu "OPTS|-" ARGS...   ("-": the program alone)
cpu() {
	local opts=$1 best="" t i

	shift
	for ((i = 0; i < reps; i++)); do
		if [ "$opts" = - ]; then
			/usr/bin/time -f '%U %S' -o "$tmp/t" "$tmp/heap" "$@" > /dev/null
		else
			# shellcheck disable=SC2086
			"$PERF" dprof record -q --sampler=soft --no-kmem $opts -o "$tmp/p.data" \
				-- /usr/bin/time -f '%U %S' -o "$tmp/t" "$tmp/heap" "$@" \
				> /dev/null 2> "$tmp/err" ||
				{ cat "$tmp/err" >&2; exit 1; }
			if grep -q 'cannot place uprobes' "$tmp/err"; then
				grep -m1 'cannot place uprobes' "$tmp/err" >&2
				exit 1
			fi
		fi
		t=$(awk '{ printf "%.3f", $1 + $2 }' "$tmp/t")
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
	done
	echo "$best"
}

ratio() {
	echo "scale=1; $1 / $2" | bc
}

printf '%-34s %10s %10s %10s %10s\n' program alone --no-heap heap heap-min-128
for prog in "churn $churn" "work 20000 $work"; do
	# shellcheck disable=SC2086
	set -- $prog
	if [ "$1" = churn ]; then
		# too fast to time without probes: 100 times the pairs, scaled back
		alone=$(echo "scale=4; $(cpu - churn $(($2 * 100))) / 100" | bc)
		noheap=$(echo "scale=4; $(cpu --no-heap churn $(($2 * 100))) / 100" | bc)
	else
		alone=$(cpu - "$@")
		noheap=$(cpu --no-heap "$@")
	fi
	heap=$(cpu "" "$@")
	minsz=$(cpu --heap-min-size=128 "$@")
	printf '%-34s %9.3fs %9.3fs %9.3fs %9.3fs\n' "$prog (CPU s)" "$alone" "$noheap" "$heap" "$minsz"
	printf '%-34s %10s %9sx %9sx %9sx\n' "  slowdown" 1 "$(ratio "$noheap" "$alone")" \
		"$(ratio "$heap" "$alone")" "$(ratio "$minsz" "$alone")"
	if [ "$1" = churn ]; then
		echo "  one malloc + free with their probes: $(echo "scale=2; ($heap - $noheap) * 1000000 / $churn" | bc) us more (--heap-min-size: $(echo "scale=2; ($minsz - $noheap) * 1000000 / $churn" | bc) us)"
	fi
done

#!/bin/bash
# Benchmark (not a test): the cost of tracking the user heap.
#
#   scripts/bench-heap.sh
#
# Builds the heap test program (tools/perf/tests/shell/lib/dprof_user/heap.c)
# and times it, each run alone, under 'perf dprof record --no-heap', under
# 'perf dprof record' (the allocator recorder preloaded into it) and under
# 'perf dprof record --heap-uprobes' (uprobes on malloc & co.):
#   churn: malloc + free pairs, allocation-heavy: CHURN pairs (default
#          200000) with the uprobes, 100 times as many alone, with
#          --no-heap and with the recorder, scaled back (a tenth of a
#          second or more each: /usr/bin/time counts hundredths)
#   work:  20000 nodes then WORK random touches (default 100000000), typical
# Each time is the program's own CPU time (user + system, from
# /usr/bin/time inside the recording: the machine may be shared), best of
# REPS (default 3).
#
# Then, when REALPROG_DIR (default /work/realprogs) holds the SQLite shell
# and its workload (see its README), the real program: the CPU time (the
# goal's measure) and the wall time of the whole 'perf dprof record' (the
# recorder's log stored included), the program's CPU time, the file's
# size, the share of samples in the recorder, each against --no-heap, with
# the goals (1.3x time, 2x size).
set -eu

# shellcheck source=lib/env.sh
. "$(dirname "$0")/lib/env.sh"
PERF=${PERF:-$BUILD_DIR/perf/perf}
reps=${REPS:-3}
churn=${CHURN:-200000}
work=${WORK:-100000000}
realdir=${REALPROG_DIR:-/work/realprogs}

[ -x "$PERF" ] || { echo "bench-heap: no perf at $PERF (make)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench-heap: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -g -O1 -fno-inline -pthread -o "$tmp/heap" \
	"$REPO/tools/perf/tests/shell/lib/dprof_user/heap.c"

# "CPU wall size all" of REPS runs of: [perf dprof record OPTS --] PROG ARGS:
# the least CPU time of the program, the least wall time and the least CPU
# time of the whole record (perf's and the program's; each its own run),
# the last size
# usage: run "OPTS|-" PROG ARGS...   ("-": the program alone); stdin: INPUT
run() {
	local opts=$1 best="" bestw="" besta="" t w s a i

	shift
	for ((i = 0; i < reps; i++)); do
		if [ "$opts" = - ]; then
			/usr/bin/time -f '%U %S' -o "$tmp/t" "$@" < "${INPUT:-/dev/null}" > /dev/null
			w=0 s=0 a=0
		else
			# shellcheck disable=SC2086
			/usr/bin/time -f '%e %U %S' -o "$tmp/w" \
				"$PERF" dprof record -q --sampler=soft --no-kmem $opts -o "$tmp/p.data" \
				-- /usr/bin/time -f '%U %S' -o "$tmp/t" "$@" \
				< "${INPUT:-/dev/null}" > /dev/null 2> "$tmp/err" ||
				{ cat "$tmp/err" >&2; exit 1; }
			if grep -q 'cannot place uprobes' "$tmp/err"; then
				grep -m1 'cannot place uprobes' "$tmp/err" >&2
				exit 1
			fi
			w=$(awk '{ print $1 }' "$tmp/w")
			a=$(awk '{ printf "%.3f", $2 + $3 }' "$tmp/w")
			s=$(stat -c %s "$tmp/p.data")
			cp "$tmp/p.data" "$tmp/last.data"
		fi
		t=$(awk '{ printf "%.3f", $1 + $2 }' "$tmp/t")
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then
			best=$t
		fi
		if [ -z "$bestw" ] || [ "$(echo "$w < $bestw" | bc)" = 1 ]; then
			bestw=$w
		fi
		if [ -z "$besta" ] || [ "$(echo "$a < $besta" | bc)" = 1 ]; then
			besta=$a
		fi
	done
	echo "$best $bestw $s $besta"
}

ratio() {
	echo "scale=2; $1 / $2" | bc
}

cpu_of() { echo "$1" | cut -d' ' -f1; }

printf '%-28s %10s %10s %10s %10s\n' program alone --no-heap recorder uprobes
for prog in "churn $churn" "work 20000 $work"; do
	# shellcheck disable=SC2086
	set -- $prog
	if [ "$1" = churn ]; then
		# too fast to time without uprobes: more pairs, scaled back
		alone=$(echo "scale=4; $(cpu_of "$(run - "$tmp/heap" churn $(($2 * 100)))") / 100" | bc)
		noheap=$(echo "scale=4; $(cpu_of "$(run --no-heap "$tmp/heap" churn $(($2 * 100)))") / 100" | bc)
		rec=$(echo "scale=4; $(cpu_of "$(run "" "$tmp/heap" churn $(($2 * 100)))") / 100" | bc)
	else
		alone=$(cpu_of "$(run - "$tmp/heap" "$@")")
		noheap=$(cpu_of "$(run --no-heap "$tmp/heap" "$@")")
		rec=$(cpu_of "$(run "" "$tmp/heap" "$@")")
	fi
	probes=$(cpu_of "$(run --heap-uprobes "$tmp/heap" "$@")")
	printf '%-28s %9.4fs %9.4fs %9.4fs %9.4fs\n' "$prog (CPU s)" "$alone" "$noheap" "$rec" "$probes"
	printf '%-28s %10s %9sx %9sx %9sx\n' "  against the program alone" 1 "$(ratio "$noheap" "$alone")" \
		"$(ratio "$rec" "$alone")" "$(ratio "$probes" "$alone")"
	printf '%-28s %10s %10s %9sx %9sx\n' "  against --no-heap" "" 1 \
		"$(ratio "$rec" "$noheap")" "$(ratio "$probes" "$noheap")"
	if [ "$1" = churn ]; then
		echo "  one malloc + free pair: $(echo "scale=1; ($rec - $noheap) * 1000000000 / $churn" | bc) ns more with the recorder, $(echo "scale=1; ($probes - $noheap) * 1000000 / $churn" | bc) us with the uprobes (goal for the loop: recorder <= 3x --no-heap)"
	fi
done

if [ ! -x "$realdir/sqlite3" ] || [ ! -f "$realdir/workload.sql" ]; then
	echo "real program: no $realdir/sqlite3 and workload.sql: not measured"
	exit 0
fi
echo
echo "real program: sqlite3 :memory: < workload.sql ($realdir)"
printf '%-28s %10s %10s %10s %10s\n' "" alone --no-heap recorder uprobes
export INPUT=$realdir/workload.sql
alone=$(run - "$realdir/sqlite3" :memory:)
noheap=$(REPS=$((reps + 2)) run --no-heap "$realdir/sqlite3" :memory:)
rec=$(REPS=$((reps + 2)) run "" "$realdir/sqlite3" :memory:)
"$PERF" dprof report --stdio -i "$tmp/last.data" > "$tmp/rec.rep" 2>/dev/null || true
probes=$(REPS=1 run --heap-uprobes "$realdir/sqlite3" :memory:)
"$PERF" dprof report --stdio -i "$tmp/last.data" > "$tmp/probes.rep" 2>/dev/null || true
read -r ac _ _ _ <<< "$alone"; read -r nc nw ns na <<< "$noheap"
read -r rc rw rs ra <<< "$rec"; read -r pc pw ps pa <<< "$probes"
printf '%-28s %9.2fs %9.2fs %9.2fs %9.2fs\n' "  program CPU" "$ac" "$nc" "$rc" "$pc"
printf '%-28s %10s %9.2fs %9.2fs %9.2fs\n' "  record CPU (perf + program)" "" "$na" "$ra" "$pa"
printf '%-28s %10s %9.2fs %9.2fs %9.2fs\n' "  record wall (all of it)" "" "$nw" "$rw" "$pw"
printf '%-28s %10s %9.2fM %9.2fM %9.2fM\n' "  perf.data" "" "$(echo "$ns / 1048576" | bc -l)" \
	"$(echo "$rs / 1048576" | bc -l)" "$(echo "$ps / 1048576" | bc -l)"
# perf record's wall time is bimodal here (one run in a few ends ~1 s
# sooner, whatever is recorded): its CPU time is the goal's measure
printf '%-28s %10s %10s %9sx %9sx  (goal <= 1.3x)\n' "  record CPU against --no-heap" "" 1 \
	"$(ratio "$ra" "$na")" "$(ratio "$pa" "$na")"
printf '%-28s %10s %10s %9sx %9sx\n' "  wall against --no-heap" "" 1 \
	"$(ratio "$rw" "$nw")" "$(ratio "$pw" "$nw")"
printf '%-28s %10s %10s %9sx %9sx  (goal <= 2x)\n' "  size against --no-heap" "" 1 \
	"$(ratio "$rs" "$ns")" "$(ratio "$ps" "$ns")"
recs=$(sed -nE 's/^# ([0-9]+) samples in the allocator recorder itself.*/\1/p' "$tmp/rec.rep")
all=$(sed -nE 's/^# resolved .* of ([0-9]+) samples.*/\1/p' "$tmp/rec.rep")
traps=$(sed -nE "s/^# ([0-9]+) samples in the kernel's handling of the allocator's uprobes.*/\1/p" \
	"$tmp/probes.rep")
pall=$(sed -nE 's/^# resolved .* of ([0-9]+) samples.*/\1/p' "$tmp/probes.rep")
echo "  samples in the tracking (counted apart, out of the shares): recorder $(echo "scale=1; 100 * ${recs:-0} / (${all:-1} + ${recs:-0})" | bc)%, uprobes' traps $(echo "scale=1; 100 * ${traps:-0} / (${pall:-1} + ${traps:-0})" | bc)%"

#!/bin/bash
# make fuzz: damaged perf.data files through 'perf dprof report', under
# AddressSanitizer and UndefinedBehaviorSanitizer.
#
#   1. build perf with -fsanitize=address,undefined in $BUILD_DIR/fuzz
#   2. seeds: recordings 'perf test -w dprof_cachemodel' writes as AMD IBS
#      and Intel PEBS machines would, the real PEBS file of the tests, a
#      recording of a small program with the allocator's uprobes (heap
#      objects; where uprobes can be placed), one with the allocator
#      recorder's log (recorded by perf built without the sanitizers: a
#      recorder built with them crashes the workload it is preloaded
#      into), and the files of FUZZ_SEEDS
#   3. FUZZ_N mutants (scripts/fuzz/mutate.py), each through one of the
#      views of FUZZ_VIEWS in turn (default: profile classify workingset flow;
#      each replays the whole file through perf's reader); flow and paths
#      with one type of FUZZ_FLOW_TYPES in turn (comma-separated; default
#      filp,skbuff_head_cache,struct node: the watch and heap seeds')
#      (what the reports learn of the binaries' types is kept in
#      $FUZZ_DIR/typecache: the mutants read it back, and nothing of a
#      damaged recording goes where other reports look)
#   4. a crash is death by a signal, a hang a run over FUZZ_TIMEOUT CPU
#      seconds (or 10x that in wall time, blocked), a
#      sanitizer report any ASan/UBSan message; each is kept with what was
#      damaged in $BUILD_DIR/fuzz/found
#
# Last line: "mutants N, crashes N, hangs N, sanitizer reports N";
# exit 1 when any is not 0.
#
# env: FUZZ_N (default 2000), FUZZ_SEED (1), FUZZ_TIMEOUT (20),
#      FUZZ_PERF (a sanitizer build to use instead of building one),
#      FUZZ_RECORD_PERF (perf without the sanitizers, for the recorder
#      seed; default $BUILD_DIR/perf/perf, built when missing),
#      FUZZ_VIEWS (see 3.), FUZZ_DIR (default $BUILD_DIR/fuzz: two runs
#      side by side need two), FUZZ_SEEDS (more perf.data files to damage,
#      space-separated, e.g. guest recordings of make run with the slab map
#      and watch events, which need our kernel; cut by scripts/fuzz/shrink.py)
set -eu

# shellcheck source=lib/env.sh
. "$(dirname "$0")/lib/env.sh"
n=${FUZZ_N:-2000}
seed=${FUZZ_SEED:-1}
limit=${FUZZ_TIMEOUT:-20}
dir=${FUZZ_DIR:-$BUILD_DIR/fuzz}
read -r -a views <<< "${FUZZ_VIEWS:-profile classify workingset flow}"
# flow and paths need a type with histories: of the watch seeds, of the heap seed
IFS=, read -r -a flow_types <<< "${FUZZ_FLOW_TYPES:-filp,skbuff_head_cache,struct node}"
say() { echo "fuzz: $*" >&2; }

perf=${FUZZ_PERF:-}
if [ -z "$perf" ]; then
	say "building perf with ASan + UBSan in $dir (cold: ~5 min)"
	# GCC 12's -Warray-bounds misfires under the sanitizers: no -Werror
	EXTRA_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -g" \
	LDFLAGS="-fsanitize=address,undefined" BUILD_DIR=$dir/build \
	PERF_MAKE_ARGS="WERROR=0" "$REPO/scripts/build-perf.sh" >/dev/null
	perf=$dir/build/perf/perf
fi
command -v python3 >/dev/null || "$REPO/scripts/deps.sh" python3

export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
rm -rf "$dir/seeds" "$dir/mutants" "$dir/typecache"
mkdir -p "$dir/seeds" "$dir/mutants" "$dir/found"
for s in mixed false_sharing conflict; do
	for pmu in ibs pebs; do
		"$perf" test -w dprof_cachemodel $s 1 2 16384 7 $pmu \
			"$dir/seeds/$s-$pmu.data" 2000 >/dev/null 2>&1
	done
done
cp "$REPO/tools/perf/tests/dprof/data/perf.data.weight_struct" "$dir/seeds/pebs-real.data"
# heap objects: the uprobes on malloc/free of a program that churns nodes
lib=$REPO/tools/perf/tests/shell/lib/dprof_user
if command -v gcc >/dev/null &&
   gcc -g -O1 -fno-inline -pthread -o "$dir/heap" "$lib/heap.c" 2>/dev/null &&
   "$perf" dprof record --sampler=soft --no-kmem --heap-uprobes -o "$dir/seeds/heap.data" \
	-- "$dir/heap" count 20 0.2 > "$dir/heap.out" 2>&1 &&
   ! grep -q 'cannot place uprobes' "$dir/heap.out"; then
	:
else
	rm -f "$dir/seeds/heap.data"
	say "no heap seed (no gcc, or uprobes cannot be placed: $dir/heap.out)"
fi
# ... and the allocator recorder's log in its feature section, from perf
# without the sanitizers: theirs need their runtime loaded first
recperf=${FUZZ_RECORD_PERF:-$BUILD_DIR/perf/perf}
if [ -x "$dir/heap" ] && [ ! -x "$recperf" ] && [ -z "${FUZZ_RECORD_PERF:-}" ]; then
	say "building perf without the sanitizers for the recorder seed"
	"$REPO/scripts/build-perf.sh" >/dev/null
fi
if [ -x "$dir/heap" ] &&
   { ! ASAN_OPTIONS= UBSAN_OPTIONS= "$recperf" dprof record --sampler=soft --no-kmem \
	-o "$dir/seeds/heaprec.data" -- "$dir/heap" count 20 0.2 > "$dir/heaprec.out" 2>&1 ||
     ! grep -q 'heap log of 1 process' "$dir/heaprec.out"; }; then
	rm -f "$dir/seeds/heaprec.data"
	say "no heap recorder seed: $dir/heaprec.out"
fi
# big recordings (a guest's slab snapshot: ~30 MB) cut to 300 samples per
# event and CPU: every kind of record stays, each run stays short
extra=0
for f in ${FUZZ_SEEDS:-}; do
	python3 "$REPO/scripts/fuzz/shrink.py" 300 "$f" \
		"$dir/seeds/extra$((++extra))-$(basename "$f" .data).data"
done
say "$n mutants of $(ls "$dir"/seeds/*.data | wc -l) seeds, seed $seed"
python3 "$REPO/scripts/fuzz/mutate.py" "$seed" "$n" "$dir/mutants" "$dir"/seeds/*.data

crashes=0 hangs=0 reports=0 runs=0
summary() { echo "mutants $runs, crashes $crashes, hangs $hangs, sanitizer reports $reports"; }
# stopped early (kill -TERM): what ran so far
trap 'summary; echo "fuzz: stopped after $runs of $n mutants" >&2; exit 1' TERM INT
for m in "$dir"/mutants/m*.data; do
	for view in "${views[$((runs % ${#views[@]}))]}"; do
		rc=0
		type=()
		case $view in
		flow|paths)
			type=(--type="${flow_types[$((runs / ${#views[@]} % ${#flow_types[@]}))]}") ;;
		esac
		# CPU seconds: on a loaded machine wall time says little; a
		# run blocked without using CPU still ends at 10x the limit
		(ulimit -t "$limit"
		 exec timeout -s KILL $((limit * 10)) "$perf" dprof report --stdio -i "$m" \
			--type-cache-dir "$dir/typecache" --view=$view "${type[@]}") \
			> /dev/null 2> "$dir/err" || rc=$?
		what=
		if grep -qE 'ERROR: AddressSanitizer|runtime error:' "$dir/err"; then
			what=sanitizer; reports=$((reports + 1))
		elif [ $rc = 137 ] || [ $rc = 152 ]; then	# SIGKILL, SIGXCPU
			what=hang; hangs=$((hangs + 1))
		elif [ $rc -gt 128 ] && [ $rc -lt 160 ]; then
			what=crash; crashes=$((crashes + 1))
		fi
		if [ -n "$what" ]; then
			f=$dir/found/$what-$(basename "$m" .data)-$view
			cp "$m" "$f.data"
			{ cat "$m.why"; echo "perf dprof report --stdio -i $f.data --view=$view ${type[*]}: exit $rc";
			  cat "$dir/err"; } > "$f.txt"
			say "$what: $(cat "$m.why") (--view=$view, $f.txt)"
		fi
	done
	runs=$((runs + 1))
	[ $((runs % 500)) != 0 ] || say "$(summary)"
done
summary
[ $((crashes + hangs + reports)) = 0 ]

#!/bin/bash
# Benchmark (not a test): what perf dprof costs on real programs nobody on
# the team wrote, built from Debian's source with -g (REALPROG_DIR, default
# /work/realprogs: scripts/build-realprogs.sh builds them).
#
#   scripts/bench-alloc.sh          (make bench)
#
# interpreter: Lua 5.4 running lua/alloc.lua (a table and string churn,
#   about 1 million allocations a second, LUA_SECONDS of work, default 3):
#   - 'perf dprof report --stdio' against 'perf report --stdio --sort type'
#     on the same file F ('perf dprof record -o F -- lua alloc.lua'): wall
#     time and peak RSS (goals 1.5x, 1.5x)
#   - F's size against 'perf dprof record --no-heap''s (goal 2x)
#   - the CPU time (user + system) of the whole 'perf dprof record', the
#     program's included, against --no-heap's (goal 1.3x)
# server: redis-server on 127.0.0.1:PORT (default 16379, no persistence),
#   driven by redis-benchmark (REQUESTS SETs then as many GETs, default
#   300000, over 100000 random keys), stopped by 'redis-cli shutdown nosave':
#   - the file of 'perf dprof record -- redis-server' against the same under
#     '--no-heap --no-kmem' (goal 3x)
#   - 'perf dprof report' against 'perf report --sort type' on it: wall time
#     (goal 1.5x)
#   - the report's '# lifetimes:' counts, frees of unknown objects and
#     allocations over a live object, as a share of its kmem events (its
#     '# address set:' allocs + frees; goal 1% for the frees)
#   - the server's throughput (SET and GET together: all requests over all
#     their time) with the server outside any recording, while
#     'perf dprof record -a --no-heap -- sleep 600' records, against
#     'perf record -a -e cpu-clock -- sleep 600' (goal 0.9x); the sleep is
#     ended by a SIGINT to perf once redis-benchmark is done
# server in the guest: the same redis-server launched under 'perf dprof
#   record' in the 2-CPU QEMU guest of 'make run' (the patched kernel, whose
#   vmlinux lets the record-end pass decode the kernel's samples; this host
#   has none), GUEST_REQUESTS SETs then GETs (default 20000), one guest boot
#   for all runs; skipped without $BUILD_DIR/kernel (make kernel):
#   - the file against '--no-heap --no-kmem' (goal 3x)
#   - 'perf dprof report' against 'perf report --sort type' on it, here,
#     with -k the guest's vmlinux, after one report to keep its typings
#     (goal 1.5x)
#   - frees of unknown objects, as on the host (goal 1%)
#   - the server's throughput while 'perf dprof record -a --no-heap'
#     records the guest (the slab map by default on this kernel), against
#     'perf record -a -e cpu-clock' (goal 0.9x), and with every object's
#     events (--kmem-events=objects, no goal)
#   - the file of that 'record -a' in MB per 1k requests, against the same
#     with --no-prune --kmem-events=objects (kmem events per object, the
#     sampler's registers: the recording as it was before the record-end
#     pass and the map; goal 0.1x), and with --kmem-events=map; 'perf
#     record -a -e cpu-clock''s for scale
#   - with kernel-patches/0012, --kmem-events=map has the kernel's sampled
#     lifetimes (kmem:slab_sample_alloc/free of one object in 64): the
#     throughput with the map alone too (--kmem-sample=0), against 'perf
#     record -a -e cpu-clock' (goal 0.9x)
# runtime allocator: CPython 3.11 running python/alloc.py (a dict/list/str
#   churn through pymalloc, which the recorder wraps: about 3.5 million
#   allocations a second, PY_ROUNDS rounds of work, default 150):
#   - the CPU time of the whole 'perf dprof record' against --no-heap's
#     (goal 1.3x)
#   - the share of the samples in tracked heap objects (goal 25%)
# BENCH (default "lua python redis guest") runs only the parts it names.
# Each figure is the median of REPS runs (default 3), both sides measured
# in the same round, one run at a time. Exits 2, measuring nothing, when
# the programs are absent; a missing part is skipped with a line saying so,
# and the exit status is then 2 too.
set -eu

# shellcheck source-path=SCRIPTDIR source=lib/env.sh
. "$(dirname "$0")/lib/env.sh"
PERF=${PERF:-$BUILD_DIR/perf/perf}
reps=${REPS:-3}
realdir=${REALPROG_DIR:-/work/realprogs}
lua_secs=${LUA_SECONDS:-3}
requests=${REQUESTS:-300000}
guest_requests=${GUEST_REQUESTS:-20000}
port=${PORT:-16379}
py_rounds=${PY_ROUNDS:-150}

lua=$realdir/lua/lua
lua_script=$realdir/lua/alloc.lua
redis_dir=$realdir/redis
python=$realdir/python/python
py_script=$realdir/python/alloc.py

have_lua=0 have_redis=0 have_python=0
[ -x "$lua" ] && [ -f "$lua_script" ] && have_lua=1
[ -x "$python" ] && [ -f "$py_script" ] && have_python=1
[ -x "$redis_dir/redis-server" ] && [ -x "$redis_dir/redis-benchmark" ] &&
	[ -x "$redis_dir/redis-cli" ] && have_redis=1
have_guest=0
[ $have_redis = 1 ] && [ -f "$BUILD_DIR/kernel/arch/x86/boot/bzImage" ] &&
	[ -f "$BUILD_DIR/kernel/vmlinux" ] && command -v qemu-system-x86_64 > /dev/null &&
	have_guest=1
# BENCH: the parts to run (default all); one not asked for is not said
for part in lua python redis guest; do
	case " ${BENCH:-lua python redis guest} " in
	*" $part "*) ;;
	*) eval "have_$part=-" ;;
	esac
done
if [ $have_lua = 0 ] && [ $have_redis = 0 ] && [ $have_python = 0 ]; then
	echo "bench-alloc: skipped: no $lua + $lua_script, no redis-server," \
		"redis-benchmark, redis-cli in $redis_dir" \
		"(build them: scripts/build-realprogs.sh)" >&2
	exit 2
fi
[ -x "$PERF" ] || { echo "bench-alloc: no perf at $PERF (make)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench-alloc: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

tmp=$(mktemp -d)
server_pid="" perf_pid="" job_pid="" rps="" ok="" t_wall="" t_cpu="" t_rss="" kmem_mode=""

# the job in the foreground, the server, the recording it runs under,
# then the files
cleanup() {
	local i

	if [ -n "$job_pid" ]; then
		# /usr/bin/time's child (a perf), or redis-benchmark
		pkill -TERM -P "$job_pid" 2> /dev/null || true
		kill -TERM "$job_pid" 2> /dev/null || true
		wait "$job_pid" 2> /dev/null || true
	fi
	if [ -n "$server_pid$perf_pid" ]; then
		"$redis_dir/redis-cli" -p "$port" shutdown nosave > /dev/null 2>&1 || true
	fi
	for i in $server_pid $perf_pid; do
		kill -0 "$i" 2> /dev/null || continue
		kill -INT "$i" 2> /dev/null || true
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$i" 2> /dev/null || break
			sleep 0.5
		done
		kill -KILL "$i" 2> /dev/null || true
		wait "$i" 2> /dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# median of the arguments
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
		END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# A / B, with DIGITS decimals
# usage: div A B DIGITS
div() { awk -v a="$1" -v b="$2" -v d="$3" 'BEGIN { printf "%.*f\n", d, b ? a / b : 0 }'; }

mb() { div "$1" 1048576 2; }

# one table row: LABEL DPROF BASE (numbers, printed as they are) GOAL
# ('<= 1.5' or '>= 0.9'), against A BASELINE (its name)
row() {
	local label=$1 a=$2 b=$3 goal=$4 base=$5 r ok

	r=$(div "$a" "$b" 2)
	if echo "$r ${goal% *} ${goal#* }" | awk '{ exit !(($2 == "<=") ? $1 <= $3 : $1 >= $3) }'; then
		ok=ok
	else
		ok=MISSED
	fi
	printf '  %-30s %10s %10s %7sx  goal %-7s %-6s  against %s\n' "$label" "$a" "$b" "$r" \
		"${goal}x" "$ok" "$base"
}

# CMD... in the background, waited for (a signal to the script is then
# handled at once, not once CMD is done); its exit status
run() {
	local rc=0

	"$@" &
	job_pid=$!
	wait "$job_pid" || rc=$?
	job_pid=""
	return $rc
}

# CMD..., its output to OUT, its stderr to ERR; sets t_wall (s), t_cpu (s,
# user + system, its children's included) and t_rss (its peak, KB)
# usage: timed OUT ERR CMD...
timed() {
	local out=$1 err=$2

	shift 2
	run /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$@" > "$out" 2> "$err" ||
		{ echo "bench-alloc: failed: $*" >&2; tail -5 "$err" >&2; exit 1; }
	read -r t_wall t_cpu t_rss <<< "$(awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$tmp/time")"
}

# what 'perf dprof record' said of the heap log in ERR: "N allocations,
# N frees, N MB in perf.data"
heap_log() {
	sed -nE 's/.*heap log of .*: ([0-9]+) allocations, ([0-9]+) frees.*; ([0-9.]+) MB written.*/\1 allocations, \2 frees, \3 MB in perf.data/p' "$1"
}

# ---- interpreter ----

bench_lua() {
	local i f_cpu=() n_cpu=() f_size=() n_size=() d_wall=() d_rss=() p_wall=() p_rss=()
	local allocs=""

	echo "interpreter: $lua $lua_script $lua_secs (median of $reps)"
	printf '  %-30s %10s %10s %8s\n' "" "perf dprof" baseline ratio
	for ((i = 0; i < reps; i++)); do
		timed /dev/null "$tmp/lua.err" "$PERF" dprof record -o "$tmp/F.data" \
			-- "$lua" "$lua_script" "$lua_secs"
		f_cpu+=("$t_cpu")
		f_size+=("$(stat -c %s "$tmp/F.data")")
		allocs=$(heap_log "$tmp/lua.err")
		timed /dev/null "$tmp/lua.err" "$PERF" dprof record --no-heap -o "$tmp/N.data" \
			-- "$lua" "$lua_script" "$lua_secs"
		n_cpu+=("$t_cpu")
		n_size+=("$(stat -c %s "$tmp/N.data")")
		rm -f "$tmp/N.data"
		timed "$tmp/lua.rep" "$tmp/rep.err" "$PERF" dprof report --stdio -i "$tmp/F.data"
		d_wall+=("$t_wall")
		d_rss+=("$t_rss")
		timed /dev/null "$tmp/rep.err" "$PERF" report --stdio --sort type -i "$tmp/F.data"
		p_wall+=("$t_wall")
		p_rss+=("$t_rss")
		rm -f "$tmp/F.data"
	done
	row "report wall (s)" "$(median "${d_wall[@]}")" "$(median "${p_wall[@]}")" \
		"<= 1.5" "perf report --stdio --sort type"
	row "report peak RSS (MB)" "$(div "$(median "${d_rss[@]}")" 1024 1)" \
		"$(div "$(median "${p_rss[@]}")" 1024 1)" \
		"<= 1.5" "perf report --stdio --sort type"
	row "perf.data (MB)" "$(mb "$(median "${f_size[@]}")")" "$(mb "$(median "${n_size[@]}")")" \
		"<= 2" "perf dprof record --no-heap"
	row "record CPU (s, perf + lua)" "$(median "${f_cpu[@]}")" "$(median "${n_cpu[@]}")" \
		"<= 1.3" "perf dprof record --no-heap"
	echo "  last run: heap log of ${allocs:-?}"
	grep -m1 '^# user heap:' "$tmp/lua.rep" | cut -c1-160 || true
}

# ---- runtime allocator ----

bench_python() {
	local i f_cpu=() n_cpu=() share=() allocs=""

	echo "runtime allocator: $python $py_script $py_rounds (median of $reps)"
	printf '  %-30s %10s %10s %8s\n' "" "perf dprof" baseline ratio
	for ((i = 0; i < reps; i++)); do
		timed /dev/null "$tmp/py.err" "$PERF" dprof record -o "$tmp/F.data" \
			-- "$python" "$py_script" "$py_rounds"
		f_cpu+=("$t_cpu")
		allocs=$(heap_log "$tmp/py.err")
		timed /dev/null "$tmp/py.err" "$PERF" dprof record --no-heap -o "$tmp/N.data" \
			-- "$python" "$py_script" "$py_rounds"
		n_cpu+=("$t_cpu")
		rm -f "$tmp/N.data"
		"$PERF" dprof report --stdio -i "$tmp/F.data" > "$tmp/py.rep" 2> /dev/null
		share+=("$(sed -nE 's/^# user heap objects: ([0-9.]+)% of samples.*/\1/p' \
			   "$tmp/py.rep")")
		rm -f "$tmp/F.data"
	done
	row "record CPU (s, perf + python)" "$(median "${f_cpu[@]}")" "$(median "${n_cpu[@]}")" \
		"<= 1.3" "perf dprof record --no-heap"
	printf '  %-30s %9s%%  goal >= 25%%  of the samples (before: 9.1%%)\n' \
		"samples in tracked heap objects" "$(median "${share[@]}")"
	echo "  last run: heap log of ${allocs:-?}"
}

# ---- server ----

# wait until the server on $port answers, or its process ($1) is gone
wait_port() {
	local i

	for ((i = 0; i < 300; i++)); do
		if "$redis_dir/redis-cli" -p "$port" ping 2> /dev/null | grep -q PONG; then
			return 0
		fi
		kill -0 "$1" 2> /dev/null || { echo "bench-alloc: the server did not start" >&2; return 1; }
		sleep 0.1
	done
	echo "bench-alloc: the server did not answer on port $port in 30 s" >&2
	return 1
}

# redis-benchmark against the server; sets rps: SET and GET together (all
# the requests over all their time)
drive() {
	run "$redis_dir/redis-benchmark" -h 127.0.0.1 -p "$port" -n "$requests" -r 100000 \
		-t set,get --csv > "$tmp/bench.csv" 2> "$tmp/bench.err" ||
		{ echo "bench-alloc: redis-benchmark failed" >&2; cat "$tmp/bench.err" >&2; exit 1; }
	rps=$(awk -F'"' '$2 == "SET" { s = $4 } $2 == "GET" { g = $4 }
		END { if (s > 0 && g > 0) printf "%.0f\n", 2 / (1 / s + 1 / g); else print 0 }' \
		"$tmp/bench.csv")
}

server_args=(--port "$port" --bind 127.0.0.1 --save "" --appendonly no
	--daemonize no --loglevel warning --dir "$tmp")

# stop the server cleanly; wait for PID (the server, or the perf it runs
# under); sets ok to 0 when it failed
stop_server() {
	"$redis_dir/redis-cli" -p "$port" shutdown nosave > /dev/null 2>&1 || true
	ok=1
	wait "$1" || ok=0
}

# the server under 'perf dprof record OPTS -o FILE', driven, shut down;
# sets rps
# usage: record_server FILE OPTS...
record_server() {
	local file=$1

	shift
	"$PERF" dprof record "$@" -o "$file" -- "$redis_dir/redis-server" "${server_args[@]}" \
		> "$tmp/server.out" 2> "$tmp/server.err" &
	perf_pid=$!
	wait_port "$perf_pid" || { tail -5 "$tmp/server.err" >&2; exit 1; }
	drive
	stop_server "$perf_pid"
	perf_pid=""
	if [ $ok = 0 ]; then
		echo "bench-alloc: perf dprof record $* -- redis-server failed" >&2
		tail -5 "$tmp/server.err" >&2
		exit 1
	fi
}

# a fresh server outside any recording, driven while 'PERF ARGS -- sleep
# 600' records the whole system, ended by a SIGINT once the benchmark is
# done; sets rps
# usage: throughput_under ARGS...
throughput_under() {
	local i

	"$redis_dir/redis-server" "${server_args[@]}" > "$tmp/server.out" 2>&1 &
	server_pid=$!
	wait_port "$server_pid" || { tail -5 "$tmp/server.out" >&2; exit 1; }
	"$PERF" "$@" -o "$tmp/A.data" -- sleep 600 > /dev/null 2> "$tmp/sys.err" &
	perf_pid=$!
	# recording once the file's header is written, and a second more
	for ((i = 0; i < 100; i++)); do
		[ -s "$tmp/A.data" ] && break
		kill -0 "$perf_pid" 2> /dev/null ||
			{ echo "bench-alloc: perf $* failed" >&2; tail -5 "$tmp/sys.err" >&2; exit 1; }
		sleep 0.1
	done
	sleep 1
	drive
	kill -INT "$perf_pid"
	# perf ends the sleep with a SIGTERM and exits with its status
	wait "$perf_pid" || true
	perf_pid=""
	grep -q 'Captured and wrote' "$tmp/sys.err" ||
		{ echo "bench-alloc: perf $* wrote nothing" >&2; tail -5 "$tmp/sys.err" >&2; exit 1; }
	# how perf dprof record -a followed the slab objects on this kernel
	if [ "$1" = dprof ]; then
		if "$PERF" evlist -i "$tmp/A.data" 2> /dev/null | grep -q '^kmem:slab_sample_alloc'; then
			kmem_mode="the slab map with sampled lifetimes"
		elif "$PERF" evlist -i "$tmp/A.data" 2> /dev/null | grep -q '^kmem:kmem_cache_alloc'; then
			kmem_mode="an event per slab object (this kernel has no slab map:"
			kmem_mode+=" kernel-patches/ 0005, 0012)"
		else
			kmem_mode="no slab events"
		fi
	fi
	rm -f "$tmp/A.data"
	stop_server "$server_pid"
	server_pid=""
}

# the rows of a server's figures, from its caller's arrays: s_size and
# n_size (files), d_wall and p_wall (reports), r_dprof and r_perf
# (throughputs), unk (shares of unknown frees)
server_rows() {
	local u

	row "perf.data (MB)" "$(mb "$(median "${s_size[@]}")")" "$(mb "$(median "${n_size[@]}")")" \
		"<= 3" "perf dprof record --no-heap --no-kmem"
	row "report wall (s)" "$(median "${d_wall[@]}")" "$(median "${p_wall[@]}")" \
		"<= 1.5" "perf report --stdio --sort type"
	row "throughput (requests/s)" "$(median "${r_dprof[@]}")" "$(median "${r_perf[@]}")" \
		">= 0.9" "perf record -a -e cpu-clock (dprof: -a --no-heap)"
	u=$(median "${unk[@]}")
	printf '  %-30s %9s%% %10s %8s  goal %-7s %-6s  of the kmem events (allocs + frees)\n' \
		"frees of unknown objects" "$u" "" "" "<= 1%" \
		"$(awk -v v="$u" 'BEGIN { print v <= 1 ? "ok" : "MISSED" }')"
}

bench_redis() {
	local i s_size=() n_size=() d_wall=() p_wall=() unk=() over=() r_dprof=() r_perf=()
	local under hdr kallocs kfrees ufrees overs allocs undecided=""

	if "$redis_dir/redis-cli" -p "$port" ping > /dev/null 2>&1; then
		echo "bench-alloc: something answers on port $port already (PORT=...)" >&2
		exit 1
	fi
	echo "server: $redis_dir/redis-server on 127.0.0.1:$port, redis-benchmark -n $requests -r 100000 -t set,get (median of $reps)"
	printf '  %-30s %10s %10s %8s\n' "" "perf dprof" baseline ratio
	for ((i = 0; i < reps; i++)); do
		record_server "$tmp/S.data"
		under=$rps
		allocs=$(heap_log "$tmp/server.err")
		# the kernel samples the record-end pass could not decode keep objects
		undecided=$(grep -m1 'kernel samples had no code bytes' "$tmp/server.err" |
			cut -c1-160 || true)
		s_size+=("$(stat -c %s "$tmp/S.data")")
		record_server "$tmp/N.data" --no-heap --no-kmem
		n_size+=("$(stat -c %s "$tmp/N.data")")
		rm -f "$tmp/N.data"
		timed "$tmp/redis.rep" "$tmp/rep.err" "$PERF" dprof report --stdio -i "$tmp/S.data"
		d_wall+=("$t_wall")
		timed /dev/null "$tmp/rep.err" "$PERF" report --stdio --sort type -i "$tmp/S.data"
		p_wall+=("$t_wall")
		rm -f "$tmp/S.data"
		hdr=$(grep -m1 '^# address set:' "$tmp/redis.rep" || true)
		kallocs=$(echo "$hdr" | sed -nE 's/.* ([0-9]+) allocs, ([0-9]+) frees.*/\1/p')
		kfrees=$(echo "$hdr" | sed -nE 's/.* ([0-9]+) allocs, ([0-9]+) frees.*/\2/p')
		hdr=$(grep -m1 '^# lifetimes:' "$tmp/redis.rep" || true)
		ufrees=$(echo "$hdr" | sed -nE 's/.* ([0-9]+) frees of unknown objects.*/\1/p')
		overs=$(echo "$hdr" | sed -nE 's/.* ([0-9]+) allocations over a live object.*/\1/p')
		if [ -z "$kallocs" ] || [ -z "$ufrees" ] || [ -z "$overs" ]; then
			echo "bench-alloc: no '# address set:' or '# lifetimes:' line in the report" >&2
			exit 1
		fi
		unk+=("$(div "$((100 * ufrees))" "$((kallocs + kfrees))" 2)")
		over+=("$(div "$((100 * overs))" "$((kallocs + kfrees))" 2)")
		# each first in turn
		if ((i % 2 == 0)); then
			throughput_under dprof record -a --no-heap
			r_dprof+=("$rps")
			throughput_under record -a -e cpu-clock
			r_perf+=("$rps")
		else
			throughput_under record -a -e cpu-clock
			r_perf+=("$rps")
			throughput_under dprof record -a --no-heap
			r_dprof+=("$rps")
		fi
	done
	server_rows
	printf '  %-30s %9s%% %10s %8s  %-12s %-6s  of the kmem events\n' \
		"allocations over a live object" "$(median "${over[@]}")" "" "" "" ""
	echo "  last run: heap log of ${allocs:-?}; $kallocs kmem allocs, $kfrees kmem frees," \
		"$ufrees frees of unknown objects, $overs allocations over a live object;" \
		"$under requests/s under perf dprof record -- redis-server"
	grep -m1 '^# objects allocated before recording:' "$tmp/redis.rep" | cut -c1-160 || true
	grep -m1 '^# user heap:' "$tmp/redis.rep" | cut -c1-160 || true
	echo "  record -a's slab objects: ${kmem_mode:-?}"
	[ -z "$undecided" ] || echo "$undecided"
}

# ---- server in the guest ----

# the guest's part of bench_guest_redis: REPS rounds of the server
# recorded and driven, then driven while the guest is recorded whole;
# its files in the job dir (/mnt)
guest_script() {
	cat <<EOF
set -u
ip link set lo up || exit 3
R='$redis_dir' P='$PERF' N=$guest_requests
EOF
	cat <<'EOF'
srv=("$R/redis-server" --port 16379 --bind 127.0.0.1 --save "" --appendonly no
     --daemonize no --loglevel warning --dir /tmp)
# up PID: the server answers, or PID is gone
up() {
	local i

	for i in $(seq 600); do
		"$R/redis-cli" -p 16379 ping 2> /dev/null | grep -q PONG && return 0
		kill -0 "$1" 2> /dev/null || return 1
		sleep 0.1
	done
	return 1
}
# SETs then GETs: the requests per second of both together
drive() {
	"$R/redis-benchmark" -h 127.0.0.1 -p 16379 -n "$N" -r 100000 -t set,get --csv \
		> /tmp/b.csv 2> /dev/null || return 1
	awk -F'"' '$2 == "SET" { s = $4 } $2 == "GET" { g = $4 }
		END { if (s > 0 && g > 0) printf "%.0f\n", 2 / (1 / s + 1 / g); else exit 1 }' /tmp/b.csv
}
stop() {
	"$R/redis-cli" -p 16379 shutdown nosave > /dev/null 2>&1
	wait "$1"
}
# rec TAG OPTS...: the server under perf dprof record OPTS, to /mnt/TAG.data
rec() {
	local tag=$1 pid

	shift
	"$P" dprof record "$@" -o "/tmp/$tag.data" -- "${srv[@]}" > "/mnt/$tag.err" 2>&1 &
	pid=$!
	up $pid && drive > "/mnt/$tag.rps" && stop $pid &&
		cp "/tmp/$tag.data" /mnt/ && rm "/tmp/$tag.data"
}
# under TAG PERF_ARGS...: the server driven while perf PERF_ARGS -- sleep
# records the guest, ended by a SIGINT once the benchmark is done
under() {
	local tag=$1 pid ppid i

	shift
	"${srv[@]}" > /dev/null 2>&1 &
	pid=$!
	up $pid || return 1
	"$P" "$@" -o /tmp/A.data -- sleep 600 > /dev/null 2> "/mnt/$tag.err" &
	ppid=$!
	for i in $(seq 100); do
		[ -s /tmp/A.data ] && break
		sleep 0.1
	done
	sleep 1
	drive > "/mnt/$tag.rps" || return 1
	kill -INT $ppid
	wait $ppid
	stat -c %s /tmp/A.data > "/mnt/$tag.size"
	rm -f /tmp/A.data
	stop $pid
}
EOF
	cat <<EOF
for i in \$(seq $reps); do
	rec S\$i || exit 1
	rec N\$i --no-heap --no-kmem || exit 1
	# each first in turn
	if [ \$((i % 2)) = 1 ]; then
		under D\$i dprof record -a --no-heap || exit 1
		under P\$i record -a -e cpu-clock || exit 1
	else
		under P\$i record -a -e cpu-clock || exit 1
		under D\$i dprof record -a --no-heap || exit 1
	fi
	# the file as recorded before the record-end pass (every object's
	# events), with the slab map, and every object's events pruned
	under O\$i dprof record -a --no-heap --no-prune --kmem-events=objects || exit 1
	under M\$i dprof record -a --no-heap --kmem-events=map || exit 1
	under E\$i dprof record -a --no-heap --kmem-events=objects || exit 1
	# the map without the kernel's sampled lifetimes (kernel-patches/0012),
	# which the map has by default where the kernel has them
	[ -d /sys/kernel/tracing/events/kmem/slab_sample_alloc ] || continue
	under L\$i dprof record -a --no-heap --kmem-events=map --kmem-sample=0 || exit 1
done
EOF
}

bench_guest_redis() {
	local i s_size=() n_size=() d_wall=() p_wall=() unk=() r_dprof=() r_perf=()
	local a_d=() a_o=() a_m=() a_p=() r_map=() r_lives=() r_objs=() lost k
	local g=$tmp/guest vmlinux=$BUILD_DIR/kernel/vmlinux hdr kallocs kfrees ufrees

	echo "server in the guest: $redis_dir/redis-server, redis-benchmark -n $guest_requests" \
		"-r 100000 -t set,get, 2-CPU QEMU guest (median of $reps)"
	mkdir -p "$g"
	guest_script > "$g/run.sh"
	if ! VM_JOBDIR=$g VM_TIMEOUT=$((600 * reps)) run "$REPO/scripts/run-in-vm.sh" \
			"$BUILD_DIR/kernel/arch/x86/boot/bzImage" "bash /mnt/run.sh" \
			> "$g/vm.log" 2>&1; then
		echo "bench-alloc: the guest's runs failed" >&2
		tail -5 "$g/vm.log" "$g"/*.err >&2
		exit 1
	fi
	printf '  %-30s %10s %10s %8s\n' "" "perf dprof" baseline ratio
	# the typings a first report keeps, as for a recording reported before
	"$PERF" dprof report --stdio --type-cache-dir="$g/tc" -k "$vmlinux" -i "$g/S1.data" \
		> /dev/null 2>&1
	for ((i = 1; i <= reps; i++)); do
		s_size+=("$(stat -c %s "$g/S$i.data")")
		n_size+=("$(stat -c %s "$g/N$i.data")")
		timed "$g/S.rep" "$g/rep.err" "$PERF" dprof report --stdio \
			--type-cache-dir="$g/tc" -k "$vmlinux" -i "$g/S$i.data"
		d_wall+=("$t_wall")
		timed /dev/null "$g/rep.err" "$PERF" report --stdio --sort type -k "$vmlinux" \
			-i "$g/S$i.data"
		p_wall+=("$t_wall")
		hdr=$(grep -m1 '^# address set:' "$g/S.rep" || true)
		kallocs=$(echo "$hdr" | sed -nE 's/.* ([0-9]+) allocs, ([0-9]+) frees.*/\1/p')
		kfrees=$(echo "$hdr" | sed -nE 's/.* ([0-9]+) allocs, ([0-9]+) frees.*/\2/p')
		hdr=$(grep -m1 '^# lifetimes:' "$g/S.rep" || true)
		ufrees=$(echo "$hdr" | sed -nE 's/.* ([0-9]+) frees of unknown objects.*/\1/p')
		if [ -z "$kallocs" ] || [ -z "$ufrees" ]; then
			echo "bench-alloc: no '# address set:' or '# lifetimes:' line in the report" >&2
			exit 1
		fi
		unk+=("$(div "$((100 * ufrees))" "$((kallocs + kfrees))" 2)")
		r_dprof+=("$(cat "$g/D$i.rps")")
		r_perf+=("$(cat "$g/P$i.rps")")
		# MB per 1k requests (SETs and GETs) of each -a recording
		k=$((2 * guest_requests / 1000))
		a_d+=("$(div "$(cat "$g/D$i.size")" "$((k * 1048576))" 3)")
		a_o+=("$(div "$(cat "$g/O$i.size")" "$((k * 1048576))" 3)")
		a_m+=("$(div "$(cat "$g/M$i.size")" "$((k * 1048576))" 3)")
		a_p+=("$(div "$(cat "$g/P$i.size")" "$((k * 1048576))" 3)")
		r_map+=("$(cat "$g/M$i.rps")")
		r_objs+=("$(cat "$g/E$i.rps")")
		[ ! -f "$g/L$i.rps" ] || r_lives+=("$(cat "$g/L$i.rps")")
	done
	server_rows
	row "-a file (MB / 1k requests)" "$(median "${a_d[@]}")" "$(median "${a_o[@]}")" \
		"<= 0.1" "--no-prune: as recorded (dprof: pruned, samples decoded)"
	row "-a file, slab map" "$(median "${a_m[@]}")" "$(median "${a_o[@]}")" \
		"<= 0.1" "--no-prune (dprof: --kmem-events=map)"
	row "throughput, slab map" "$(median "${r_map[@]}")" "$(median "${r_perf[@]}")" \
		">= 0.9" "perf record -a -e cpu-clock (dprof: -a --no-heap --kmem-events=map)"
	echo "  throughput with every object's events (--kmem-events=objects):" \
		"$(div "$(median "${r_objs[@]}")" "$(median "${r_perf[@]}")" 2)x of perf record's"
	[ ${#r_lives[@]} = 0 ] ||
		row "throughput, map, no lives" "$(median "${r_lives[@]}")" \
			"$(median "${r_perf[@]}")" ">= 0.9" \
			"perf record -a -e cpu-clock (dprof: ... --kmem-events=map --kmem-sample=0)"
	echo "  -a file of perf record -a -e cpu-clock: $(median "${a_p[@]}") MB / 1k requests"
	lost=$(cat "$g"/[DOME]*.err | grep -ci 'lost' || true)
	echo "  lines telling of lost events in the -a recordings' output: $lost"
	echo "  last run, launched: $(sed -n 's/^\[ perf dprof: \(kmem events of .*\) \]$/\1/p' \
		"$g/S$reps.err")"
	echo "  last run, -a: $(sed -n 's/^\[ perf dprof: \(kmem events of .*\) \]$/\1/p' \
		"$g/D$reps.err")"
}

echo "perf dprof on real programs: $PERF, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
skipped=0
# part HAVE FUNC WHY: FUNC's figures after a blank line, or WHY it was not
# measured (HAVE 0), or nothing (not asked for)
part() {
	[ "$1" != - ] || return 0
	echo
	if [ "$1" = 1 ]; then
		"$2"
	else
		echo "$3"
		skipped=1
	fi
}
part $have_lua bench_lua "interpreter: no $lua or $lua_script: not measured"
part $have_python bench_python "runtime allocator: no $python or $py_script: not measured"
part $have_redis bench_redis \
	"server: no redis-server, redis-benchmark, redis-cli in $redis_dir: not measured"
part $have_guest bench_guest_redis \
	"server in the guest: no guest kernel ($BUILD_DIR/kernel: make kernel), QEMU or redis: not measured"
[ $skipped = 0 ] || exit 2

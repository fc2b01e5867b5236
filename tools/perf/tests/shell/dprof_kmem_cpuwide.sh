#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: a launched workload's kmem address set is CPU-wide (exclusive)
#
# A loopback TCP echo server (lib/dprof_echo.c) runs under perf dprof
# record, its client outside the recording: a message is an sk_buff the
# client allocates and the server's task frees (reading it, or in the
# softirq of the ACK it sends), its echo the other way round, and the
# server's socket of a connection is made in the client's softirq.
# perf dprof record records the kmem tracepoints of a launched workload
# on every CPU (the system-wide term, patches/perf/0058), so each
# lifetime is seen whole: the report header's "# lifetimes:" line, which
# counts the frees and allocations in the recorded tasks, must give at
# most 1% of frees of unknown objects and at most 1% of allocations over
# a live object, and say that the address set holds other tasks' events.
# With --kmem-per-task (the tracepoints follow the server's task, as the
# samples do) each share must be over 10%: the test fails without the
# CPU-wide address set.  Without CAP_PERFMON a launched workload's kmem
# events stay per task, and record says so in one line.
#
# DPROF_ECHO_CONNS connections (default 500) of DPROF_ECHO_MSGS messages
# (default 100), the server and the client on one CPU: each blocks in
# read, its socket free, when the other's message comes, so that the
# skbs change tasks every time (on two CPUs, only as often as that
# race goes one way).  The frees of the objects of perf's own mm, which
# the server's exec drops (copied when perf forked it, before
# recording), are some 500 frees of unknown objects: 0.5% of this
# workload's.  A recording that lost events skips the test: their frees
# are unseen.

set -u

conns=${DPROF_ECHO_CONNS:-500}
msgs=${DPROF_ECHO_MSGS:-100}
# the first CPU this test may run on
cpu=$(taskset -cp $$ 2> /dev/null | sed -n 's/.*: *\([0-9]*\).*/\1/p')
cpu=${cpu:-0}
tmp=$(mktemp -d /tmp/__perf_test.dprof_kmem_cpuwide.XXXXX)
trap 'rm -rf "${tmp}"' EXIT

skip() {
	echo "dprof kmem cpuwide test [Skipped: $*]"
	exit 2
}

fail() {
	echo "dprof kmem cpuwide test [Failed: $*]"
	err=1
}

command -v gcc > /dev/null || skip "no gcc to build the server"
command -v taskset > /dev/null || skip "no taskset to put the server and its client on one CPU"
if ! perf record -q -o "${tmp}/probe.data" -e 'kmem:kfree/system-wide/' -- true \
		> /dev/null 2>&1; then
	skip "cannot record kmem tracepoints CPU-wide (root, CAP_PERFMON or perf_event_paranoid -1)"
fi
if ! gcc -O2 -o "${tmp}/echo" "$(dirname "$0")/lib/dprof_echo.c" 2> "${tmp}/cc.err"; then
	echo "dprof kmem cpuwide test [Failed: build the server]"
	cat "${tmp}/cc.err"
	exit 1
fi

# lifetimes NAME [OPTIONS...]: record the server under perf dprof record
# with OPTIONS, the client outside; the header's lifetimes line in
# ${tmp}/NAME.life
lifetimes() {
	local name=$1 rec

	shift
	rm -f "${tmp}/port"
	perf dprof record --sampler=soft --no-heap -c 1000000 "$@" -o "${tmp}/${name}.data" \
		-- taskset -c "${cpu}" "${tmp}/echo" server "${tmp}/port" "${conns}" \
		> "${tmp}/${name}.rec" 2>&1 &
	rec=$!
	for _ in $(seq 300); do
		[ -e "${tmp}/port" ] && break
		kill -0 "${rec}" 2> /dev/null || break
		sleep 0.1
	done
	if [ ! -e "${tmp}/port" ]; then
		kill "${rec}" 2> /dev/null
		wait "${rec}"
		echo "dprof kmem cpuwide test [Failed: ${name}: the server did not start]"
		cat "${tmp}/${name}.rec"
		exit 1
	fi
	taskset -c "${cpu}" "${tmp}/echo" client "${tmp}/port" "${conns}" "${msgs}" ||
		fail "${name}: the client failed"
	if ! wait "${rec}"; then
		echo "dprof kmem cpuwide test [Failed: ${name}: perf dprof record]"
		cat "${tmp}/${name}.rec"
		exit 1
	fi
	perf dprof report --stdio -i "${tmp}/${name}.data" > "${tmp}/${name}.report" 2> /dev/null
	grep -m1 '^# lifetimes:' "${tmp}/${name}.report" > "${tmp}/${name}.life"
	# lost events leave frees unseen: the shares would say nothing
	if grep -q '^# LOST' "${tmp}/${name}.report"; then
		skip "${name}: $(grep -m1 -o '^# LOST [0-9]* events' "${tmp}/${name}.report" |
			cut -c3-) while recording (a busy machine)"
	fi
}

# share WHAT FILE: the percentage the lifetimes line gives for WHAT
share() {
	local what

	case $1 in
	unknown)	what="frees of unknown objects";;
	over)		what="allocations over a live object";;
	esac
	sed -n "s/.* ${what} (\([0-9.]*\)% of [0-9]* .*/\1/p" "$2"
}

# check NAME CMP LIMIT: both shares of NAME are CMP ("le" or "gt") LIMIT
check() {
	local what s

	for what in unknown over; do
		s=$(share "${what}" "${tmp}/$1.life")
		if [ -z "${s}" ]; then
			fail "$1: no ${what} share in the lifetimes line: $(cat "${tmp}/$1.life")"
		elif ! awk -v s="${s}" -v l="$3" -v c="$2" \
				'BEGIN { exit !(c == "le" ? s <= l : s > l) }'; then
			fail "$1: ${what} share ${s}%, want $2 $3%: $(cat "${tmp}/$1.life")"
		fi
	done
}

err=0
lifetimes cpuwide
grep -q "^dprof: kmem events per task" "${tmp}/cpuwide.rec" &&
	fail "cpuwide: recorded per task: $(grep -m1 '^dprof: kmem' "${tmp}/cpuwide.rec")"
perf evlist -v -i "${tmp}/cpuwide.data" 2> /dev/null | grep '^kmem:kfree' |
	grep -q 'enable_on_exec: 1' && fail "cpuwide: kmem:kfree waits for the exec (per task)"
grep -q "counted in the recorded tasks: the address set also holds [1-9]" "${tmp}/cpuwide.life" ||
	fail "cpuwide: no other task's kmem events: $(cat "${tmp}/cpuwide.life")"
check cpuwide le 1
echo "CPU-wide: $(cat "${tmp}/cpuwide.life")"

lifetimes pertask --kmem-per-task
check pertask gt 10
echo "per task: $(cat "${tmp}/pertask.life")"

# Without CAP_PERFMON, at perf_event_paranoid > -1: per task, said once
# (root keeps tracefs as its owner; only the capabilities go).
if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt -1 ] &&
   setpriv --inh-caps=-all --bounding-set=-all true 2> /dev/null; then
	setpriv --inh-caps=-all --bounding-set=-all perf dprof record --sampler=soft \
		--no-heap --dry-run -o "${tmp}/dry.data" -- true > /dev/null 2> "${tmp}/dry.err"
	want="^dprof: kmem events per task (CPU-wide needs CAP_PERFMON or"
	want+=" kernel.perf_event_paranoid=-1): objects allocated or freed in other tasks'"
	want+=" contexts are seen half$"
	[ "$(grep -c "${want}" "${tmp}/dry.err")" = 1 ] ||
		fail "no CAP_PERFMON: no line saying the kmem events stay per task:" \
		     "$(head -3 "${tmp}/dry.err")"
fi
exit $err

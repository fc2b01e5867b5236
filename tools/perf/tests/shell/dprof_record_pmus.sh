#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: record's command line for IBS, PEBS, hybrid and SPE machines (sysfs fixtures)
#
# The perf record command line of 'perf dprof record' is a function of the
# machine's PMUs (sysfs), CPU vendor (/proc/cpuinfo), CPU count and
# privileges.  SYSFS_PATH and PROCFS_PATH point perf at a fixture tree
# for each platform: AMD Zen 2 and Zen 4 IBS, Intel Skylake-SP, Sapphire
# Rapids (the {mem-loads-aux,mem-loads} group) and Alder Lake (cpu_core
# + cpu_atom) PEBS, Arm Neoverse SPE.  perf record --dry-run then parses
# the events against the fixture's format files, so every event dprof
# writes must be one perf accepts there, and each must carry the period
# and latency threshold on the event that samples.  Unprivileged runs
# (setpriv) check the permission lines and the fallback to the
# software sampler.

set -u

tmp=$(mktemp -d /tmp/__perf_test.dprof_record_pmus.XXXXX)
trap 'rm -rf "${tmp}"' EXIT

err=0
fail() {
	echo "dprof record PMUs test [Failed: $*]"
	err=1
}

# pmu ROOT NAME TYPE FORMAT=SPEC... [event:NAME=SPEC...] [cpus=LIST]
pmu() {
	local root=$1 name=$2 type=$3 d arg

	d=$root/sys/bus/event_source/devices/$name
	mkdir -p "$d/format" "$d/events"
	echo "$type" > "$d/type"
	shift 3
	for arg in "$@"; do
		case $arg in
		event:*) arg=${arg#event:}; echo "${arg#*=}" > "$d/events/${arg%%=*}" ;;
		cpus=*) echo "${arg#cpus=}" > "$d/cpus" ;;
		*) echo "${arg#*=}" > "$d/format/${arg%%=*}" ;;
		esac
	done
}

# machine ROOT VENDOR CPUS PARANOID KERNEL
machine() {
	mkdir -p "$1/sys/devices/system/cpu" "$1/proc/sys/kernel"
	printf 'processor\t: 0\nvendor_id\t: %s\n' "$2" > "$1/proc/cpuinfo"
	[ "$2" = ARM ] && printf 'processor\t: 0\nCPU implementer\t: 0x41\n' > "$1/proc/cpuinfo"
	echo "$3" > "$1/sys/devices/system/cpu/online"
	echo "$4" > "$1/proc/sys/kernel/perf_event_paranoid"
	echo "$5" > "$1/proc/sys/kernel/osrelease"
}

intel_core() {	# ROOT NAME TYPE [aux] [cpus=...]
	local root=$1 name=$2 type=$3 extra=()

	shift 3
	[ "${1:-}" = aux ] && { extra+=("event:mem-loads-aux=event=0x03,umask=0x82"); shift; }
	pmu "$root" "$name" "$type" event=config:0-7 umask=config:8-15 \
		ldlat=config1:0-15 "event:mem-loads=event=0xcd,umask=0x1,ldlat=3" \
		"event:mem-stores=event=0xd0,umask=0x82" "${extra[@]}" "$@"
}

ibs() {		# ROOT [l3missonly]
	pmu "$1" ibs_op 11 cnt_ctl=config:19 ${2:+l3missonly=config:16}
}

spe() {
	pmu "$1" arm_spe_0 10 ts_enable=config:0 pa_enable=config:1 pct_enable=config:2 \
		jitter=config:16 branch_filter=config:32 load_filter=config:33 \
		store_filter=config:34 event_filter=config1:0-63 min_latency=config2:0-11
}

z2=$tmp/zen2; machine "$z2" AuthenticAMD 0-127 -1 6.1.0; ibs "$z2"
z4=$tmp/zen4; machine "$z4" AuthenticAMD 0-383 -1 6.12.0; ibs "$z4" l3missonly
skx=$tmp/skx; machine "$skx" GenuineIntel 0-111 -1 6.12.0; intel_core "$skx" cpu 4
spr=$tmp/spr; machine "$spr" GenuineIntel 0-223 -1 6.12.0; intel_core "$spr" cpu 4 aux
adl=$tmp/adl; machine "$adl" GenuineIntel 0-23 -1 6.12.0
intel_core "$adl" cpu_core 4 aux cpus=0-15; intel_core "$adl" cpu_atom 10 cpus=16-23
spe=$tmp/spe; machine "$spe" ARM 0-63 -1 6.12.0; spe "$spe"

# argv ROOT [USER] DPROF-OPTIONS...: perf dprof record's perf record
# arguments up to the kmem tracepoints, on one line; exit status of
# perf record --dry-run in $tmp/rc, stderr in $tmp/err
argv() {
	local root=$1 run=()

	shift
	if [ "$1" = nobody ]; then
		run=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
		shift
	fi
	SYSFS_PATH=$root/sys PROCFS_PATH=$root/proc "${run[@]}" \
		perf dprof record -v --no-kmem --no-heap --dry-run -o "$tmp/out.data" "$@" -- true \
		> /dev/null 2> "$tmp/err"
	echo $? > "$tmp/rc"
	sed -n 's/^calling: perf record //p' "$tmp/err" | sed 's/ --dry-run.*//'
}

# expect NAME WANT ROOT ARGS...: perf record accepts it, and it is WANT
expect() {
	local name=$1 want=$2 got

	shift 2
	got=$(argv "$@")
	if [ "$(cat "$tmp/rc")" != 0 ]; then
		fail "$name: perf record --dry-run failed:" \
		     "$(grep -v '^calling' "$tmp/err" | head -3)"
	elif [ "$got" != "$want" ]; then
		fail "$name: got '$got', want '$want'"
	else
		echo "$name: $got"
	fi
}

m=(--sample-cpu -T -m)
expect "zen2 IBS -c 10007 (rounded)" \
	"${m[*]} 4096K -W -d -e ibs_op/period=10000/" "$z2" -c 10007 -a
grep -q "^dprof: AMD IBS periods are multiples of 16: -c 10007 rounded to 10000" "$tmp/err" ||
	fail "zen2: the rounding is not said: $(cat "$tmp/err")"
expect "zen2 IBS --l3missonly (not offered)" \
	"${m[*]} 4096K -W -d -e ibs_op//" "$z2" --l3missonly -a
grep -q "^dprof: --l3missonly: this ibs_op has no l3missonly" "$tmp/err" ||
	fail "zen2: --l3missonly without the format is not said"
expect "zen4 IBS --l3missonly -F 2000, 384 CPUs" \
	"${m[*]} 1024K -W -d -e ibs_op/l3missonly=1,freq=2000/" "$z4" --l3missonly -F 2000
want="${m[*]} 4096K -W -d -e cpu/mem-loads,ldlat=8,period=20000/P"
want+=" -e cpu/mem-stores,period=20000/P"
expect "skx PEBS -c 20000 --ldlat 8" "$want" "$skx" -c 20000 --ldlat 8
want="${m[*]} 2048K -W -d -e {cpu/mem-loads-aux/,cpu/mem-loads,ldlat=30,period=20000/}:P"
want+=" -e cpu/mem-stores,period=20000/P"
expect "spr PEBS aux group -c 20000" "$want" "$spr" -c 20000
want="${m[*]} 8192K -W -d -e {cpu_core/mem-loads-aux/,cpu_core/mem-loads,ldlat=30,freq=999/}:P"
want+=" -e cpu_core/mem-stores,freq=999/P -e cpu_atom/mem-loads,ldlat=30,freq=999/P"
want+=" -e cpu_atom/mem-stores,freq=999/P"
expect "adl hybrid -F 999" "$want" "$adl" -F 999
want="${m[*]} 8192K -W -d"
want+=" -e arm_spe_0/ts_enable=1,load_filter=1,store_filter=1,min_latency=64,period=4096/"
expect "neoverse SPE -c 4096 --ldlat 64" "$want" "$spe" -c 4096 --ldlat 64
# min_latency filters stores too: --ldlat 0 turns the filter off (classify)
expect "neoverse SPE --ldlat 0" \
	"${m[*]} 8192K -W -d -e arm_spe_0/ts_enable=1,load_filter=1,store_filter=1,min_latency=0/" \
	"$spe" --ldlat 0
got=$(argv "$skx" --sampler=soft)
case $got in
*mem-loads*|*"-W"*) fail "--sampler=soft: the memory PMU is used: $got" ;;
*"-e cpu-clock"*) echo "skx --sampler=soft: $got" ;;
*) fail "--sampler=soft: no cpu-clock: $got" ;;
esac

# The report says the threshold the recording used: perf evlist's config1
# of the load event (ldlat), none for IBS; for SPE config2 (min_latency),
# which filters stores too.
if perf test -w dprof_cachemodel 2>&1 | grep -q SCENARIO; then
	for p in pebs ibs spe; do
		perf test -w dprof_cachemodel mixed 1 2 16384 7 $p "$tmp/$p.data" >/dev/null 2>&1 ||
			{ fail "cannot synthesize a $p recording"; continue; }
		want=$(perf evlist -v -i "$tmp/$p.data" 2>/dev/null |
		       sed -n 's/^[^:]*mem-loads[^:]*:.*config1 }: \(0x[0-9a-f]*\).*/\1/p')
		got=$(perf dprof report --stdio -i "$tmp/$p.data" 2>/dev/null |
		      sed -n 's/^# load latency threshold: //p; s/^# latency threshold: //p')
		if [ $p = spe ]; then
			want=$(perf evlist -v -i "$tmp/$p.data" 2>/dev/null |
			       sed -n 's/^arm_spe_0.*config2 }: \(0x[0-9a-f]*\).*/\1/p')
			want="$((want & 0xfff)) cycles (SPE min_latency, on loads and stores alike)"
			case $got in
			"$want"*) ;;
			*) fail "$p: header '$got', perf evlist: $want" ;;
			esac
		elif [ -n "$want" ]; then
			want="$((want & 0xffff)) cycles (PEBS ldlat)"
			case $got in
			"$want"*) ;;
			*) fail "$p: header '$got', perf evlist: $want" ;;
			esac
		else
			case $got in "none (IBS samples every op)"*) ;;
			*) fail "$p: header '$got', want none" ;; esac
		fi
		echo "$p recording: load latency threshold: ${got%%:*}"
	done
fi

# A PMU sysfs describes but the kernel refuses (here: a type no PMU has):
# the default sampler opens it first and falls back to the software
# sampler with one line; --sampler=mem leaves the error to perf record.
bad=$tmp/zen-hidden; machine "$bad" AuthenticAMD 0-1 -1 6.12.0
pmu "$bad" ibs_op 4242 cnt_ctl=config:19
if perf record -o /dev/null -e cpu-clock --intr-regs=ip -- true > /dev/null 2>&1; then
	before=${err}
	SYSFS_PATH=$bad/sys PROCFS_PATH=$bad/proc perf dprof record --no-kmem --no-heap \
		-o "$tmp/hidden.data" -- true > /dev/null 2> "$tmp/err"
	rc=$?
	grep -q "^dprof: the memory PMU did not open (.*); sampling cpu-clock" "$tmp/err" ||
		fail "a PMU the kernel refuses: no fallback line: $(head -3 "$tmp/err")"
	evs=$(perf evlist -i "$tmp/hidden.data" 2> /dev/null)
	[ "$rc" = 0 ] && echo "$evs" | grep -q '^cpu-clock' && ! echo "$evs" | grep -q ibs_op ||
		fail "a PMU the kernel refuses: no cpu-clock recording (rc $rc): $evs"
	SYSFS_PATH=$bad/sys PROCFS_PATH=$bad/proc perf dprof record --no-kmem --no-heap \
		--sampler=mem -o "$tmp/hidden.data" -- true > /dev/null 2>&1 &&
		fail "a PMU the kernel refuses, --sampler=mem: recorded anyway"
	[ "${err}" = "${before}" ] && echo "refused PMU: fell back to cpu-clock"
else
	echo "refused PMU: not checked (no cpu-clock sampling with registers)"
fi

# Privileges: only where setpriv can drop them.
if [ "$(id -u)" = 0 ] &&
   setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all true 2>/dev/null; then
	chmod -R a+rX "$tmp"
	echo 2 > "$z4/proc/sys/kernel/perf_event_paranoid"
	argv "$z4" nobody > "$tmp/got"
	want="^dprof: AMD IBS cannot leave the kernel out: it needs kernel.perf_event_paranoid <= 1"
	want+=" (it is 2) or CAP_PERFMON; sampling cpu-clock"
	grep -q "$want" "$tmp/err" ||
		fail "zen4, paranoid 2, no CAP_PERFMON: no fallback line: $(head -2 "$tmp/err")"
	grep -q -- "-e cpu-clock" "$tmp/got" && ! grep -q ibs_op "$tmp/got" ||
		fail "zen4, paranoid 2: did not fall back to cpu-clock: $(cat "$tmp/got")"
	argv "$z4" nobody --sampler=mem > "$tmp/got"
	[ "$(cat "$tmp/rc")" != 0 ] && [ ! -s "$tmp/got" ] &&
		grep -q "^dprof: AMD IBS cannot leave the kernel out" "$tmp/err" ||
		fail "zen4, paranoid 2, --sampler=mem: no single error line"
	argv "$z4" nobody -a > "$tmp/got"
	want="^dprof: -a/-C (CPU-wide) needs kernel.perf_event_paranoid <= 0 (it is 2)"
	want+=" or CAP_PERFMON"
	[ "$(cat "$tmp/rc")" != 0 ] && grep -q "$want" "$tmp/err" ||
		fail "-a at paranoid 2: no dprof line naming the knob: $(head -2 "$tmp/err")"
	echo 1 > "$z2/proc/sys/kernel/perf_event_paranoid"
	argv "$z2" nobody > "$tmp/got"
	want="^dprof: AMD IBS samples a single task from kernel 6.2 on (this is 6.1):"
	want+=" record with -a"
	grep -q "$want" "$tmp/err" ||
		fail "zen2 on 6.1 per task: no line suggesting -a: $(head -2 "$tmp/err")"
	echo 2 > "$skx/proc/sys/kernel/perf_event_paranoid"
	argv "$skx" nobody > "$tmp/got"
	grep -q "cpu/mem-loads" "$tmp/got" ||
		fail "skx, paranoid 2: PEBS samples user space there, yet was dropped"
	echo "privileges: fallback and knob lines checked"
else
	echo "privileges: not checked (needs root and setpriv)"
fi

exit $err

#!/bin/bash
# Benchmark (not a test): what following objects with the slab_watch PMU
# costs the workload, in the guest.
#
#   scripts/bench-watch.sh [CACHE:OFFSET/LEN]     (default filp:0/8)
#
# Boots the guest kernel (make kernel) and runs the churn workload's
# open/read/close loop (scripts/guest/churn.c -m o, one pinned thread per
# CPU, BENCH_SECONDS each, default 3) four times:
#   bare       no perf
#   kmem       perf record -a of the kmem alloc/free tracepoints (the address
#              set a watch needs anyway)
#   watch      kmem + the slab_watch event, patience 64
#   arm-only   kmem + a write-only watch on bytes the loop never writes after
#              the allocation: every object is armed and disarmed, but hardly
#              trapped, so this isolates the cost of arming
# and prints loops/s, the ratio of each to bare and to kmem, histories/s
# (objects with a hit per second) and the extra CPU time per followed object
# (2 CPUs: the guest's default).
# Under TCG a debug exception and a breakpoint register write cost far
# more than on hardware: the ratios are upper bounds of the real cost.
#
# env: BUILD_DIR, PERF (default $BUILD_DIR/perf/perf), BENCH_SECONDS,
#      BENCH_ARM_ONLY (default filp:0x30/8: f_flags ... written at init only)
set -eu

# shellcheck source=lib/env.sh
. "$(dirname "$0")/lib/env.sh"
PERF=${PERF:-$BUILD_DIR/perf/perf}
CHURN=$BUILD_DIR/guest/churn
kernel=$BUILD_DIR/kernel/arch/x86/boot/bzImage
watch=${1:-filp:0/8}
arm_only=${BENCH_ARM_ONLY:-filp:0x30/8}
secs=${BENCH_SECONDS:-3}

die() { echo "bench-watch: $*" >&2; exit 1; }
[ -x "$PERF" ] || die "no perf at $PERF (make)"
[ -f "$kernel" ] || die "no guest kernel at $kernel (make kernel)"
mkdir -p "${CHURN%/*}"
if [ ! -x "$CHURN" ] || [ "$REPO/scripts/guest/churn.c" -nt "$CHURN" ]; then
	gcc -O2 -g -Wall -pthread -o "$CHURN" "$REPO/scripts/guest/churn.c" || die "cannot build $CHURN"
fi

job=$(mktemp -d /tmp/bench-watch.XXXXXX)
[ "${BENCH_KEEP:-0}" = 1 ] && echo "bench-watch: keeping $job" >&2 || trap 'rm -rf "$job"' EXIT

# shellcheck disable=SC2016
PERF=$PERF CHURN=$CHURN W=$watch A=$arm_only S=$secs VM_ENV="PERF CHURN W A S" \
VM_JOBDIR=$job VM_SHARES=$(dirname "$(readlink -f "$PERF")") VM_TIMEOUT=900 \
"$REPO/scripts/run-in-vm.sh" "$kernel" '
[ -d /sys/bus/event_source/devices/slab_watch ] || { echo "no slab_watch PMU"; exit 3; }
ev() {	# CACHE:OFF/LEN RW -> the slab_watch event
	local c=${1%%:*} o=${1#*:}
	echo "slab_watch/cache=$(cat /sys/kernel/slab/$c/watch_id),offset=$((${o%/*})),len=${o#*/},rw=$2,patience=64,period=1/"
}
kmem="-e kmem:kmem_cache_alloc -e kmem:kmem_cache_free -e kmem:kfree"
run() {	# name, then the perf record events (none: bare)
	local name=$1; shift
	if [ $# = 0 ]; then
		"$CHURN" -t $S -m o -d /tmp > /tmp/$name.out
	else
		"$PERF" record -q -a -m 32M "$@" -o /tmp/$name.data -- \
			"$CHURN" -t $S -m o -d /tmp > /tmp/$name.out 2> /tmp/$name.err || cat /tmp/$name.err
	fi
	loops=$(sed -n "s/^churn: \([0-9]*\) loops.* in \([0-9.]*\)s.*/\1 \2/p" /tmp/$name.out)
	echo "$name $loops" >> /mnt/results
	case $name in bare|kmem) ;; *) cp /tmp/$name.data /mnt/$name.data ;; esac
}
run bare
run kmem $kmem
run watch $kmem -e "$(ev $W 1)" -d
run arm-only $kmem -e "$(ev $A 0)" -d
' > "$job/vm.log" 2>&1 || { cat "$job/vm.log"; die "guest run failed"; }

# Objects followed: the report counts a history per (object, allocation);
# filp is SLAB_TYPESAFE_BY_RCU and the same few objects come back again
# and again, so distinct addresses would undercount.
while read -r name loops secs; do
	objs=0
	if [ -f "$job/$name.data" ]; then
		objs=$("$PERF" dprof report --stdio -i "$job/$name.data" 2>/dev/null |
		       sed -n 's/^# object histories: [0-9]* hits on \([0-9]*\) objects.*/\1/p')
	fi
	echo "$name $loops $secs ${objs:-0}"
done < "$job/results" > "$job/results2"

awk -v w="$watch" -v a="$arm_only" '
{ name[NR] = $1; rate[NR] = $2 / $3; objs[NR] = $4; t[NR] = $3; n[NR] = $2 }
END {
	printf "churn -m o (open/read/close, one thread per CPU), %s s, guest under TCG\n", t[1]
	for (i = 1; i <= NR; i++) {
		printf "%-9s %9.0f loops/s  vs bare %.3fx  vs kmem %.3fx", name[i], rate[i],
		       rate[i] / rate[1], rate[i] / rate[2]
		if (objs[i])
			printf "  %d objects watched, %.0f histories/s", objs[i], objs[i] / t[i]
		printf "\n"
	}
	# extra time per watched object relative to kmem, both loops
	for (i = 3; i <= NR; i++)
		if (objs[i])
			printf "%s (%s): %.1f us of workload time per watched object over kmem\n",
			       name[i], i == 3 ? w : a,
			       (t[i] / n[i] - t[2] / n[2]) * n[i] / objs[i] * 1e6 * 2
}' "$job/results2"

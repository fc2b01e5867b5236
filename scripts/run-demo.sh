#!/bin/bash
# The main job (make run): profile a guest kernel's data with perf dprof.
#
#   1. build what is needed: perf (scripts/build-perf.sh), the guest kernel
#      (scripts/build-kernel.sh), the churn workload (scripts/guest/churn.c)
#   2. boot the kernel under QEMU TCG (scripts/run-in-vm.sh) and run
#        perf dprof record -a -o /tmp/perf.data -- scripts/guest/workload.sh
#      (guest /tmp is tmpfs: writing perf.data over 9p would put the 9p client
#      in the profile; it is copied to the job dir, /mnt, afterwards)
#   3. on the host (much faster than TCG), print
#        perf dprof report --stdio -i perf.data --vmlinux $BUILD_DIR/kernel/vmlinux
#
# env: BUILD_DIR, DPROF_CACHE, LINUX_SRC   (see scripts/prepare-tree.sh)
#      PERF            perf binary (default $BUILD_DIR/perf/perf, built if missing)
#      DEMO_DIR        job dir, kept: perf.data, report.txt (default $BUILD_DIR/demo)
#      DEMO_SECONDS    workload length (default 4)
#      DEMO_WORKLOAD   guest command instead of scripts/guest/workload.sh
#      DEMO_RECORD     extra 'perf dprof record' options (default "-m 32M": with
#                      the default buffer TCG guests lose ~7% of the events)
#      DEMO_REPORT     'perf dprof report' options (default "--percent-limit=0.1":
#                      the top rows; e.g. "--type=filp" to drill into one type)
#      DEMO_BUILD=0    do not run the build scripts (default 1: they are incremental)
#      DEMO_WATCH      object histories: a second record in the same guest,
#                      'perf dprof record --watch=$DEMO_WATCH' (default
#                      filp:0/8; empty: none), whose data flow view is printed
#                      after the profile.  A separate recording, since the
#                      watch's traps would skew the access profile.
#      DEMO_HANDOFF    sk_buff histories: a third record in the guest, of 'perf test
#                      -w dprof_handoff' (messages from CPU 0 to CPU 1 over an
#                      AF_UNIX socketpair) with --watch=skbuff_head_cache:0/8,
#                      whose data flow shows the cross-CPU hand-off; the
#                      number of histories (default 100; 0: none)
#      DEMO_GUEST_REPORT=1  also run the report inside the guest (slow, TCG)
#      VM_*            see scripts/run-in-vm.sh (VM_SMP default 2, VM_TIMEOUT)
set -eu

# shellcheck source=lib/env.sh
. "$(dirname "$0")/lib/env.sh"
export PERF=${PERF:-$BUILD_DIR/perf/perf}
export CHURN=$BUILD_DIR/guest/churn
job=${DEMO_DIR:-$BUILD_DIR/demo}
secs=${DEMO_SECONDS:-4}
DEMO_RECORD=${DEMO_RECORD--m 32M}
DEMO_WATCH=${DEMO_WATCH-filp:0/8}
watch_type=${DEMO_WATCH%%[:,]*}
DEMO_HANDOFF=${DEMO_HANDOFF:-100}

die() { echo "run-demo: $*" >&2; exit 1; }
say() { echo "run-demo: $*" >&2; }
now() { date +%s.%N; }
since() { printf '%.1f' "$(echo "$(now) - $1" | bc)"; }

# --- 1. build ---
# QEMU boots the guest, Graphviz draws the flow pictures: install them
# first, not after the long builds (deps.sh installs as root, else says how).
"$REPO/scripts/deps.sh" qemu-system-x86 graphviz lz4 ||
	die "QEMU and Graphviz are needed: install them as above"
[ -f "$BUILD_DIR/kernel/vmlinux" ] ||
	say "first run: building perf and a guest kernel takes ~10 min on 2 cores (ccache makes the next ones fast)"
if [ "${DEMO_BUILD:-1}" != 0 ] || [ ! -x "$PERF" ]; then
	if [ "$PERF" = "$BUILD_DIR/perf/perf" ]; then
		[ -x "$REPO/scripts/build-perf.sh" ] || die "no $PERF and no scripts/build-perf.sh to build it"
		t=$(now); say "building perf"
		"$REPO/scripts/build-perf.sh" >/dev/null
		say "perf ready ($(since "$t")s)"
	fi
fi
[ -x "$PERF" ] || die "no perf at $PERF"
"$PERF" dprof record -h 2>&1 | grep -q -- '--sampler' ||
	die "$PERF has no 'dprof' command (wrong perf? set PERF or rebuild with scripts/build-perf.sh)"
kernel=$BUILD_DIR/kernel/arch/x86/boot/bzImage
vmlinux=$BUILD_DIR/kernel/vmlinux
if [ "${DEMO_BUILD:-1}" != 0 ] || [ ! -f "$kernel" ] || [ ! -f "$vmlinux" ]; then
	t=$(now); say "building the guest kernel (cold: ~6 min at -j2, warm ccache: ~30 s)"
	"$REPO/scripts/build-kernel.sh" >/dev/null
	say "kernel ready ($(since "$t")s)"
fi
[ -f "$kernel" ] && [ -f "$vmlinux" ] || die "no guest kernel at $kernel / $vmlinux"
mkdir -p "${CHURN%/*}"
if [ ! -x "$CHURN" ] || [ "$REPO/scripts/guest/churn.c" -nt "$CHURN" ]; then
	gcc -O2 -g -Wall -pthread -o "$CHURN" "$REPO/scripts/guest/churn.c" || die "cannot build $CHURN"
fi

# --- 2. record in the guest ---
mkdir -p "$job"
job=$(cd "$job" && pwd)
rm -f "$job/perf.data" "$job/perf.data.old" "$job/record.log" "$job/report.txt" \
	"$job/watch.data" "$job/flow.txt" "$job/flow.dot" "$job/flow.svg" \
	"$job/handoff.data" "$job/handoff.txt" "$job/handoff.dot" "$job/handoff.svg" \
	"$job/flame.txt" "$job/flame.svg" "$job/profile.pb.gz"
workload=${DEMO_WORKLOAD:-$REPO/scripts/guest/workload.sh $secs}
say "booting the guest: perf dprof record -a --no-heap ${DEMO_RECORD:+$DEMO_RECORD }-- $workload"
t=$(now)
rc=0
# a perf outside the repo and BUILD_DIR: share its directory too
VM_SHARES=$(dirname "$(readlink -f "$PERF")")${VM_SHARES:+:$VM_SHARES} \
VM_JOBDIR=$job VM_ENV="PERF CHURN ${VM_ENV:-}" VM_TIMEOUT=${VM_TIMEOUT:-600} \
	"$REPO/scripts/run-in-vm.sh" "$kernel" "
echo \"guest: \$(uname -r), \$(nproc) CPUs, uptime \$(cut -d' ' -f1 /proc/uptime)s\"
up() { cut -d' ' -f1 /proc/uptime; }
s=\$(up)
\"\$PERF\" dprof record -a --no-heap -o /tmp/perf.data ${DEMO_RECORD:-} -- $workload
rc=\$?
echo \"guest: record took \$(echo \"\$(up) - \$s\" | bc)s (guest time), rc=\$rc\"
cp /tmp/perf.data /mnt/perf.data || rc=1
if [ \$rc = 0 ] && [ -n \"$DEMO_WATCH\" ]; then
	if [ -d /sys/bus/event_source/devices/slab_watch ]; then
		s=\$(up)
		\"\$PERF\" dprof record -q -a --no-heap -o /tmp/watch.data --watch=$DEMO_WATCH ${DEMO_RECORD:-} -- $workload > /dev/null || rc=1
		echo \"guest: watch record took \$(echo \"\$(up) - \$s\" | bc)s (guest time), rc=\$rc\"
		cp /tmp/watch.data /mnt/watch.data || rc=1
	else
		echo \"guest: no slab_watch PMU in this kernel (kernel-patches/, CONFIG_SLAB_WATCH=y): no object histories\"
	fi
fi
if [ \$rc = 0 ] && [ \"$DEMO_HANDOFF\" != 0 ] && [ -d /sys/bus/event_source/devices/slab_watch ] &&
   \"\$PERF\" test -w dprof_handoff 1 2> /dev/null; then
	s=\$(up)
	\"\$PERF\" dprof record -q -a --no-heap -o /tmp/handoff.data --watch=skbuff_head_cache:0/8 \\
		--watch-histories=$DEMO_HANDOFF -- \"\$PERF\" test -w dprof_handoff 20000 > /dev/null || rc=1
	echo \"guest: sk_buff hand-off record took \$(echo \"\$(up) - \$s\" | bc)s (guest time), rc=\$rc\"
	cp /tmp/handoff.data /mnt/handoff.data || rc=1
fi
if [ \$rc = 0 ] && [ \"${DEMO_GUEST_REPORT:-0}\" = 1 ]; then
	s=\$(up)
	\"\$PERF\" dprof report --stdio -i /mnt/perf.data --vmlinux $vmlinux ${DEMO_REPORT---percent-limit=0.1} > /mnt/report-guest.txt
	rc=\$?
	echo \"guest: report took \$(echo \"\$(up) - \$s\" | bc)s (guest time), rc=\$rc\"
fi
exit \$rc
" 2>&1 | tee "$job/record.log" || rc=$?
[ $rc = 0 ] || die "the guest run failed (rc=$rc; 124 timeout, 125 guest died); log: $job/record.log"
[ -s "$job/perf.data" ] || die "no perf.data from the guest in $job"
say "guest done ($(since "$t")s); $(du -h "$job/perf.data" | cut -f1) of perf.data"

# --- 3. report on the host ---
t=$(now)
# shellcheck disable=SC2086
"$PERF" dprof report --stdio -i "$job/perf.data" --vmlinux "$vmlinux" ${DEMO_REPORT---percent-limit=0.1} \
	> "$job/report.txt" 2> "$job/report.err" || {
	cat "$job/report.err" >&2
	die "perf dprof report failed on $job/perf.data"
}
cat "$job/report.txt"
say "report took $(since "$t")s; kept in $job/report.txt (perf.data next to it)"

# the whole profile as a picture, and for continuous profilers (pprof)
if "$PERF" dprof report -i "$job/perf.data" --vmlinux "$vmlinux" --view=flame \
		--graph="$job/flame.svg" > "$job/flame.txt" 2> "$job/flame.err" &&
   "$PERF" dprof report -i "$job/perf.data" --vmlinux "$vmlinux" \
		--pprof="$job/profile.pb.gz" > /dev/null 2>> "$job/flame.err"; then
	say "flame graph: $job/flame.svg (folded stacks: flame.txt); pprof: $job/profile.pb.gz"
else
	say "no flame graph or pprof file: $(head -1 "$job/flame.err")"
fi

# --- 4. the data flow of the watched type ---
if [ -s "$job/watch.data" ]; then
	t=$(now)
	echo
	"$PERF" dprof report --stdio -i "$job/watch.data" --vmlinux "$vmlinux" \
		--view=flow --type="$watch_type" --graph="$job/flow.dot" \
		> "$job/flow.txt" 2> "$job/flow.err" || {
		cat "$job/flow.err" >&2
		die "perf dprof report --view=flow failed on $job/watch.data"
	}
	cat "$job/flow.txt"
	say "flow report took $(since "$t")s; kept in $job/flow.txt (watch.data, flow.dot next to it)"
fi

# --- 5. the sk_buffs handed from CPU 0 to CPU 1 ---
[ -s "$job/handoff.data" ] || exit 0
echo
"$PERF" dprof report --stdio -i "$job/handoff.data" --vmlinux "$vmlinux" \
	--view=flow --type=skbuff_head_cache --graph="$job/handoff.dot" \
	> "$job/handoff.txt" 2> "$job/handoff.err" || {
	cat "$job/handoff.err" >&2
	die "perf dprof report --view=flow failed on $job/handoff.data"
}
cat "$job/handoff.txt"
say "kept in $job/handoff.txt (handoff.data, handoff.dot next to it)"

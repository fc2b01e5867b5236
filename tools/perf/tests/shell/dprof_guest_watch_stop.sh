#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: record --watch-histories stops at the target (exclusive)
#
# Boot the guest kernel built with kernel-patches/ and CONFIG_SLAB_WATCH=y
# under QEMU and run 'perf dprof record -a --watch=filp:0/8
# --watch-histories=200 -v' on a workload that opens and closes files for
# two minutes.  The recording must stop long before the workload would
# end, with status 0, holding at least 200 filp histories (counted with
# stock 'perf script': a filp alloc at P, then a watch hit on P), after
# printing its progress and the stop on stderr; the kernel's
# /sys/kernel/slab/filp/watch_objects must have gone up by at least 200,
# and the control fifo's directory must be gone.  Then a target it cannot
# reach, SIGINT after 5 s: perf dprof record ends as perf record does
# (killed by the signal), promptly, and the fifos are gone as well.
#
# Needs (else skipped):
#   DPROF_KERNEL     bzImage of a kernel built from scripts/guest/dprof-guest.config
#   DPROF_RUN_IN_VM  scripts/run-in-vm.sh of the perf dprof repository
# Skipped as well when the guest kernel has no slab_watch PMU or no
# watch_objects count.

set -u

dprof_test="dprof guest watch-histories test"
# shellcheck source=lib/dprof_guest.sh
. "$(dirname "$0")"/lib/dprof_guest.sh

dprof_guest_require DPROF_KERNEL

dprof_guest_job dprof_watch_stop

# The workload runs for $WL_S seconds unless perf record ends it.
WL_S=120
TARGET=200

# In the guest: exit 3 without the PMU or the count.
dprof_guest_run "$DPROF_KERNEL" 600 '
[ -d /sys/bus/event_source/devices/slab_watch ] || { echo "no slab_watch PMU"; exit 3; }
[ -r /sys/kernel/slab/filp/watch_objects ] || { echo "no watch_objects"; exit 3; }
echo x > /tmp/f
cat > /tmp/wl.sh <<EOF
end=\$(( \$(date +%s) + $WL_S ))
while [ \$(date +%s) -lt \$end ]; do
	for j in 1 2 3 4 5 6 7 8; do exec {x}< /tmp/f; exec {x}<&-; done
done
EOF
cat /sys/kernel/slab/filp/watch_objects > /mnt/before
mkdir /tmp/t
t0=$(date +%s%N)
TMPDIR=/tmp/t "$PERF_GUEST" dprof record -v -a --no-heap --watch=filp:0/8 \
	--watch-histories=$TARGET -o /tmp/w.data -- bash /tmp/wl.sh 2> /mnt/record.err
echo $? > /mnt/rc
echo $(( ($(date +%s%N) - t0) / 1000000 )) > /mnt/elapsed_ms
cat /sys/kernel/slab/filp/watch_objects > /mnt/after
ls -A /tmp/t > /mnt/tmpdir.txt
"$PERF_GUEST" script -i /tmp/w.data -F cpu,time,event,ip,sym,addr,trace \
	-F trace:cpu,time,event,ip,sym,trace > /tmp/script.txt || exit 1
cp /tmp/script.txt /mnt/script.txt
"$PERF_GUEST" dprof report --stdio -i /tmp/w.data > /mnt/report.txt 2> /mnt/report.err
mkdir /tmp/u
TMPDIR=/tmp/u "$PERF_GUEST" dprof record -q -a --no-heap --watch=filp:0/8 \
	--watch-histories=100000000 -o /tmp/i.data -- bash /tmp/wl.sh 2> /mnt/int.err &
pid=$!
sleep 5
kill -INT $pid
t0=$(date +%s)
wait $pid
echo $? > /mnt/int_rc
echo $(( $(date +%s) - t0 )) > /mnt/int_s
ls -A /tmp/u > /mnt/int_tmpdir.txt
true
' WL_S=$WL_S TARGET=$TARGET
nopmu="3:$DPROF_KERNEL: no slab_watch PMU or no watch_objects"
nopmu+=" (kernel-patches/ with CONFIG_SLAB_WATCH=y)"
dprof_guest_ran script.txt "$nopmu"


rec_rc=$(cat "${job}/rc"); elapsed=$(cat "${job}/elapsed_ms")
before=$(cat "${job}/before"); after=$(cat "${job}/after")
[ "$rec_rc" = 0 ] || fail "perf dprof record exited with $rec_rc, want 0 after a stop"
# Stopped early: well below the workload's WL_S seconds.
[ "${elapsed:-0}" -lt $(( WL_S * 1000 / 2 )) ] ||
	fail "recording took ${elapsed} ms, the workload alone runs ${WL_S} s: not stopped"
[ $(( after - before )) -ge $TARGET ] ||
	fail "watch_objects of filp went from $before to $after, want +$TARGET"
grep -qE "^dprof: watch filp: [0-9]+/$TARGET histories: target met, stopping$" \
	"${job}/record.err" || fail "no 'target met, stopping' line on stderr"
grep -qE "^dprof: watch filp: [0-9]+/$TARGET histories$" "${job}/record.err" ||
	[ "${elapsed:-0}" -lt 1500 ] || fail "no progress line on stderr with -v"
grep -q -- "--control=fifo:/tmp/t/perf-dprof-" "${job}/record.err" ||
	fail "perf record not called with the control fifo"
[ -s "${job}/tmpdir.txt" ] && fail "left behind in TMPDIR: $(cat "${job}/tmpdir.txt")"

int_rc=$(cat "${job}/int_rc")
# perf record ends the workload with SIGTERM and dies of its signal
[ "$int_rc" = 130 ] || [ "$int_rc" = 143 ] ||
	fail "^C: perf dprof record exited with $int_rc, want 130 or 143 (killed, as perf record)"
[ "$(cat "${job}/int_s")" -lt 30 ] ||
	fail "^C: perf dprof record took $(cat "${job}/int_s") s to end"
[ -s "${job}/int_tmpdir.txt" ] && fail "^C: left behind in TMPDIR: $(cat "${job}/int_tmpdir.txt")"

# Histories: a filp alloc at ptr P opens one; the next hit on P is its first.
histories=$(awk '
/kmem:kmem_cache_alloc:/ && / name=filp( |$)/ {
	for (i = 1; i <= NF; i++)
		if ($i ~ /^ptr=/) { p = substr($i, 5); sub(/^0x/, "", p); fresh[p] = 1 }
	next
}
/ slab_watch\/cache=/ {
	for (i = 1; i <= NF; i++) if ($i ~ /^slab_watch\//) break
	a = $(i + 1); sub(/^0x/, "", a); sub(/^0+/, "", a)
	if (a in fresh) { delete fresh[a]; h++ }
}
END { print h + 0 }' "${job}/script.txt")
[ "$histories" -ge $TARGET ] ||
	fail "$histories filp histories in perf.data, want >= $TARGET"
grep -qE '^# object histories: [1-9][0-9]* hits on [1-9][0-9]* objects of filp' \
	"${job}/report.txt" || fail "perf dprof report does not count the watch hits"
report=$(grep -oE 'hits on [0-9]+ objects' "${job}/report.txt" | head -1)

if [ $err -ne 0 ]; then
	cat "${job}/vm.log" "${job}/record.err" "${job}/report.err"
	head -20 "${job}/report.txt"
else
	echo "dprof guest watch-histories test [Success: stopped after ${elapsed} ms" \
	     "(workload ${WL_S} s), $histories histories in perf script, report: $report," \
	     "watch_objects $before -> $after, ^C: rc $int_rc]"
fi
cleanup
exit $err

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: guest object lifetimes that end in kfree_rcu() (exclusive)
#
# An object handed to kfree_rcu() is dead for its user at the call; the
# slab allocator frees it a grace period later, in a batch (kfree_bulk(),
# traced per object by kernel-patches/ 0006) run by another task.  With
# kmem:kfree_rcu (kernel-patches/ 0008) the replay ends the lifetime at
# the call.  Boot the guest and follow eventpoll_epi objects, which
# epoll_ctl(EPOLL_CTL_ADD) allocates and epoll_ctl(EPOLL_CTL_DEL) hands to
# kfree_rcu(): a workload pinned to CPU 0 adds a pipe to an epoll set,
# holds it HOLD ms, removes it, N times.  Then check, against perf script
# on the same file:
#  - the workload's kfree_rcu events: one per epoll_ctl(DEL) it did, each
#    of an object it allocated;
#  - the bulk path: the batches free those objects later (kmem events
#    with a call site in the RCU batch code, not in the workload's task);
#  - the report: its kfree_rcu count is perf script's; no free of an
#    unknown object; the object histories end at the kfree_rcu() caller
#    (not in the RCU batch), and their alloc -> free time is one of perf
#    script's alloc -> kfree_rcu times, not alloc -> batched free (the
#    batch drains every 5 s, KFREE_DRAIN_JIFFIES, then waits for a grace
#    period).
#
# Needs (else skipped): DPROF_KERNEL, DPROF_VMLINUX, DPROF_RUN_IN_VM, as in
# dprof_guest_slab.sh, python3 in the guest (the host's root).

set -u

nr=${DPROF_RCU_OBJECTS:-60}
hold_ms=5

dprof_test="dprof guest kfree_rcu test"
# shellcheck source=lib/dprof_guest.sh
. "$(dirname "$0")"/lib/dprof_guest.sh

dprof_guest_require DPROF_KERNEL DPROF_VMLINUX
command -v python3 > /dev/null || skip "no python3"

dprof_guest_job dprof_kfree_rcu

cat > "${job}/epoll.py" <<'EOF'
import os, select, sys, time
nr, hold = int(sys.argv[1]), float(sys.argv[2]) / 1000
os.sched_setaffinity(0, {0})
ep = select.epoll()
r, w = os.pipe()
for i in range(nr):
	ep.register(r, select.EPOLLIN)
	time.sleep(hold)
	ep.unregister(r)
	time.sleep(hold)
# let the batches reach the slab allocator while recording: kfree_rcu()
# drains its per-CPU batch every 5 s (KFREE_DRAIN_JIFFIES), then waits
# for a grace period
time.sleep(8)
print("workload: pid", os.getpid(), "epoll_ctl add/del", nr)
EOF

dprof_guest_run "$DPROF_KERNEL" 400 '
[ -d /sys/kernel/tracing/events/kmem/kfree_rcu ] || exit 4
[ -d /sys/bus/event_source/devices/slab_watch ] || exit 3
"$PERF_GUEST" dprof record -a --no-heap --watch=eventpoll_epi:0/8 -o /tmp/e.data \
	-- python3 /mnt/epoll.py '"$nr $hold_ms"' > /mnt/workload.out 2> /mnt/record.err || exit
cp /tmp/e.data /mnt/e.data
'
dprof_guest_ran e.data "3:kernel without the slab_watch PMU (kernel-patches/ 0004)" \
	"4:kernel without kmem:kfree_rcu (kernel-patches/ 0008)"

pid=$(sed -n 's/^workload: pid \([0-9]*\) .*/\1/p' "${job}/workload.out")
did=$(sed -n 's/^workload: .* add\/del \([0-9]*\)$/\1/p' "${job}/workload.out")
[ -n "$pid" ] && [ -n "$did" ] || fail "workload said '$(cat "${job}/workload.out")'"

# perf script: the eventpoll_epi objects of the workload, alloc ->
# kfree_rcu -> batched free, with their times
"$perf_bin" script -i "${job}/e.data" -F tid,time,event,trace 2> /dev/null > "${job}/script.txt"
awk -v pid="${pid:-0}" '
function t(s) { sub(/:$/, "", s); return s + 0 }
function field(k,   i) {
	for (i = 1; i <= NF; i++)
		if (index($i, k "=") == 1)
			return substr($i, length(k) + 2)
	return ""
}
/kmem:kmem_cache_alloc:/ && / name=eventpoll_epi/ && $1 == pid { a[field("ptr")] = t($2); nalloc++ }
/kmem:kfree_rcu:/ { nrcu_all++ }
/kmem:kfree_rcu:/ && / name=eventpoll_epi/ && $1 == pid {
	p = field("ptr"); nrcu++
	if (p in a) { l = t($2) - a[p]; r[p] = t($2); s[p] = a[p]; life += l; nlife++
		      if (!min || l < min) min = l; if (l > max) max = l; delete a[p] } }
/kmem:(kmem_cache_free|kfree):/ {
	p = field("ptr")
	if (p in r) { if ($1 != pid) nother++; late += t($2) - r[p]; nbatch++
		      l = t($2) - s[p]; if (!bmin || l < bmin) bmin = l; delete r[p] } }
END {
	printf "%d %d %d %d %.9f %.9f %.9f %d %d %.9f %.9f\n", nalloc, nrcu, nrcu_all, nlife,
		nlife ? life / nlife : 0, min, max, nbatch, nother, nbatch ? late / nbatch : 0, bmin
}' "${job}/script.txt" > "${job}/counts"
read -r nalloc nrcu nrcu_all nlife life min max nbatch nother late bmin < "${job}/counts"
[ "$nrcu" = "${did:-x}" ] ||
	fail "perf script: $nrcu kmem:kfree_rcu events of eventpoll_epi from the workload, it did" \
	     "$did epoll_ctl(DEL)"
[ "$nlife" = "$nrcu" ] && [ "$nalloc" = "$nrcu" ] ||
	fail "perf script: $nalloc eventpoll_epi allocations, $nrcu kfree_rcu, $nlife of objects" \
	     "it allocated"
# the batches: in another task, after a grace period; the last may still
# be pending when the recording stops
[ $((nbatch * 10)) -ge $((nrcu * 9)) ] && [ "$nother" = "$nbatch" ] ||
	fail "perf script: $nbatch of $nrcu objects freed by a batch ($nother in another task" \
	     "than the workload)"

if ! "$perf_bin" dprof report --stdio -i "${job}/e.data" --vmlinux "$DPROF_VMLINUX" \
		> "${job}/report.txt" 2> "${job}/report.err"; then
	fail "report"
	cat "${job}/report.err"
fi
rep_rcu=$(sed -n 's/^# kfree_rcu: \([0-9]*\) objects.*/\1/p' "${job}/report.txt")
[ "${rep_rcu:-none}" = "$nrcu_all" ] ||
	fail "report: ${rep_rcu:-no} kfree_rcu objects, perf script has $nrcu_all kmem:kfree_rcu" \
	     "events"
life_line=$(grep -m1 '^# lifetimes:' "${job}/report.txt")
unknown=$(echo "$life_line" | sed -n 's/.* \([0-9]*\) frees of unknown objects.*/\1/p')
frees=$(sed -n 's/^# address set: kmem tracepoints, [0-9]* allocs, \([0-9]*\) frees.*/\1/p' \
	"${job}/report.txt")
[ -n "$unknown" ] && [ -n "$frees" ] && [ $((unknown * 1000)) -le "$frees" ] ||
	fail "frees of unknown objects: ${unknown:-none said} of ${frees:-?} ($life_line)"

# The histories: every one ends where the workload's task called
# kfree_rcu() (epoll_ctl(DEL): ep_remove*), none in the RCU batch.
"$perf_bin" dprof report --stdio -i "${job}/e.data" -k "$DPROF_VMLINUX" --view=paths \
	--type=eventpoll_epi > "${job}/paths.txt" 2>> "${job}/report.err" ||
	fail "perf dprof report --view=paths failed"
# per path: histories, the free step's function and its mean time
awk '/^# path [0-9]+: / { n = $4 } /\(free\)/ && n {
	tm = $1; fn = $2; u = 1e-9
	if (tm ~ /us$/) u = 1e-6; else if (tm ~ /ms$/) u = 1e-3; else if (tm ~ /[^nmu]s$/) u = 1
	sub(/[nmu]?s$/, "", tm); print n, fn, tm * u; n = 0 }' "${job}/paths.txt" > "${job}/frees"
# (the watch itself follows an object until the slab allocator frees it,
# in the batch 5 s later: objects allocated meanwhile are not watched)
hist=$(awk '{ n += $1 } END { print n + 0 }' "${job}/frees")
[ "$hist" -ge 1 ] ||
	fail "no history of eventpoll_epi ending in a free ($nrcu objects)"
remove_fn='(ep_remove[a-z_]*|__ep_remove|ep_clear_and_put|do_epoll_ctl|__x64_sys_epoll_ctl)'
bad=$(grep -vE "^[0-9]+ $remove_fn " "${job}/frees")
[ -z "$bad" ] || fail "histories that end elsewhere than the kfree_rcu() caller: $bad"
# every history's alloc -> free time is one of perf script's alloc ->
# kfree_rcu times (between their least and greatest), below the least
# alloc -> batched free time
rep_life=$(awk '{ s += $1 * $3; n += $1 } END { printf "%.9f\n", n ? s / n : 0 }' "${job}/frees")
# (0.1 ms slack: the paths view prints 10 ms and more as "16.5ms")
awk -v lo="$min" -v hi="$max" -v b="$bmin" '
	$3 < lo - 0.0001 || $3 > hi + 0.0001 || $3 >= b { bad = 1 }
	END { exit bad }' "${job}/frees" ||
	fail "history lifetimes $(cut -d' ' -f3 "${job}/frees" | paste -sd,)s; perf script:" \
	     "${min}s to ${max}s to kfree_rcu, >= ${bmin}s to the batched free"

if [ $err -ne 0 ]; then
	cat "${job}/vm.log" "${job}/record.err" "${job}/report.err"
	head -n 25 "${job}/report.txt"
	head -n 40 "${job}/paths.txt"
else
	echo "eventpoll_epi: $did epoll_ctl add/del, $nrcu kfree_rcu (alloc -> kfree_rcu" \
	     "${min}s..${max}s, mean ${life}s);" \
	     "$nbatch freed by RCU batches ${late}s after kfree_rcu on average (alloc -> batched" \
	     "free >= ${bmin}s);" \
	     "$hist histories end at $(cut -d' ' -f2 "${job}/frees" | sort -u | paste -sd,)," \
	     "lifetime ${rep_life}s"
	grep -m1 '^# kfree_rcu:' "${job}/report.txt"
	echo "$life_line"
	echo "dprof guest kfree_rcu test [Success]"
fi
cleanup
exit $err

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: the guest kernel's random sample of slab lifetimes (exclusive)
#
# kernel-patches/ 0012 traces one slab allocation in sample_interval,
# each chosen on its own (kmem:slab_sample_alloc), and the free of every
# chosen object (kmem:slab_sample_free).  Boot the guest, record those
# two events system-wide next to every object's events (kmem_cache_alloc,
# kmalloc, kmem_cache_free, kfree) on a fork/exec loop, and check against
# perf script:
#  - interval 1: every slab allocation chosen, with its call site: each
#    allocation event but those of large kmallocs (the page allocator's)
#    has a slab_sample_alloc of the same ptr and call site just before,
#    less the dropped;
#  - interval 8: the share chosen is 1/8 within six binomial standard
#    deviations (the choice is random, independent of the load);
#  - both: each slab_sample_alloc says the interval it was chosen at and
#    is followed by its object's allocation event; every chosen object
#    that kmem_cache_free or kfree frees has its slab_sample_free next,
#    and no unchosen one has one.
# The counts are taken where all six events were enabled: perf record
# enables and disables them one by one.
#
# Needs (else skipped): DPROF_KERNEL, DPROF_RUN_IN_VM, as in
# dprof_guest_slab.sh.

set -u

dprof_test="dprof guest slab sample test"
# shellcheck source=lib/dprof_guest.sh
. "$(dirname "$0")"/lib/dprof_guest.sh

dprof_guest_require DPROF_KERNEL

dprof_guest_job dprof_slab_sample

dprof_guest_run "$DPROF_KERNEL" 400 '
d=/sys/kernel/debug/slab
[ -d /sys/kernel/tracing/events/kmem/slab_sample_alloc ] && [ -w $d/sample_interval ] || exit 4
for n in 1 8; do
	echo $n > $d/sample_interval || exit
	"$PERF_GUEST" record -a -m 4096 -o /tmp/s$n.data -e kmem:slab_sample_alloc \
		-e kmem:slab_sample_free -e kmem:kmem_cache_alloc -e kmem:kmalloc \
		-e kmem:kmem_cache_free -e kmem:kfree -- sh -c "for i in \$(seq 60); do
			cat /proc/self/status > /dev/null; done" 2> /mnt/record$n.err || exit
	cat $d/sample_dropped > /mnt/dropped$n
	"$PERF_GUEST" script -i /tmp/s$n.data -F time,event,trace > /mnt/s$n.txt \
		2> /mnt/script$n.err || exit
	"$PERF_GUEST" report --stats -i /tmp/s$n.data > /mnt/stats$n 2> /dev/null
done
echo 64 > $d/sample_interval
'
dprof_guest_ran s8.txt "4:kernel without kmem:slab_sample_alloc (kernel-patches/ 0012)"

# Per recording, within the window where all six events were enabled
# (perf record enables and disables them one by one, and the kernel
# chooses objects from the alloc event's perf_event_open() on): slab
# allocation events; of those, chosen (a slab_sample_alloc of the same
# ptr and call site just before); chosen with no allocation event after;
# slab_sample_alloc saying another interval; chosen objects that
# kmem_cache_free or kfree free; of those, with their slab_sample_free
# next; slab_sample_free of an object allocated in the window unchosen.
count() {
	awk '
function field(k,   i) {
	for (i = 1; i <= NF; i++)
		if (index($i, k "=") == 1)
			return substr($i, length(k) + 2)
	return ""
}
{ t = $1; sub(/:$/, "", t); t += 0; ev = $2 }
NR == FNR { if (!(ev in first)) first[ev] = t; last[ev] = t; next }
FNR == 1 {
	for (e in first) {
		if (!nev++ || first[e] > lo) lo = first[e]
		if (nev == 1 || last[e] < hi) hi = last[e]
	}
}
t < lo { next }
{ ptr = field("ptr"); site = field("call_site") }
ev == "kmem:slab_sample_alloc:" {
	if (t > hi) next
	if (field("interval") != n) badint++
	# sorted after its allocation event: the task moved to a CPU whose
	# clock is behind between the two
	if ((ptr in state) && !state[ptr] && asite[ptr] == site) { state[ptr] = 1; chosen++; next }
	if (ptr in pending) orphan++
	pending[ptr] = site }
# (a kmalloc of more than 8 KiB comes from the page allocator)
ev == "kmem:kmem_cache_alloc:" || ev == "kmem:kmalloc:" && field("bytes_req") + 0 <= 8192 {
	delete await[ptr]; delete nfree[ptr]; delete early[ptr]
	if (t > hi) { delete pending[ptr]; delete state[ptr]; next }
	allocs++
	asite[ptr] = site
	state[ptr] = (ptr in pending) && pending[ptr] == site
	chosen += state[ptr]
	delete pending[ptr] }
(ev == "kmem:kmem_cache_free:" || ev == "kmem:kfree:") && (ptr in state) {
	if (t <= hi && state[ptr]) { freed++; if (ptr in early) insample++; else await[ptr] = 1 }
	if (!state[ptr]) nfree[ptr] = 1
	delete state[ptr] }
ev == "kmem:slab_sample_free:" {
	if ((ptr in state) && state[ptr]) early[ptr] = 1
	else if (ptr in await) { insample++; delete await[ptr] }
	else if (ptr in nfree) { unchosen++; delete nfree[ptr] } }
END {
	for (p in pending)
		orphan++
	printf "%d %d %d %d %d %d %d\n", allocs, chosen, orphan, badint, freed, insample, unchosen
}' n="$2" "$1" "$1"
}

# e.g. "LOST events:  3  ( 0.0%)"
lost=$(awk '/LOST/ { n += $3 } END { print n + 0 }' "${job}/stats1" "${job}/stats8")
if [ "$lost" != 0 ]; then
	cleanup
	skip "perf record lost $lost events: the exact counts cannot be checked"
fi
for n in 1 8; do
	read -r allocs chosen orphan badint freed insample unchosen \
		< <(count "${job}/s$n.txt" "$n")
	dropped=$(cat "${job}/dropped$n")
	echo "interval $n: $allocs slab allocations, $chosen chosen, $orphan chosen with no" \
	     "allocation event, $dropped dropped; $freed chosen objects freed, $insample of them" \
	     "in a slab_sample_free; $unchosen slab_sample_free of an unchosen object"
	[ "$allocs" -ge 20000 ] || fail "interval $n: only $allocs slab allocations recorded"
	[ "$badint" = 0 ] || fail "interval $n: $badint slab_sample_alloc say another interval"
	[ "$orphan" = 0 ] ||
		fail "interval $n: $orphan slab_sample_alloc with no allocation event of the same" \
		     "ptr and call site"
	[ "$freed" = "$insample" ] ||
		fail "interval $n: $((freed - insample)) chosen objects freed without their" \
		     "slab_sample_free"
	[ "$unchosen" = 0 ] || fail "interval $n: $unchosen slab_sample_free of unchosen objects"
	if [ "$n" = 1 ]; then
		[ $((chosen + dropped)) = "$allocs" ] ||
			fail "interval 1: $chosen chosen + $dropped dropped of $allocs allocations"
	else
		# |chosen - allocs / 8| <= 6 sd, sd = sqrt(allocs * 1/8 * 7/8)
		awk -v a="$allocs" -v c="$chosen" -v d="$dropped" 'BEGIN {
			sd = sqrt(a * 7 / 64); x = c + d - a / 8
			exit !(x <= 6 * sd && x >= -6 * sd) }' ||
			fail "interval 8: $chosen chosen + $dropped dropped of $allocs" \
			     "allocations, 1/8 is $((allocs / 8))"
	fi
done

if [ $err -ne 0 ]; then
	cat "${job}/vm.log" "${job}"/record*.err "${job}"/script*.err
else
	echo "dprof guest slab sample test [Success]"
fi
cleanup
exit $err

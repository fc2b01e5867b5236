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
#  - interval 1: every slab allocation chosen, with its call site: the
#    chosen (ptr, call site) pairs are the allocation events' pairs but
#    those of large kmallocs (the page allocator's), less the dropped;
#  - interval 8: the share chosen is 1/8 within six binomial standard
#    deviations (the choice is random, independent of the load);
#  - both: each slab_sample_alloc says the interval it was chosen at;
#  - both: every slab_sample_free is of an object chosen and not freed
#    since, in the same recording (the table is emptied when the event is
#    enabled again), and every chosen object that kmem_cache_free or kfree
#    frees has its slab_sample_free next (but for a few at the edges: an
#    object chosen while perf record enables its events one by one).
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
	"$PERF_GUEST" record -a -m 1024 -o /tmp/s$n.data -e kmem:slab_sample_alloc \
		-e kmem:slab_sample_free -e kmem:kmem_cache_alloc -e kmem:kmalloc \
		-e kmem:kmem_cache_free -e kmem:kfree -- sh -c "for i in \$(seq 150); do
			cat /proc/self/status > /dev/null; done" 2> /mnt/record$n.err || exit
	cat $d/sample_dropped > /mnt/dropped$n
	"$PERF_GUEST" script -i /tmp/s$n.data -F time,event,trace > /mnt/s$n.txt \
		2> /mnt/script$n.err || exit
done
echo 64 > $d/sample_interval
'
dprof_guest_ran s8.txt "4:kernel without kmem:slab_sample_alloc (kernel-patches/ 0012)"

# per recording: slab allocations; chosen; chosen with a slab allocation
# event of the same ptr and call site; chosen frees; of those, of a live
# chosen object; chosen objects the object events free; of those, with a
# slab_sample_free right after (hooked after kmem_cache_free and kfree)
count() {
	awk '
function field(k,   i) {
	for (i = 1; i <= NF; i++)
		if (index($i, k "=") == 1)
			return substr($i, length(k) + 2)
	return ""
}
{ ptr = field("ptr"); key = ptr "/" field("call_site") }
/kmem:(kmem_cache_alloc|kmalloc):/ && (!/kmem:kmalloc:/ || field("bytes_alloc") + 0 <= 8192) {
	allocs++; alloc[key]++ }
/kmem:slab_sample_alloc:/ {
	chosen++; sampled[key]++; live[ptr] = 1; pending[ptr] = 1
	if (field("interval") != n) badint++ }
/kmem:slab_sample_free:/ {
	sfree++
	if (ptr in live) { paired++; delete live[ptr] }
	if (ptr in await) { insample++; delete await[ptr] } }
/kmem:(kmem_cache_free|kfree):/ && (ptr in pending) { freed++; delete pending[ptr]; await[ptr] = 1 }
END {
	for (k in sampled)
		matched += sampled[k] < alloc[k] ? sampled[k] : alloc[k]
	printf "%d %d %d %d %d %d %d %d\n", allocs, chosen, matched, sfree, paired, freed, insample,
		badint
}' n="$2" "$1"
}

for n in 1 8; do
	read -r allocs chosen matched sfree paired freed insample badint \
		< <(count "${job}/s$n.txt" "$n")
	dropped=$(cat "${job}/dropped$n")
	echo "interval $n: $allocs slab allocations, $chosen chosen ($matched with their call" \
	     "site), $dropped dropped; $sfree chosen frees ($paired of a live chosen object);" \
	     "$freed chosen objects freed, $insample of them in a slab_sample_free"
	[ "$allocs" -ge 20000 ] || fail "interval $n: only $allocs slab allocations recorded"
	[ "$badint" = 0 ] || fail "interval $n: $badint slab_sample_alloc say another interval"
	# (at the edges: objects chosen before the alloc event was enabled,
	# freed before the free event was disabled)
	[ $((sfree - paired)) -le 3 ] ||
		fail "interval $n: $((sfree - paired)) slab_sample_free of no live chosen object"
	[ $((freed - insample)) -le 3 ] ||
		fail "interval $n: $((freed - insample)) chosen objects freed without a" \
		     "slab_sample_free at their free"
	[ $((chosen - matched)) -le 3 ] ||
		fail "interval $n: $((chosen - matched)) chosen objects with no allocation event" \
		     "of the same ptr and call site"
	if [ "$n" = 1 ]; then
		# the events are enabled one by one: a few allocations at the edges
		miss=$((allocs - chosen - dropped))
		[ "${miss#-}" -le 10 ] ||
			fail "interval 1: $chosen chosen + $dropped dropped of $allocs allocations"
	else
		# |chosen - allocs / 8| <= 6 sd, sd = sqrt(allocs * 1/8 * 7/8)
		awk -v a="$allocs" -v c="$chosen" -v d="$dropped" 'BEGIN {
			sd = sqrt(a * 7 / 64); x = c + d - a / 8
			exit !(x <= 6 * sd + 10 && x >= -6 * sd - 10) }' ||
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

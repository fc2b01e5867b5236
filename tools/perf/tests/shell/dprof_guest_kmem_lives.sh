#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: the slab map with the kernel's sample of lifetimes (exclusive)
#
# With --kmem-events=map the slab caches' objects are slots, with no
# lifetimes; kernel-patches/ 0012 traces the lives of one slab allocation
# in N (kmem:slab_sample_alloc, slab_sample_free), which perf dprof record
# adds to the map (--kmem-sample=N).  Boot a test kernel under QEMU and
# record, system-wide, a loopback TCP echo server and its client
# (lib/dprof_echo.c) with the map at --kmem-sample=1 (every slab cache
# allocation chosen), 2 and 0.  Check:
#  - record sets the kernel's interval for the recording and gives back
#    the value it had;
#  - the file holds the pair's events of slab caches only (kmalloc's have
#    their own events), and none at 0;
#  - the report replays a chosen object for each slab_sample_alloc of the
#    file (--json sample_allocs, within 1% for those outside any slab the
#    map knows), and frees them (sample_frees);
#  - its header says so; at 0 it says the map has no lifetimes;
#  - perf dprof diff of the two: the TCP cache's row has a lifetime in
#    the sampled recording, none in the map's alone; so has its --json
#    row ("lifetimes", "lifetime_us");
#  - at 2, the TCP row's Objects interval (the chosen sockets touched
#    times 2, plus the slots of older slabs) holds the 2 * conns sockets
#    of the connections (and the listener's); slots alone give a third;
#  - the allocations the kernel counted in the map's caches while
#    recording (--json map_allocs; a row's allocs_counted): the TCP
#    cache's are those chosen at 1, all of them at least those chosen,
#    and a prune of the file keeps them.
#
# Needs (else skipped): DPROF_KERNEL, DPROF_VMLINUX, DPROF_RUN_IN_VM, as in
# dprof_guest_slab.sh, gcc.

set -u

# ---- what the report must show: edit here when the format changes ----
header_re='^# slab map .*, but one allocation in 1 chosen at random, with its lifetime'
none_re='^# slab map .*; no lifetimes for them'
row_re='^  struct tcp_sock +TCP +'
# -----------------------------------------------------------------------

conns=${DPROF_TEST_CONNS:-40}
msgs=${DPROF_TEST_MSGS:-10}

dprof_test="dprof guest kmem lives test"
# shellcheck source=lib/dprof_guest.sh
. "$(dirname "$0")"/lib/dprof_guest.sh

dprof_guest_require DPROF_KERNEL DPROF_VMLINUX
command -v gcc > /dev/null || skip "no gcc"

dprof_guest_job dprof_kmem_lives
dprof_guest_echo

dprof_guest_run "$DPROF_KERNEL" 600 '
d=/sys/kernel/debug/slab
ip link set lo up 2> /dev/null || exit 5
[ -d /sys/kernel/tracing/events/kmem/slab_sample_alloc ] && [ -w $d/sample_interval ] ||
	exit 4
echo 37 > $d/sample_interval || exit
for n in 1 2 0; do
	"$PERF_GUEST" dprof record -a --no-heap --no-prune --kmem-events=map \
		--kmem-sample=$n -o /tmp/s$n.data -- sh /mnt/echo.sh "$CONNS" "$MSGS" \
		2> /mnt/record$n.err || exit
	cat $d/sample_interval > /mnt/interval$n
	"$PERF_GUEST" script -i /tmp/s$n.data -F event,trace 2> /dev/null |
		grep "kmem:slab_sample_" > /mnt/events$n
	"$PERF_GUEST" dprof report --stdio --sort=site -i /tmp/s$n.data -k "$VMLINUX" \
		> /mnt/s$n.txt 2> /mnt/report$n.err || exit
	"$PERF_GUEST" dprof report --json -i /tmp/s$n.data -k "$VMLINUX" \
		> /mnt/s$n.json 2> /dev/null || exit
done
"$PERF_GUEST" dprof diff -k "$VMLINUX" /tmp/s0.data /tmp/s1.data > /mnt/diff.txt \
	2> /mnt/diff.err || exit
cp /tmp/s2.data /tmp/p2.data
"$PERF_GUEST" dprof prune -i /tmp/p2.data > /mnt/prune2.out 2>&1 || exit
"$PERF_GUEST" dprof report --json -i /tmp/p2.data -k "$VMLINUX" > /mnt/p2.json 2> /dev/null ||
	exit
' CONNS="$conns" MSGS="$msgs" VMLINUX="$DPROF_VMLINUX"
dprof_guest_ran s0.json "5:cannot bring the loopback interface up (ip from iproute2)" \
	"4:kernel without kmem:slab_sample_alloc (kernel-patches/ 0012)"

json_u64() {
	sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p" "$2" | head -n 1
}

for n in 1 2 0; do
	v=$(cat "${job}/interval$n")
	[ "$v" = 37 ] || fail "--kmem-sample=$n: the interval is $v after, not 37 as before"
done

allocs=$(grep -c 'kmem:slab_sample_alloc:' "${job}/events1")
frees=$(grep -c 'kmem:slab_sample_free:' "${job}/events1")
n=$(grep -c 'name=[^ ]*kmalloc-' "${job}/events1")
[ "$n" = 0 ] || fail "$n of the sampled lives are of kmalloc caches"
grep 'kmem:slab_sample_alloc:' "${job}/events1" | grep -q 'name=TCP\b' ||
	fail "no TCP socket among the sampled lives"
n=$(wc -l < "${job}/events0")
[ "$n" = 0 ] || fail "--kmem-sample=0: $n events of sampled lives"

said=$(json_u64 sample_allocs "${job}/s1.json")
said_frees=$(json_u64 sample_frees "${job}/s1.json")
interval=$(json_u64 slab_sample "${job}/s1.json")
if [ -z "$said" ] || [ -z "$said_frees" ]; then
	fail "--json has no sample_allocs or sample_frees"
elif [ "$allocs" -lt 100 ]; then
	fail "only $allocs sampled lives recorded at interval 1"
else
	[ "$interval" = 1 ] || fail "--json says the interval is $interval, not 1"
	[ $((said * 100)) -ge $((allocs * 99)) ] && [ "$said" -le "$allocs" ] ||
		fail "the report replayed $said chosen objects of $allocs slab_sample_alloc"
	[ "$said_frees" -gt 0 ] && [ "$said_frees" -le "$frees" ] ||
		fail "the report ended $said_frees chosen objects, the file has $frees frees"
fi
[ "$(json_u64 sample_allocs "${job}/s0.json")" = 0 ] ||
	fail "--kmem-sample=0: the report replayed chosen objects"
# the allocations the kernel counted while recording: at one in 1, the
# TCP cache's are those chosen (perf allocates none there; its own work
# before and after its events run counts in the VFS caches); in all, at
# least those chosen; a prune keeps them
tcp_counted() {
	tr '{' '\n' < "$1" | grep '"desc": "TCP"' | head -n 1 |
		sed -n 's/.*"allocs_counted": \([0-9]*\).*/\1/p'
}
counted=$(json_u64 map_allocs "${job}/s1.json")
counted2=$(json_u64 map_allocs "${job}/s2.json")
tcp1=$(tcp_counted "${job}/s1.json")
tcp_chosen=$(grep 'kmem:slab_sample_alloc:' "${job}/events1" | grep -c 'name=TCP\b')
if [ -z "$counted" ] || [ -z "$counted2" ] || [ -z "$tcp1" ]; then
	fail "--json has no map_allocs or TCP allocs_counted: the kernel's counts"
elif [ "$tcp1" != "$tcp_chosen" ]; then
	fail "at one in 1, the kernel counted $tcp1 TCP allocations, $tcp_chosen chosen"
elif [ $((counted * 100)) -lt $((said * 99)) ]; then
	fail "at one in 1, the kernel counted $counted allocations, $said chosen"
fi
[ "$(json_u64 map_allocs "${job}/p2.json")" = "$counted2" ] ||
	fail "pruned, the file counts $(json_u64 map_allocs "${job}/p2.json") allocations," \
		"not $counted2"

grep -Eq "$header_re" "${job}/s1.txt" || fail "the header does not say the lives are sampled"
grep -Eq "$none_re" "${job}/s0.txt" || fail "--kmem-sample=0: the header does not say no lifetimes"
# --json: the TCP row's lifetimes, none without the sample
tcp_lives() {
	tr '{' '\n' < "$1" | grep '"desc": "TCP"' | head -n 1 |
		sed -n 's/.*"lifetimes": \([0-9]*\), "lifetime_us": \([0-9.a-z]*\).*/\1 \2/p'
}
lives=$(tcp_lives "${job}/s1.json")
case "$lives" in
[1-9]*" "[0-9]*) ;;
*) fail "--json: the TCP row's lifetimes: '$lives'" ;;
esac
[ "$(tcp_lives "${job}/s0.json")" = "0 null" ] ||
	fail "--kmem-sample=0: --json gives the TCP row lifetimes: $(tcp_lives "${job}/s0.json")"

# Objects at one in 2: the connections' sockets, each chosen or a slot
tr '{' '\n' < "${job}/s2.json" | grep '"desc": "TCP"' | head -n 1 | tr ',' '\n' |
	sed -n 's/^ *"objects_\(est\|lo\|hi\)": //p' | tr '\n' ' ' > "${job}/tcp2"
echo >> "${job}/tcp2"
read -r est lo hi < "${job}/tcp2"
socks=$((2 * conns))
if [ -z "${hi:-}" ]; then
	fail "--kmem-sample=2: --json has no TCP row with an Objects estimate"
elif awk -v lo="$lo" -v hi="$hi" -v n="$socks" 'BEGIN { exit !(lo > n + 1 || hi < n) }'; then
	fail "--kmem-sample=2: TCP Objects $est [$lo, $hi] misses the $socks sockets"
fi

# the last two columns: Life A, Life B (us)
life=$(grep -E -m1 "$row_re" "${job}/diff.txt" | awk '{ print $(NF - 1), $NF }')
case "$life" in
"- "[0-9]*.[0-9]) ;;
"")	fail "perf dprof diff has no struct tcp_sock row of the TCP cache" ;;
*)	fail "TCP lifetimes: map alone, sampled: $life; want none, then some" ;;
esac

if [ $err -ne 0 ]; then
	cat "${job}/vm.log" "${job}/record1.err" "${job}/report1.err" "${job}/diff.err"
	grep -E "^#|tcp_sock" "${job}/s1.txt" "${job}/diff.txt" | head -n 40
else
	echo "sampled lives: $allocs chosen, $frees freed; replayed $said, $said_frees ended"
	echo "TCP sockets' mean lifetime, map alone and sampled: $life (us)"
	echo "TCP Objects at one in 2: $est [$lo, $hi], $socks sockets"
	echo "allocations the kernel counted: $counted at one in 1 ($said chosen," \
		"TCP $tcp1 of $tcp_chosen), $counted2 at one in 2"
	echo "${dprof_test} [Success]"
fi
cleanup
exit $err

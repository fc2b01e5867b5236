#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: guest slab caches typed by the slab map (exclusive)
#
# Boot a test kernel under QEMU and record, system-wide, a loopback TCP
# echo server and its client (lib/dprof_echo.c) twice: with every
# object's kmem events (--kmem-events=objects) and with the slab map
# instead (--kmem-events=map: kmem:slab_new, slab_free and the snapshot;
# kmalloc's events only).  Then check:
#  - the map recording holds no kmem_cache_alloc or kmem_cache_free event,
#    and no object event of the TCP cache, but its slab map events;
#  - it holds at most 1/factor of the other's kmem events (but the snapshot);
#  - when kmem:kfree names the cache (kernel-patches/ 0011), its kfree()
#    events are all of kmalloc caches or large kmallocs, while the
#    per-object one has others' (an skb's skbuff_small_head), and it holds
#    at most 1/named_factor of the other's kmem events;
#  - its report still types the samples in TCP objects: a struct tcp_sock
#    row by the TCP cache, with a hot member, as the per-object one does;
#  - its header says what the map leaves out, --json which way it went;
#  - the prune of the per-object recording says that the map costs less
#    when DPROF_KMEM_BUSY_SHARE (5%) or more of its samples are in perf's
#    own kernel code (perf_*, __perf_* at a kernel address: writing the
#    events; perf's own user code has perf_* functions too), with that
#    share, and not when less; the map's never.  A third recording, per
#    object, of a loop that adds a pipe to an epoll set and deletes it
#    (seven kmem events a turn, little else), must have that share over
#    the threshold, and the prune must say so.
#
# Needs (else skipped): DPROF_KERNEL, DPROF_VMLINUX, DPROF_RUN_IN_VM, as in
# dprof_guest_slab.sh, gcc.

set -u

# ---- what the report must show: edit here when the format changes ----
row_re='^  struct tcp_sock +TCP +[0-9.]+%'
member_re='(inet_conn|icsk|sk_|skc_|tcp_|rcv_|snd_|write_seq|copied_seq|segs_)'
header_re='^# slab map \(--kmem-events=map\): the slab caches.* have no events'
# -----------------------------------------------------------------------

conns=${DPROF_TEST_CONNS:-100}
msgs=${DPROF_TEST_MSGS:-20}
# the map recording has at most 1/factor of the per-object one's kmem events
factor=${DPROF_TEST_FACTOR:-3}
# ... with kfree's events of slab caches left out
named_factor=${DPROF_TEST_NAMED_FACTOR:-8}

dprof_test="dprof guest kmem slab map test"
# shellcheck source=lib/dprof_guest.sh
. "$(dirname "$0")"/lib/dprof_guest.sh

dprof_guest_require DPROF_KERNEL DPROF_VMLINUX
command -v gcc > /dev/null || skip "no gcc"

dprof_guest_job dprof_kmem_lean
dprof_guest_echo
cat > "${job}/churn.c" << 'EOF2'
#include <stdlib.h>
#include <unistd.h>
#include <sys/epoll.h>

int main(int argc, char **argv)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int i, n = argc > 1 ? atoi(argv[1]) : 10000, fds[2], ep = epoll_create1(0);

	if (ep < 0 || pipe(fds))
		return 1;
	for (i = 0; i < n; i++) {
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &ev) ||
		    epoll_ctl(ep, EPOLL_CTL_DEL, fds[0], NULL))
			return 1;
	}
	return 0;
}
EOF2
gcc -O2 -o "${job}/churn" "${job}/churn.c" 2> "${job}/cc.err" ||
	fail "build the epoll loop: $(cat "${job}/cc.err")"

dprof_guest_run "$DPROF_KERNEL" 900 '
ip link set lo up 2> /dev/null || exit 5
[ -d /sys/kernel/tracing/events/kmem/slab_new ] || exit 4
! grep -q " name;" /sys/kernel/tracing/events/kmem/kfree/format || : > /mnt/kfree_named
for m in objects map; do
	"$PERF_GUEST" dprof record -a --no-heap --no-prune --kmem-events=$m \
		-o /tmp/$m.data -- sh /mnt/echo.sh "$CONNS" "$MSGS" 2> /mnt/record.err || exit
	"$PERF_GUEST" script -i /tmp/$m.data -F event,trace 2> /dev/null |
		grep "kmem:" > /mnt/$m.events
	"$PERF_GUEST" script -i /tmp/$m.data -k "$VMLINUX" -F event,ip,sym 2> /dev/null |
		awk '\''$1 ~ /^cpu-clock/ { n++; if ($2 ~ /^ffffffff/ && $3 ~ /^(__)?perf_/) p++ }
		     END { printf "%d\n", n ? 1000 * p / n : -1 }'\'' > /mnt/$m.share
	cp /tmp/$m.data /tmp/pruned.data
	"$PERF_GUEST" dprof prune -k "$VMLINUX" -i /tmp/pruned.data > /mnt/$m.prune 2>&1 || exit
	rm /tmp/pruned.data
	"$PERF_GUEST" dprof report --stdio --sort=site -i /tmp/$m.data -k "$VMLINUX" \
		> /mnt/$m.txt 2> /mnt/$m.err || exit
	"$PERF_GUEST" dprof report --json -i /tmp/$m.data -k "$VMLINUX" \
		> /mnt/$m.json 2> /dev/null || exit
done
# the epoll loop: a share of samples in perf code over the threshold
"$PERF_GUEST" dprof record -a --no-heap --no-prune --kmem-events=objects -o /tmp/churn.data \
	-- /mnt/churn 10000 \
	2> /mnt/churn.err || exit
"$PERF_GUEST" script -i /tmp/churn.data -k "$VMLINUX" -F event,ip,sym 2> /dev/null |
	awk '\''$1 ~ /^cpu-clock/ { n++; if ($2 ~ /^ffffffff/ && $3 ~ /^(__)?perf_/) p++ }
	     END { printf "%d\n", n ? 1000 * p / n : -1 }'\'' > /mnt/churn.share
"$PERF_GUEST" dprof prune -k "$VMLINUX" -i /tmp/churn.data > /mnt/churn.prune 2>&1 || exit
' CONNS="$conns" MSGS="$msgs" VMLINUX="$DPROF_VMLINUX"
dprof_guest_ran map.txt "5:cannot bring the loopback interface up (ip from iproute2)" \
	"4:kernel without kmem:slab_new (kernel-patches/ 0005)"

grep -q 'kmem:kmem_cache_alloc:.*name=TCP' "${job}/objects.events" ||
	fail "the per-object recording has no TCP allocation"
n=$(grep -c 'kmem:kmem_cache_\(alloc\|free\):' "${job}/map.events")
[ "$n" = 0 ] || fail "the map recording has $n kmem_cache_alloc/free events"
n=$(grep -v 'kmem:slab_' "${job}/map.events" | grep -c 'name=TCP\b')
[ "$n" = 0 ] || fail "the map recording has $n object events of the TCP cache"
grep -q 'kmem:slab_snapshot:' "${job}/map.events" ||
	fail "the map recording has no slab snapshot"

# the snapshot, the same in both, left out
n_obj=$(grep -vc 'kmem:slab_snapshot:' "${job}/objects.events")
n_map=$(grep -vc 'kmem:slab_snapshot:' "${job}/map.events")
[ $((n_map * factor)) -le "$n_obj" ] ||
	fail "the map recording has $n_map kmem events, the per-object one $n_obj: not 1/$factor"

if [ -e "${job}/kfree_named" ]; then
	grep 'kmem:kfree:' "${job}/objects.events" | grep -vq 'name=[^ ]*kmalloc-' ||
		fail "the per-object recording has no kfree() of a slab cache's object"
	n=$(grep 'kmem:kfree:' "${job}/map.events" | grep -vc 'name=[^ ]*kmalloc-')
	[ "$n" = 0 ] || fail "the map recording has $n kfree() of slab caches' objects"
	[ $((n_map * named_factor)) -le "$n_obj" ] ||
		fail "the map recording has $n_map kmem events, the per-object one $n_obj:" \
		     "not 1/$named_factor with kfree named"
fi

for m in objects map; do
	row=$(grep -E -m1 "$row_re" "${job}/$m.txt")
	if [ -z "$row" ]; then
		fail "$m: no struct tcp_sock row by the TCP cache"
	elif ! echo "$row" | grep -Eq " $member_re"; then
		fail "$m: the TCP row has no tcp_sock member: $row"
	fi
done
grep -Eq "$header_re" "${job}/map.txt" ||
	fail "the map report's header does not say what it leaves out"
grep -Eq "$header_re" "${job}/objects.txt" && fail "the per-object report says it used the map"
grep -q '"slab_objects": "slab map"' "${job}/map.json" || fail "--json does not say slab map"
grep -q '"slab_objects": "events"' "${job}/objects.json" || fail "--json does not say events"

# per mille of the samples in perf's own kernel code, and what the prune said
share=$(cat "${job}/objects.share")
hint="% of the samples in perf's own kernel code, .*--kmem-events=map costs"
said=$(grep -E "$hint" "${job}/objects.prune" |
	sed -n 's/^\[ perf dprof: \([0-9]*\)\.\([0-9]\)% .*/\1\2/p')
if [ "$share" -lt 0 ]; then
	fail "no cpu-clock sample in the per-object recording"
elif [ "$share" -ge 55 ]; then
	[ -n "$said" ] || fail "$share per mille of the samples in perf's code, no word of the map"
elif [ "$share" -lt 45 ]; then
	[ -z "$said" ] || fail "$share per mille of the samples in perf's code, and the prune spoke"
fi
if [ -n "$said" ] && { [ "$said" -lt $((share - 2)) ] || [ "$said" -gt $((share + 2)) ]; }; then
	fail "the prune says $said per mille of the samples in perf's code, perf script $share"
fi
grep -Eq "$hint" "${job}/map.prune" && fail "the map recording's prune speaks of the map"
churn=$(cat "${job}/churn.share")
said_churn=$(grep -E "$hint" "${job}/churn.prune" |
	sed -n 's/^\[ perf dprof: \([0-9]*\)\.\([0-9]\)% .*/\1\2/p')
if [ "$churn" -lt 55 ]; then
	fail "the epoll loop: $churn per mille of the samples in perf's code, not over 5%"
elif [ -z "$said_churn" ]; then
	fail "the epoll loop: $churn per mille of the samples in perf's code, no word of the map"
elif [ "$said_churn" -lt $((churn - 2)) ] || [ "$said_churn" -gt $((churn + 2)) ]; then
	fail "the epoll loop: the prune says $said_churn per mille, perf script $churn"
fi

if [ $err -ne 0 ]; then
	cat "${job}/vm.log" "${job}/record.err"
	grep -E "^#|$row_re" "${job}/map.txt" | head -n 30
else
	echo "kmem events: per object $n_obj, slab map $n_map; samples in perf's code:" \
		"$share per mille${said:+ (said)}, epoll loop $churn (said $said_churn)"
	grep -E -m1 "$row_re" "${job}/map.txt"
	echo "${dprof_test} [Success]"
fi
cleanup
exit $err

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: data flow of sk_buffs handed between CPUs in a patched guest (exclusive)
#
# The DProf paper's data flow view shows where an object moves to another
# CPU (§3.4, figure 2).  Boot the guest kernel built with kernel-patches/
# and CONFIG_SLAB_WATCH=y under QEMU, and run 'perf test -w dprof_handoff'
# there: a sender pinned to CPU 0 writes messages into an AF_UNIX stream
# socketpair whose other end a receiver pinned to CPU 1 reads, one message
# in flight at a time.  Each message is an sk_buff allocated and queued
# on CPU 0 (__alloc_skb, skb_queue_tail from unix_stream_sendmsg) and
# unlinked and freed on CPU 1 (skb_unlink, consume_skb from
# unix_stream_read_generic).  'perf dprof record -a
# --watch=skbuff_head_cache:0/8' follows sk_buff::next of one sk_buff at a
# time; on the host, 'perf dprof report --view=flow' with the guest's
# vmlinux must show the allocation first, the free last, and the hand-off
# as a '==cpu==>' edge from a sender-side function to a receiver-side one
# on nearly every history, and the DOT graph must draw that edge thick
# and red.
#
# Needs (else skipped):
#   DPROF_KERNEL     bzImage of a kernel built from scripts/guest/dprof-guest.config
#   DPROF_VMLINUX    its vmlinux
#   DPROF_RUN_IN_VM  scripts/run-in-vm.sh of the perf dprof repository
# Skipped as well when the guest kernel has no slab_watch PMU, or no
# skbuff_head_cache.

set -u

dprof_test="dprof guest data flow test"
# shellcheck source=lib/dprof_guest.sh
. "$(dirname "$0")"/lib/dprof_guest.sh

dprof_guest_require DPROF_KERNEL DPROF_VMLINUX
perf test -w dprof_handoff 1 >/dev/null 2>&1 || skip "perf without the dprof_handoff workload"

# Histories to record: each is one message, a few ms under TCG.
nr_hist=${DPROF_FLOW_HISTORIES:-200}

dprof_guest_job dprof_flow

# In the guest: exit 3 without the PMU, 4 without the cache.  The record
# stops at $nr_hist histories; 20000 messages bound it otherwise.
dprof_guest_run "$DPROF_KERNEL" 600 '
[ -d /sys/bus/event_source/devices/slab_watch ] || { echo "no slab_watch PMU"; exit 3; }
[ -d /sys/kernel/slab/skbuff_head_cache ] || { ls /sys/kernel/slab; exit 4; }
nproc > /mnt/nproc
"$PERF_GUEST" dprof record -a --no-heap --watch=skbuff_head_cache:0/8 --watch-histories="$NR_HIST" \
	-o /tmp/w.data -- "$PERF_GUEST" test -w dprof_handoff 20000 100 \
	2> /mnt/record.err || { cat /mnt/record.err; exit 1; }
cp /tmp/w.data /mnt/w.data
' NR_HIST="$nr_hist"
dprof_guest_ran w.data \
	"3:$DPROF_KERNEL: no slab_watch PMU (kernel-patches/ with CONFIG_SLAB_WATCH=y)" \
	"4:$DPROF_KERNEL: no skbuff_head_cache (slab merging on, or no CONFIG_NET?)"

[ "$(cat "${job}/nproc")" -ge 2 ] || fail "guest has $(cat "${job}/nproc") CPUs, want 2"

# What kernel inlining may make of the functions on either side:
# allocation in __alloc_skb() (or what inlines it); the sender queues the
# sk_buff with skb_queue_tail() from unix_stream_sendmsg(); the receiver
# unlinks it with skb_unlink() from unix_stream_read_generic() and frees
# it with consume_skb() -> kfree_skbmem() -> kmem_cache_free().
alloc_fn='(__alloc_skb|alloc_skb_with_frags|sock_alloc_send_pskb)'
send_fn='(__alloc_skb|skb_queue_tail|__skb_queue_tail|unix_stream_sendmsg|skb_put|'
send_fn+='skb_copy_datagram_from_iter)'
recv_fn='(skb_unlink|__skb_unlink|unix_stream_read_generic|unix_stream_recvmsg|'
recv_fn+='unix_stream_read_actor|consume_skb)'
free_fn='(unix_stream_read_generic|unix_stream_recvmsg|consume_skb|__kfree_skb|kfree_skbmem|'
free_fn+='skb_unlink)'

perf dprof report --stdio -i "${job}/w.data" -k "$DPROF_VMLINUX" --view=flow \
	--type=skbuff_head_cache --graph="${job}/flow.dot" > "${job}/flow.txt" \
	2> "${job}/report.err" || fail "perf dprof report --view=flow failed"
perf dprof report --stdio -i "${job}/w.data" -k "$DPROF_VMLINUX" --view=paths \
	--type=skbuff_head_cache > "${job}/paths.txt" 2>> "${job}/report.err" ||
	fail "perf dprof report --view=paths failed"

histories=$(sed -n 's/^alloc  \([0-9]*\) (100.0%)$/\1/p' "${job}/flow.txt")
[ "${histories:-0}" -ge 50 ] || fail "flow of ${histories:-no} histories, want >= 50"

# The first node under the root is the allocation; every leaf is a free.
first=$(sed -n '/^alloc  /{n;p;q}' "${job}/flow.txt")
echo "$first" | grep -qE -- "^  -> \[[0-9]+\] $alloc_fn \(alloc\)  " ||
	fail "flow starts with '$first', want the allocation in __alloc_skb"
# path 1 of table 1: alloc first, free last
awk '/^# path 1:/ { p = 1; next } /^# path 2:/ { exit }
     p && !/^#/ { sub(/^ *[0-9.]+[nmu]?s +/, "")
		  if ($2 ~ /^\(/) print $1, $2; else print ($2 == "yes" ? "==cpu==> " : "") $1 }' \
	"${job}/paths.txt" > "${job}/path1.txt"
p_first=$(head -1 "${job}/path1.txt"); p_last=$(tail -1 "${job}/path1.txt")
echo "$p_first" | grep -qE "^$alloc_fn \(alloc\)$" ||
	fail "path 1 starts with '$p_first', want the allocation in __alloc_skb"
echo "$p_last" | grep -qE "^$free_fn \(free\)$" ||
	fail "path 1 ends with '$p_last', want the receiver's free"
leaves=$(awk '/ -> / { out[$1] = 1 } /\[label="/ { id[$1] = $0 }
	END { for (n in id) if (!(n in out)) print id[n] }' "${job}/flow.dot")
echo "$leaves" | grep -v '(free)' | grep -q . &&
	fail "flow leaves that are not frees: $(echo "$leaves" | grep -v '(free)' | head -3)"

# The hand-off: '==cpu==>' edges from a sender-side function to a
# receiver-side one, with their histories.  The tree indents two spaces
# a level; an edge's source is the last line one level up.
awk -v send="^$send_fn\$" -v recv="^$recv_fn\$" '
{
	match($0, /^ */); depth = RLENGTH / 2
	if ($1 == "->" || $1 == "==cpu==>") {
		name[depth] = $3
		if ($1 == "==cpu==>" && depth > 0 && name[depth - 1] ~ send &&
		    $3 ~ recv) {
			# "name  count (pct%)", "name (free)  count (pct%)"
			for (i = 4; i <= NF; i++)
				if ($i ~ /^[0-9]+$/) { n += $i; break }
			edge[name[depth - 1] " ==cpu==> " $3] = 1
		}
	}
}
END {
	for (e in edge) names = names (names ? ", " : "") e
	printf "%d\t%s\n", n, names
}' "${job}/flow.txt" > "${job}/handoff"
IFS=$'\t' read -r handoff handoff_edges < "${job}/handoff"
[ "${handoff:-0}" -gt 0 ] ||
	fail "no ==cpu==> edge from a sender-side to a receiver-side function"
# one message in flight at a time: nearly every sk_buff is handed over
[ $(( ${handoff:-0} * 100 )) -ge $(( ${histories:-1} * 80 )) ] ||
	fail "the hand-off carries $handoff of $histories histories, want >= 80%"

# The DOT graph draws the hand-off thick and red.
awk -v send="^$send_fn\$" -v recv="^$recv_fn\$" '
$2 != "->" && /\[label="/ {
	l = $0; sub(/.*\[label="/, "", l); sub(/\\n.*/, "", l); label[$1] = l
}
/ -> / && /cpu change/ && /penwidth=4/ && /color=red/ &&
	label[$1] ~ send && label[$3] ~ recv { ok = 1 }
END { exit !ok }' "${job}/flow.dot" ||
	fail "flow.dot has no thick red cpu-change edge from the sender to the receiver"

if [ $err -ne 0 ]; then
	cat "${job}/vm.log" "${job}/record.err" "${job}/report.err"
	cat "${job}/flow.txt" "${job}/flow.dot"
	head -30 "${job}/paths.txt"
else
	echo "dprof guest data flow test [Success: $histories histories;" \
	     "hand-off $handoff_edges on $handoff; path 1: $(paste -sd' ' "${job}/path1.txt")]"
fi
cleanup
exit $err

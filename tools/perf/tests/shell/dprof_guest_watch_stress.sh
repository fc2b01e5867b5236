#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: slab watch alloc/free storm in a patched guest (exclusive)
#
# Stress the slab_watch PMU (kernel-patches/0004): in a 2-CPU guest, churn
# filp, names_cache and vm_area_struct objects on both CPUs (opens, path
# lookups, forks, pipes: objects freed on another CPU than the one that
# allocated them), epoll items (freed by kfree_rcu(), kernel-patches/0008)
# and sk_buffs (UDP over loopback) while four watches with a small
# patience retarget the breakpoints all the time, and while short records
# create and destroy
# watches (static key on and off) under the same load.  Fails on any BUG,
# WARNING, lockdep, KASAN or RCU splat on the guest console.
#
# Meant for the debug kernel (scripts/guest/dprof-guest-debug.config:
# KASAN, PROVE_LOCKING, DEBUG_ATOMIC_SLEEP), given as DPROF_DEBUG_KERNEL.
# With DPROF_STRESS=1 and no debug kernel it boots DPROF_KERNEL, where
# only BUG/WARNING can show up.  About 5 minutes under TCG.
#
# Needs (else skipped): DPROF_DEBUG_KERNEL or DPROF_STRESS=1, DPROF_KERNEL,
# DPROF_VMLINUX, DPROF_RUN_IN_VM (see dprof_guest_watch.sh), and the
# slab_watch PMU in the guest.

set -u

dprof_test="dprof guest slab watch stress test"
# shellcheck source=lib/dprof_guest.sh
. "$(dirname "$0")"/lib/dprof_guest.sh

[ -n "${DPROF_DEBUG_KERNEL:-}" ] || [ "${DPROF_STRESS:-0}" = 1 ] ||
	skip "DPROF_DEBUG_KERNEL not set" \
	     "(KERNEL_CONFIG_EXTRA=scripts/guest/dprof-guest-debug.config build), nor" \
	     "DPROF_STRESS=1"
dprof_guest_require DPROF_KERNEL DPROF_VMLINUX
kernel=${DPROF_DEBUG_KERNEL:-$DPROF_KERNEL}
[ -e "$kernel" ] || skip "DPROF_DEBUG_KERNEL=$kernel does not exist"

dprof_guest_job dprof_watch_stress

# In the guest: exit 3 without the PMU.  ROUNDS storm rounds per CPU.
dprof_guest_run "$kernel" 900 '
[ -d /sys/bus/event_source/devices/slab_watch ] || { echo "no slab_watch PMU"; exit 3; }
cat /proc/sys/kernel/tainted > /mnt/tainted.before
echo x > /tmp/f
cat > /tmp/storm.sh <<EOF
for r in \$(seq \$ROUNDS); do
	fd=()
	for j in \$(seq \$((r % 16 + 1))); do exec {x}< /tmp/f; fd+=(\$x); done
	ls /proc/self/ > /dev/null
	cat /tmp/f | cat > /dev/null
	( : < /tmp/f ) &
	for j in \${fd[@]}; do exec {j}<&-; done
	wait
done
EOF
cat > /tmp/storm.py <<EOF
import os, select, socket, sys
# epoll items end in kfree_rcu(); UDP over loopback: sk_buffs freed on the
# other CPU
os.sched_setaffinity(0, {int(sys.argv[1])})
ep = select.epoll()
r, w = os.pipe()
rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
rx.bind(("127.0.0.1", 0))
rx.setblocking(False)
tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(int(os.environ["ROUNDS"]) * 20):
	ep.register(r, select.EPOLLIN)
	ep.unregister(r)
	tx.sendto(b"x" * 64, rx.getsockname())
	try:
		rx.recv(2048)
	except BlockingIOError:
		pass
EOF
storm() {
	taskset -c 0 bash /tmp/storm.sh & taskset -c 1 bash /tmp/storm.sh &
	python3 /tmp/storm.py 0 & python3 /tmp/storm.py 1 &
	wait
}
ip link set lo up 2> /dev/null
# long-lived watches on four caches, patience 4: constant retargeting
"$PERF_GUEST" dprof record -q -a --no-heap \
	--watch=filp:0/8,names_cache:0/8,vm_area_struct:0/8,eventpoll_epi:0/8 \
	--watch-patience=4 -o /tmp/w.data -- bash -c "$(declare -f storm); storm" || exit 1
# watches created and destroyed under load
storm > /dev/null 2>&1 &
for i in $(seq 10); do
	id=$(cat /sys/kernel/slab/filp/watch_id)
	"$PERF_GUEST" record -q -a -e slab_watch/cache=$id,len=8,rw=1,patience=1,period=1/ \
		-o /tmp/s.data -- sleep 0.2 || exit 1
done
wait
"$PERF_GUEST" script -i /tmp/w.data -F event,trace 2>/dev/null > /tmp/w.txt
grep -c "^ *slab_watch/" /tmp/w.txt > /mnt/hits
grep -c "kmem:kfree_rcu:" /tmp/w.txt > /mnt/kfree_rcu
grep -c "kmem:kmem_cache_alloc:.*name=skbuff_head_cache" /tmp/w.txt > /mnt/skbs
cat /proc/sys/kernel/tainted > /mnt/tainted.after
dmesg > /mnt/dmesg.txt
' ROUNDS="${DPROF_STRESS_ROUNDS:-30}"
if [ $guest_rc -eq 3 ]; then
	cleanup
	skip "$kernel: no slab_watch PMU (kernel-patches/ with CONFIG_SLAB_WATCH=y)"
fi

# No dprof_guest_ran: a guest that fails may still have left the kernel
# log that says why.
[ $guest_rc -eq 0 ] || fail "guest rc=$guest_rc"
# The kernel log: dmesg at the end, and the console that run-in-vm.sh
# leaves in the job dir (loglevel=4: errors only, but it has a panic).
console=${job}/.console
cat "${job}/dmesg.txt" >> "$console" 2>/dev/null
# (lockdep and KASAN reports start with WARNING: or BUG:)
splat='BUG:|WARNING:|INFO: task .* blocked|rcu: INFO|UBSAN:|Oops|general protection fault|'
splat+='list_(add|del) corruption'
if [ ! -s "${job}/dmesg.txt" ]; then
	fail "no guest kernel log"
fi
if grep -qE "$splat" "$console"; then
	fail "kernel splat"
	grep -m5 -A25 -E "$splat" "$console"
fi
hits=$(cat "${job}/hits" 2>/dev/null || echo 0)
if [ "${hits:-0}" -eq 0 ]; then
	fail "no watch hits"
fi
# the storm took the kfree_rcu() and sk_buff paths
kfree_rcu=$(cat "${job}/kfree_rcu" 2>/dev/null || echo 0)
skbs=$(cat "${job}/skbs" 2>/dev/null || echo 0)
[ "${kfree_rcu:-0}" -gt 0 ] || fail "no kmem:kfree_rcu event (epoll items)"
[ "${skbs:-0}" -gt 0 ] || fail "no sk_buff allocation"
if [ "$(cat "${job}/tainted.before" 2>/dev/null)" != \
     "$(cat "${job}/tainted.after" 2>/dev/null)" ]; then
	fail "kernel tainted during the run"
fi
if [ $err -ne 0 ]; then
	tail -n 40 "${job}/vm.log"
else
	echo "dprof guest slab watch stress test [Success: $hits hits, $kfree_rcu kfree_rcu," \
	     "$skbs sk_buffs, no splat on $kernel]"
fi
cleanup
exit $err

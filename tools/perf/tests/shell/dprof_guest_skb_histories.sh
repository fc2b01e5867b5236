#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: one sk_buff history = one sk_buff lifetime (exclusive)
#
# The networking stack recycles sk_buffs without the slab allocator: the
# per-CPU caches (napi_skb_cache_put/get, and skb_attempt_defer_free(),
# which hands an sk_buff back to its allocating CPU's cache), traced by
# kmem:mempool_put/get (kernel-patches/ 0007).  Without them one
# "history" glued several lives of an sk_buff together.  Boot the guest,
# follow sk_buff::next (--watch=skbuff_head_cache:0/8) under three
# workloads, and check each recording:
#  udp:  a loopback UDP flood, sender pinned to CPU 0, receiver to CPU 1;
#  unix: the AF_UNIX hand-off ('perf test -w dprof_handoff');
#  tap:  a TCP stream between two network namespaces joined by two TAP
#        devices in NAPI mode (IFF_NAPI | IFF_NAPI_FRAGS) and a relay: a
#        NIC's receive path (napi_get_frags(), GRO), whose sk_buffs come
#        from the per-CPU cache and go back to it when TCP frees them
#        (skb_attempt_defer_free()); the relay writes the payload apart
#        from the headers, so that GRO merges page fragments and keeps the
#        merged packet's sk_buff for the next one (napi_reuse_skb(),
#        kernel-patches/ 0009).  Loopback and AF_UNIX never use the
#        caches: loopback hands the sender's sk_buff (a TCP fast clone,
#        which both cache entries send to the slab allocator) to the
#        receiver, UDP and AF_UNIX free theirs with kfree_skbmem(), and
#        only NAPI drivers take sk_buffs from the cache.
# Checks, on every recording:
#  - no history was cut by an allocation without a seen free, and every
#    history ends in a free or is counted open at the end;
#  - no path has an allocation step after its first step, and every path
#    ends in a free step;
#  - no sk_buff is set up again (__alloc_skb, ...) after its first use
#    within one life, a second life the events did not show: perf script's
#    hits and kmem events, replayed by lib/dprof_setup_hits.py, show none;
#    and no history of the report passes a set-up function again after
#    use: the report drops every emulator artefact perf script shows as a
#    false hit (QEMU's TCG up to 8.0 reports a misaligned store anywhere
#    above a watchpoint on the same page as a hit: the store after
#    __alloc_skb's first one, movq $0,0xa4(%rbx), on a neighbour of the
#    watched sk_buff, which hardware never does);
#  - the report's recycled counts are perf script's kmem:mempool_put/get
#    counts;
# on the UDP flood: the paths show the transmit side (CPU 0) and the
# receive side, with a CPU change to the receiver on CPU 1;
# on the TAP stream: perf script shows sk_buffs put into and taken from
# the per-CPU cache (or kept by GRO for the next packet).
#
# Needs (else skipped): DPROF_KERNEL, DPROF_VMLINUX, DPROF_RUN_IN_VM, as in
# dprof_guest_slab.sh, objdump, python3 and ip (iproute2) in the guest (the
# host's root).  No packet leaves the guest: it has no network device but the TAP
# pair and loopback; the TAP addresses are in the benchmark range
# (198.18.0.0/15) inside a namespace the test makes.

set -u

secs=${DPROF_TEST_SECONDS:-3}
nr_hist=${DPROF_FLOW_HISTORIES:-100}

dprof_test="dprof guest sk_buff histories test"
# shellcheck source=lib/dprof_guest.sh
. "$(dirname "$0")"/lib/dprof_guest.sh

dprof_guest_require DPROF_KERNEL DPROF_VMLINUX
command -v python3 > /dev/null || skip "no python3"
command -v ip > /dev/null || skip "no ip (iproute2)"
command -v objdump > /dev/null || skip "no objdump (binutils)"
perf test -w dprof_handoff 1 > /dev/null 2>&1 || skip "perf without the dprof_handoff workload"

dprof_guest_job dprof_skb

cat > "${job}/udp.py" <<'EOF'
import os, socket, sys, time
secs = float(sys.argv[1])
rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
rx.bind(("127.0.0.1", 0))
rx.settimeout(1)
if os.fork() == 0:
	os.sched_setaffinity(0, {1})
	n = 0
	try:
		while True:
			rx.recv(2048)
			n += 1
	except socket.timeout:
		pass
	print("udp: received", n)
	os._exit(0)
os.sched_setaffinity(0, {0})
tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
end = time.time() + secs
n = 0
while time.time() < end:
	tx.sendto(b"x" * 64, rx.getsockname())
	n += 1
	if n % 8 == 0:
		time.sleep(0.0005)
os.wait()
print("udp: sent", n)
EOF

cat > "${job}/tap.py" <<'EOF'
import ctypes, fcntl, os, select, socket, struct, subprocess, sys, time
secs = float(sys.argv[1])
IFF_TAP, IFF_NO_PI, IFF_NAPI, IFF_NAPI_FRAGS = 0x2, 0x1000, 0x10, 0x20
TUNSETIFF = 0x400454ca

def tap(name):
	fd = os.open("/dev/net/tun", os.O_RDWR)
	fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(),
		    IFF_TAP | IFF_NO_PI | IFF_NAPI | IFF_NAPI_FRAGS))
	return fd

def sh(*cmd):
	subprocess.run(cmd, check=True)

def headers(f):
	# Ethernet + IPv4 + TCP header length, as a NIC that splits headers
	# from the payload: the payload lands in page fragments
	if len(f) < 34 or f[12:14] != b"\x08\x00" or f[23] != 6:
		return len(f)
	tcp = 14 + (f[14] & 15) * 4
	return min(len(f), tcp + (f[tcp + 12] >> 4) * 4) if len(f) > tcp + 12 else len(f)

a, b = tap("dprofa"), tap("dprofb")
sh("ip", "netns", "add", "dprofns")
sh("ip", "link", "set", "dprofb", "netns", "dprofns")
sh("ip", "addr", "add", "198.18.0.1/24", "dev", "dprofa")
sh("ip", "link", "set", "dprofa", "up")
sh("ip", "-n", "dprofns", "addr", "add", "198.18.0.2/24", "dev", "dprofb")
sh("ip", "-n", "dprofns", "link", "set", "dprofb", "up")
relay = os.fork()
if relay == 0:
	# the NIC: every frame one side sends is received by the other
	os.sched_setaffinity(0, {0})
	n = 0
	while True:
		for fd in select.select([a, b], [], [])[0]:
			f = os.read(fd, 65536)
			h = headers(f)
			os.writev(b if fd == a else a, [f[:h], f[h:]] if h < len(f) else [f])
			n += 1
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
ready = os.pipe()
server = os.fork()
if server == 0:
	libc = ctypes.CDLL(None, use_errno=True)
	if libc.setns(os.open("/run/netns/dprofns", os.O_RDONLY), 0x40000000):
		sys.exit("setns: errno %d" % ctypes.get_errno())
	os.sched_setaffinity(0, {1})
	s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
	s.bind(("198.18.0.2", 5001))
	s.listen(1)
	os.write(ready[1], b"x")
	c, _ = s.accept()
	n = 0
	while True:
		d = c.recv(65536)
		if not d:
			break
		n += len(d)
	print("tap: received", n, "bytes")
	os._exit(0)
os.read(ready[0], 1)
os.sched_setaffinity(0, {1})
c = socket.create_connection(("198.18.0.2", 5001), timeout=10)
end = time.time() + secs
sent = 0
while time.time() < end:
	c.sendall(b"y" * 1000)
	sent += 1000
c.close()
os.waitpid(server, 0)
os.kill(relay, 9)
print("tap: sent", sent, "bytes")
EOF

# exit 3: no PMU, 4: no cache, 5: no TAP or namespaces, 6: no loopback
dprof_guest_run "$DPROF_KERNEL" 900 '
[ -d /sys/bus/event_source/devices/slab_watch ] || exit 3
[ -d /sys/kernel/slab/skbuff_head_cache ] || exit 4
[ -c /dev/net/tun ] && [ -e /proc/self/ns/net ] || exit 5
ip link set lo up 2> /dev/null || exit 6
nproc > /mnt/nproc
rec() {
	"$PERF_GUEST" dprof record -a --no-heap --watch=skbuff_head_cache:0/8 \
		--watch-histories="$NR_HIST" -o /tmp/$1.data -- "${@:2}" \
		> /mnt/$1.out 2> /mnt/$1.err || { cat /mnt/$1.err; exit 1; }
	cp /tmp/$1.data /mnt/$1.data
}
rec udp python3 /mnt/udp.py "$SECS"
rec unix "$PERF_GUEST" test -w dprof_handoff 20000 100
rec tap python3 /mnt/tap.py "$SECS"
' NR_HIST="$nr_hist" SECS="$secs"
dprof_guest_ran tap.data \
	"3:$DPROF_KERNEL: no slab_watch PMU (kernel-patches/ with CONFIG_SLAB_WATCH=y)" \
	"4:$DPROF_KERNEL: no skbuff_head_cache" \
	"5:$DPROF_KERNEL: no TUN or NET_NS (scripts/guest/dprof-guest.config)" \
	"6:cannot bring the loopback interface up (ip from iproute2)"

[ "$(cat "${job}/nproc")" -ge 2 ] || fail "guest has $(cat "${job}/nproc") CPUs, want 2"

# Steps of every path: "count" once per path, then one line per step,
# "[==cpu==> ]function[ (alloc|free)]" (as in dprof_guest_flow.sh).
steps() {
	awk '/^# path [0-9]+: / { print "path", $4; next }
	     /^#/ || NF == 0 { next }
	     { sub(/^ *[0-9.]+[nmu]?s +/, "")
	       if ($2 ~ /^\(/) print ($3 == "yes" ? "==cpu==> " : "") $1, $2
	       else print ($2 == "yes" ? "==cpu==> " : "") $1 }' "$1"
}

# what sets up a new sk_buff (its first hits); after its first use, a
# history that passes there again holds a second life
init_fn='(__alloc_skb|__build_skb_around|__finalize_skb_around|__napi_build_skb|napi_build_skb|'
init_fn+='__napi_alloc_skb|napi_skb_cache_get|napi_get_frags|napi_reuse_skb)'
summary=
for w in udp unix tap; do
	perf dprof report --stdio -i "${job}/$w.data" -k "$DPROF_VMLINUX" --view=paths \
		--type=skbuff_head_cache > "${job}/$w.paths" 2> "${job}/$w.report.err" ||
		{ fail "$w: perf dprof report --view=paths"; continue; }
	perf dprof report --stdio -i "${job}/$w.data" -k "$DPROF_VMLINUX" \
		> "${job}/$w.report" 2>> "${job}/$w.report.err" ||
		{ fail "$w: perf dprof report"; continue; }
	# '# histories: F end in a free, O still open ..., C cut ...'
	read -r total < <(sed -n 's/^# object histories: \([0-9]*\) .*/\1/p' "${job}/$w.paths")
	re='^# histories: \([0-9]*\) end in a free, \([0-9]*\) still open.*, \([0-9]*\) cut .*'
	read -r freed open cut < <(sed -n "s/$re/\1 \2 \3/p" "${job}/$w.paths")
	[ -n "${cut:-}" ] || { fail "$w: no '# histories:' line"; continue; }
	[ "$cut" = 0 ] || fail "$w: $cut histories cut by an allocation without a free"
	[ $((freed + open)) = "$total" ] ||
		fail "$w: $total histories, $freed end in a free, $open open"
	[ "$freed" -ge 20 ] || fail "$w: $freed histories end in a free, want >= 20"
	steps "${job}/$w.paths" > "${job}/$w.steps"
	# (a free step without a call site, "free": an object that a cache
	# took in bulk was handed out, kmem:mempool_get, before any put)
	awk -v w="$w" '
	$1 == "path" {
		if (n && last !~ /(\(free\)|^free)$/)
			bad = bad "; path " p " ends with " last
		p = $2; n = 0; next
	}
	{ n++; last = $0 }
	n == 1 && !/\(alloc\)$/ { bad = bad "; path " p " starts with " $0 }
	n > 1 && /\(alloc\)$/ { bad = bad "; path " p " allocates again at step " n ": " $0 }
	END {
		if (n && last !~ /(\(free\)|^free)$/)
			bad = bad "; path " p " ends with " last
		if (bad) { print w ":" substr(bad, 2); exit 1 }
	}' "${job}/$w.steps" > "${job}/$w.bad" ||
		fail "$(head -c 600 "${job}/$w.bad")"
	# the sk_buff set up again after its first use (histories of such
	# paths): a second life that the replay missed, or an emulator artefact
	glued=$(awk -v init="^(==cpu==> )?$init_fn$" '
	$1 == "path" { if (b) g += c; c = $2; b = 0; n = 0; used = 0; next }
	{ n++ } n > 1 && $0 ~ init && used { b = 1 } n > 1 && $0 !~ init { used = 1 }
	END { if (b) g += c; print g + 0 }' "${job}/$w.steps")
	# perf script's view of the same: second lives and artefacts
	"$perf_bin" script -i "${job}/$w.data" -k "$DPROF_VMLINUX" \
		-F cpu,time,event,ip,sym,symoff,addr -F trace:cpu,time,event,trace 2> /dev/null |
		python3 "$(dirname "$0")"/lib/dprof_setup_hits.py skbuff_head_cache "^$init_fn$" \
		"$DPROF_VMLINUX" > "${job}/$w.setup" ||
		{ fail "$w: lib/dprof_setup_hits.py"; continue; }
	re='^lives .* outside \([0-9]*\) again \([0-9]*\) artefacts \([0-9]*\) .* freed \([0-9]*\)$'
	read -r outside again artefacts setup_freed < <(sed -n "s/$re/\1 \2 \3 \4/p" \
		"${job}/$w.setup")
	# the report drops false hits (their access misses the watched bytes)
	# before it looks for their object: it drops every artefact, and
	# perf script's hits on freed sk_buffs are the report's or false hits
	false_hits=$(sed -n 's/^# dropped \([0-9]*\) false watch hits.*/\1/p' "${job}/$w.paths")
	false_hits=${false_hits:-0}
	rep_outside=$(sed -n 's/^# object histories: .* dropped \([0-9]*\) hits outside.*/\1/p' \
		"${job}/$w.paths")
	[ -n "$rep_outside" ] && [ -n "${outside:-}" ] &&
	[ "$rep_outside" -le "$outside" ] && [ $((outside - rep_outside)) -le "$false_hits" ] ||
		fail "$w: perf script has ${outside:-?} hits on freed sk_buffs, the report drops" \
		     "${rep_outside:-?} hits outside and $false_hits false hits"
	[ "${artefacts:-x}" -le "$false_hits" ] ||
		fail "$w: perf script has ${artefacts:-?} emulator artefact hits, the report" \
		     "dropped $false_hits false hits"
	[ "${again:-x}" = 0 ] ||
		fail "$w: ${again:-?} hits set an sk_buff up again within one life:" \
		     "$(sed 1d "${job}/$w.setup" | head -3)"
	# so no history of the report passes a set-up function after use
	[ "$glued" = 0 ] ||
		fail "$w: $glued report histories pass a set-up function after use (perf script:" \
		     "${setup_freed:-?} lives with artefacts)"
	# the report's recycled counts are perf script's
	"$perf_bin" script -i "${job}/$w.data" -F event,trace 2> /dev/null > "${job}/$w.script"
	puts=$(grep -c 'kmem:mempool_put:' "${job}/$w.script")
	gets=$(grep -c 'kmem:mempool_get:' "${job}/$w.script")
	rep=$(sed -n 's/^# recycled: \([0-9]*\) objects .*, \([0-9]*\) taken back .*/\1 \2/p' \
		"${job}/$w.report")
	[ "${rep:-0 0}" = "$puts $gets" ] ||
		fail "$w: report recycled '${rep:-none}', perf script has $puts kmem:mempool_put," \
		     "$gets kmem:mempool_get"
	skb_puts=$(grep -c 'kmem:mempool_put:.*name=skbuff_head_cache' "${job}/$w.script")
	skb_gets=$(grep -c 'kmem:mempool_get:.*name=skbuff_head_cache' "${job}/$w.script")
	line="$w: $total histories ($freed end in a free, $open open, $cut cut; $glued pass a"
	line+=" set-up function after use; perf script: $again second lives, $artefacts emulator"
	line+=" artefact hits; the report dropped $false_hits false hits),"
	line+=" $(grep -c '^path' "${job}/$w.steps") paths; sk_buffs put in the per-CPU cache"
	line+=" $skb_puts, taken $skb_gets; $(cat "${job}/$w.out" | paste -sd' ')"
	summary="$summary
$line"
done

# UDP flood: transmit on CPU 0 (allocation, the device queue), then the
# receive side: softirq enqueue to the socket, then the receiver on
# CPU 1 takes it off the queue and frees it, after a CPU change.
tx_fn='(__alloc_skb|alloc_skb_with_frags|sock_alloc_send_pskb|__ip_append_data|ip_make_skb|'
tx_fn+='udp_sendmsg|udp_send_skb|ip_finish_output2|__dev_queue_xmit|dev_hard_start_xmit|'
tx_fn+='validate_xmit_skb_list|loopback_xmit)'
rx_fn='(__netif_rx|netif_rx|enqueue_to_backlog|process_backlog|__netif_receive_skb|'
rx_fn+='__udp_enqueue_schedule_skb|udp_queue_rcv_one_skb|__skb_try_recv_from_queue|__skb_recv_udp|'
rx_fn+='udp_recvmsg|skb_consume_udp|__consume_stateless_skb|kfree_skbmem|__skb_unlink|skb_unlink)'
awk -v tx="^(==cpu==> )?$tx_fn( |$)" -v rx="^(==cpu==> )?$rx_fn( |$)" '
$1 == "path" { if (t && r && c) ok++; t = r = c = 0; next }
$0 ~ tx { t = 1 }
t && $0 ~ rx { r = 1; if (/^==cpu==>/) c = 1 }
END { if (t && r && c) ok++; exit !ok }' "${job}/udp.steps" ||
	fail "udp: no path with the transmit side, then the receive side with a CPU change"

# TAP: the per-CPU cache was used both ways, and histories start there
[ "$(grep -c 'kmem:mempool_get:.*name=skbuff_head_cache' "${job}/tap.script")" -gt 0 ] &&
[ "$(grep -c 'kmem:mempool_put:.*name=skbuff_head_cache' "${job}/tap.script")" -gt 0 ] ||
	fail "tap: no sk_buff put into and taken from the per-CPU cache (kmem:mempool_put/get)"

if [ $err -ne 0 ]; then
	cat "${job}/vm.log"
	for w in udp unix tap; do
		cat "${job}/$w.err" "${job}/$w.report.err" 2> /dev/null
		head -n 40 "${job}/$w.paths" 2> /dev/null
	done
else
	echo "$summary" | sed 1d
	for w in udp tap; do
		echo "$w path 1: $(awk '$1 == "path" { if (n++) exit; next } { print }' \
			"${job}/$w.steps" | paste -sd' ')"
	done
	echo "dprof guest sk_buff histories test [Success]"
fi
cleanup
exit $err

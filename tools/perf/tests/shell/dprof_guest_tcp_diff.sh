#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: diff of 50 against 500 TCP connections in a guest
#
# The DProf paper's use of the diff view (5.2): the same number of small
# messages over 50 and then over 500 loopback TCP connections
# (lib/dprof_tcpconn.c), each recorded with perf dprof record -a in the
# guest during the message phase alone (the connections made before, kept
# open until after: 100 and 1,000 TCP sockets in use).  perf dprof diff
# must rank struct tcp_sock first, flagged, with a ratio of its objects
# estimated within 2x of the sockets' 10x.  DPROF_TCP_RUNS pairs of
# recordings (default 1), each in its own guest; DPROF_TCP_MSGS messages
# (default 40,000: some 200-500 samples of struct tcp_sock a side).

set -u

runs=${DPROF_TCP_RUNS:-1}
msgs=${DPROF_TCP_MSGS:-40000}

dprof_test="dprof guest tcp diff test"
. "$(dirname "$0")"/lib/dprof_guest.sh

dprof_guest_require DPROF_KERNEL DPROF_VMLINUX
command -v gcc >/dev/null || skip "no gcc to build the workload"
command -v python3 >/dev/null || skip "no python3 to read --json"

dprof_guest_job dprof_guest_tcp

if ! gcc -O2 -o "${job}/tcpconn" "$(dirname "$0")/lib/dprof_tcpconn.c" 2> "${job}/cc.err"; then
	fail "build tcpconn"
	cat "${job}/cc.err"
	cleanup
	exit 1
fi
# the recording's command: start the message phase, wait for its end
cat > "${job}/go.sh" <<'EOF2'
#!/bin/bash
touch /tmp/go
for i in $(seq 12000); do
	[ -e /tmp/done ] && exit 0
	sleep 0.05
done
exit 1
EOF2
chmod +x "${job}/go.sh"

for run in $(seq "${runs}"); do
	dprof_guest_run "$DPROF_KERNEL" 600 '
ip link set lo up 2>/dev/null || exit 3
for n in 50 500; do
	rm -f /tmp/ready /tmp/go /tmp/done
	/mnt/tcpconn $n '"${msgs}"' /tmp/ready /tmp/go /tmp/done & pid=$!
	for i in $(seq 600); do
		[ -e /tmp/ready ] && break
		kill -0 $pid 2>/dev/null || exit 1
		sleep 0.1
	done
	"$PERF_GUEST" dprof record -a --no-heap -c 200000 -m 32M -o /tmp/c$n.data \
		-- /mnt/go.sh > /mnt/record.err 2>&1 || exit 1
	grep "^TCP " /proc/slabinfo
	kill $pid
	wait $pid
	cp /tmp/c$n.data /mnt/c$n.data || exit 1
done
'
	dprof_guest_ran c500.data "3:no ip command to bring the guest's loopback up"
	if ! "$perf_bin" dprof diff --json -k "$DPROF_VMLINUX" \
			"${job}/c50.data" "${job}/c500.data" \
			> "${job}/diff.json" 2> "${job}/diff.err"; then
		fail "run ${run}: diff: $(cat "${job}/diff.err")"
		continue
	fi
	python3 - "${job}/diff.json" "${run}" <<'PY' || err=1
import json, sys

d = json.load(open(sys.argv[1]))
run = sys.argv[2]
types = d["types"]
print("dprof guest tcp diff test: run %s: first %s" % (run, ", ".join(
    "%s (%s) z %+.1f%s" % (t["type"], t["desc"], t["z"], "*" if t["significant"] else "")
    for t in types[:3])))
tcp = [t for t in types if t["type"] == "struct tcp_sock"]
bad = []
if not tcp or not tcp[0]["A"] or not tcp[0]["B"]:
    bad.append("no struct tcp_sock row on both sides")
else:
    t = tcp[0]
    a, b = t["A"], t["B"]
    ratio = b["objects_est"] / a["objects_est"]
    print("dprof guest tcp diff test: run %s: struct tcp_sock: "
          "A %d samples, %d sampled, %.0f [%.0f-%.0f] of %s known; "
          "B %d samples, %d sampled, %.0f [%.0f-%.0f] of %s known; "
          "ratio %.2f (sampled %.2f, sockets 10)"
          % (run, a["samples"], a["objects"], a["objects_est"], a["objects_lo"], a["objects_hi"],
             a["objects_known"], b["samples"], b["objects"], b["objects_est"], b["objects_lo"],
             b["objects_hi"], b["objects_known"], ratio, b["objects"] / a["objects"]))
    if types[0] is not t:
        bad.append("struct tcp_sock is not first")
    if not t["significant"]:
        bad.append("struct tcp_sock not flagged (z %+.1f)" % t["z"])
    if not 5 <= ratio <= 20:
        bad.append("objects ratio %.2f not within 2x of 10" % ratio)
for m in bad:
    print("dprof guest tcp diff test [Failed: run %s: %s]" % (run, m))
sys.exit(1 if bad else 0)
PY
done

if [ $err -ne 0 ]; then
	cat "${job}/vm.log"
else
	echo "${dprof_test} [Success]"
fi
cleanup
exit $err

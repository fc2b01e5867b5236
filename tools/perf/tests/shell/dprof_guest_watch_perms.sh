#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: who may open the slab_watch PMU, and what it tells (exclusive)
#
# The slab_watch PMU (kernel-patches/0004) is a kernel interface: boot the
# guest and check that
#  - with the default perf_event_paranoid (2), an unprivileged user gets
#    EACCES for a valid watch, CPU-wide and per task, while root opens it;
#  - what it shows to everyone names caches by id, not by address: every
#    /sys/kernel/slab/<cache>/watch_id is a small integer (unique), and no
#    file of the PMU in sysfs holds a kernel address;
#  - an unknown cache id is refused (ENOENT or EINVAL), not looked up as
#    an address.
#
# Needs (else skipped): DPROF_KERNEL, DPROF_RUN_IN_VM, python3 and setpriv
# (util-linux) in the guest (the host's root).

set -u

dprof_test="dprof guest slab watch permissions test"
# shellcheck source=lib/dprof_guest.sh
. "$(dirname "$0")"/lib/dprof_guest.sh

dprof_guest_require DPROF_KERNEL
command -v python3 > /dev/null || skip "no python3"
command -v setpriv > /dev/null || skip "no setpriv (util-linux)"

dprof_guest_job dprof_watch_perms

# open(cache id, cpu, pid): the errno name, or "opened"
cat > "${job}/probe.py" <<'EOF'
import ctypes, errno, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
pmu = int(open("/sys/bus/event_source/devices/slab_watch/type").read())
cache, cpu, pid = (int(x) for x in sys.argv[1:4])
# perf_event_attr, PERF_ATTR_SIZE_VER5 (112 bytes): type, size, config,
# sample_period, sample_type (IP|ADDR), read_format, flags, ..., config1
attr = bytearray(112)
struct.pack_into("IIQQQQQ", attr, 0, pmu, 112, 8 << 32, 1, 1 | 8, 0, 0)
struct.pack_into("Q", attr, 56, cache)		# config1
buf = ctypes.create_string_buffer(bytes(attr), 112)
fd = libc.syscall(298, buf, pid, cpu, -1, 0)
if fd < 0:
	print(errno.errorcode[ctypes.get_errno()])
else:
	print("opened")
	os.close(fd)
EOF

dprof_guest_run "$DPROF_KERNEL" 300 '
[ -d /sys/bus/event_source/devices/slab_watch ] || exit 3
cd /sys/kernel/slab
for c in *; do
	[ -L "$c" ] || [ ! -f "$c/watch_id" ] || echo "$c $(cat "$c/watch_id")"
done > /mnt/ids
grep -r . /sys/bus/event_source/devices/slab_watch/ 2> /dev/null | grep -v /power/ > /mnt/pmu_files
id=$(cat /sys/kernel/slab/filp/watch_id)
echo 2 > /proc/sys/kernel/perf_event_paranoid
# the job dir is private to root: the probe goes where nobody can read it
install -m 644 /mnt/probe.py /tmp/probe.py
cd /tmp
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
{
echo "nobody cpu $(nobody python3 /tmp/probe.py $id 0 -1)"
echo "nobody task $(nobody python3 /tmp/probe.py $id -1 0)"
echo "root cpu $(python3 /tmp/probe.py $id 0 -1)"
echo "root unknown $(python3 /tmp/probe.py 4000000000 0 -1)"
} > /mnt/probe.out 2>&1
'
dprof_guest_ran probe.out \
	"3:$DPROF_KERNEL: no slab_watch PMU (kernel-patches/ with CONFIG_SLAB_WATCH=y)"

grep -qx 'nobody cpu EACCES' "${job}/probe.out" ||
	fail "unprivileged CPU-wide open: $(grep 'nobody cpu' "${job}/probe.out")"
grep -qx 'nobody task EACCES' "${job}/probe.out" ||
	fail "unprivileged per-task open: $(grep 'nobody task' "${job}/probe.out")"
grep -qx 'root cpu opened' "${job}/probe.out" ||
	fail "root could not open the watch: $(grep 'root cpu' "${job}/probe.out")"
grep -qxE 'root unknown (ENOENT|EINVAL)' "${job}/probe.out" ||
	fail "unknown cache id: $(grep 'root unknown' "${job}/probe.out")"
nr=$(wc -l < "${job}/ids")
[ "$nr" -gt 10 ] || fail "only $nr caches with a watch_id"
# ids: integers below the number of caches times a small factor, unique
awk -v n="$nr" '$2 !~ /^[0-9]+$/ || $2 + 0 > 16 * n + 64 { print; bad = 1 } END { exit bad }' \
	"${job}/ids" > "${job}/bad_ids" ||
	fail "watch_id not a small integer: $(head -3 "${job}/bad_ids")"
[ "$(cut -d' ' -f2 "${job}/ids" | sort -u | wc -l)" = "$nr" ] || fail "watch_id not unique"
# kernel addresses: 0xffff... or 16 hex digits anywhere in the PMU's files
grep -qiE 'ffff[0-9a-f]{12}' "${job}/pmu_files" "${job}/ids" &&
	fail "a kernel address in sysfs:" \
	     "$(grep -iE 'ffff[0-9a-f]{12}' "${job}/pmu_files" | head -2)"

if [ $err -ne 0 ]; then
	cat "${job}/vm.log" "${job}/probe.out"
else
	echo "dprof guest slab watch permissions test [Success: $(paste -sd, "${job}/probe.out");" \
	     "$nr cache ids up to $(sort -n -k2 "${job}/ids" | tail -1 | cut -d' ' -f2)]"
fi
cleanup
exit $err

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: guest kmem events kept by where the samples fell (exclusive)
#
# Boot a test kernel under QEMU and record, system-wide with every kmem
# event kept (--no-prune), a loopback TCP echo server and its client
# (lib/dprof_echo.c), sampled at 250 Hz: under TCG the kernel allocates
# as many objects as it samples at perf's default rate, not the hundred
# times as many of a busy server on hardware.  Prune a copy of the file as record does at its end
# (perf dprof prune: the kmem events of the objects no sample's data
# address fell in left out, counted in a summary; the sampler's samples
# written with their decoded data address in place of their registers).
# The guest has /proc/kcore, so its kernel samples are decoded from the
# code that ran, which differs from the vmlinux where the kernel patched
# itself (alternatives: a call to memcpy that runs as rep movsb); a second
# copy is pruned with -k vmlinux, the code the reports here read.  Then
# check:
#  - no kernel sample was left undecoded (kcore read for its code), and
#    every sample was written decoded: no registers in the file (perf
#    evlist), and perf script shows the samples' data addresses;
#  - the file shrinks by a large factor;
#  - the report of the copy pruned with -k is the report of the whole
#    file, both reading the vmlinux: every
#    row (samples, objects, the Objects bound) and the header's
#    allocation, free and lifetime counts, but for one line that says how
#    many objects were left out; --json too, but for its "left_out";
#  - perf script reads the pruned file, and it holds the whole file's
#    kmem events less those the prune said it left out;
#  - a second prune leaves the file as it is;
#  - pruned here, where the guest's kernel code cannot be read, the file
#    keeps the objects a kernel address in an undecided kernel sample's
#    registers points into, and leaves others out: its report with the
#    vmlinux is still the whole file's.
# Then the same workload launched under record (its kmem events CPU-wide,
# its samples per task, no slab events: a freed object's memory stays its
# cache's until another object's free takes it), pruned with -k: its
# report is the whole file's too, and the prune keeps at most half as
# many objects again as the report counts sampled, and 20: a sample in a
# live object keeps that object alone, not every object whose memory it
# once was, and an object whose free took a freed one's memory is kept
# only when that one is; and it holds no more frees than objects kept:
# without the snapshot, a free of no known object (perf's own mm's, freed
# at the exec) is a count in the summary.
#
# Needs (else skipped): DPROF_KERNEL, DPROF_VMLINUX, DPROF_RUN_IN_VM, as in
# dprof_guest_slab.sh, gcc.

set -u

conns=${DPROF_TEST_CONNS:-200}
msgs=${DPROF_TEST_MSGS:-50}
# the pruned file is at most 1/factor of the whole one
factor=${DPROF_TEST_FACTOR:-3}

dprof_test="dprof guest kmem prune test"
# shellcheck source=lib/dprof_guest.sh
. "$(dirname "$0")"/lib/dprof_guest.sh

dprof_guest_require DPROF_KERNEL DPROF_VMLINUX
command -v gcc > /dev/null || skip "no gcc"

dprof_guest_job dprof_kmem_prune
dprof_guest_echo

dprof_guest_run "$DPROF_KERNEL" 900 '
ip link set lo up 2> /dev/null || exit 5
[ -r /proc/kcore ] || exit 6
"$PERF_GUEST" dprof record -F 250 -a --no-heap --no-prune --kmem-events=objects \
	-o /tmp/full.data -- \
	sh /mnt/echo.sh "$CONNS" "$MSGS" 2> /mnt/record.err || exit
cp /tmp/full.data /tmp/pruned.data
cp /tmp/full.data /tmp/vmlinux.data
"$PERF_GUEST" dprof prune -i /tmp/pruned.data > /mnt/prune.out 2>&1 || exit
"$PERF_GUEST" dprof prune -k "$VMLINUX" -i /tmp/vmlinux.data > /mnt/prune-k.out 2>&1 || exit
cp /tmp/pruned.data /tmp/again.data
"$PERF_GUEST" dprof record -F 250 --no-heap --no-prune -o /tmp/task-full.data -- \
	sh /mnt/echo.sh "$CONNS" "$MSGS" 2> /mnt/record-task.err || exit
cp /tmp/task-full.data /tmp/task.data
"$PERF_GUEST" dprof prune -k "$VMLINUX" -i /tmp/task.data > /mnt/prune-task.out 2>&1 || exit
cp /tmp/task-full.data /tmp/task.data /mnt/
"$PERF_GUEST" dprof prune -v -i /tmp/again.data > /mnt/again.out 2>&1 || exit
cmp -s /tmp/pruned.data /tmp/again.data || echo differ > /mnt/again.cmp
cp /tmp/full.data /tmp/pruned.data /tmp/vmlinux.data /mnt/
' CONNS="$conns" MSGS="$msgs" VMLINUX="$DPROF_VMLINUX"
dprof_guest_ran pruned.data "5:cannot bring the loopback interface up (ip from iproute2)" \
	"6:guest without /proc/kcore: its kernel samples cannot be decoded"

line=$(grep -m1 '^\[ perf dprof: kmem events of' "${job}/prune.out")
dropped=$(echo "$line" | sed -n 's/.* objects left out .*), \([0-9]*\) of [0-9]* events.*/\1/p')
line_k=$(grep -m1 '^\[ perf dprof: kmem events of' "${job}/prune-k.out")
dropped_k=$(echo "$line_k" | sed -n 's/.* objects: \([0-9]*\) objects left out .*/\1/p')
if [ -z "$dropped" ] || [ "$dropped" = 0 ]; then
	fail "the prune left nothing out: ${line:-no line}"
fi
grep -q 'had no code bytes' "${job}/prune.out" &&
	fail "kernel samples not decoded with /proc/kcore: $(cat "${job}/prune.out")"
decoded_all='^\[ perf dprof: [0-9]* access samples written with their .* (all) \]'
grep -q "$decoded_all" "${job}/prune.out" ||
	fail "the samples were not all written decoded: $(cat "${job}/prune.out")"
grep -q "$decoded_all" "${job}/prune-k.out" ||
	fail "with -k, the samples were not all written decoded: $(cat "${job}/prune-k.out")"
types=$("$perf_bin" evlist -v -i "${job}/pruned.data" 2> /dev/null | grep -m1 '^cpu-clock[/:]' |
	sed -n 's/.*sample_type: \([A-Z_|]*\).*/\1/p')
case "|$types|" in
*"|REGS_INTR|"*|"||") fail "the pruned file's sampler: sample_type ${types:-not found}" ;;
*"|ADDR|"*"|RAW|"*) ;;
*) fail "the pruned file's sampler has no ADDR and RAW: $types" ;;
esac
# a decoded sample's data address is what perf script shows
"$perf_bin" script -i "${job}/pruned.data" -F sw:event,addr 2> /dev/null |
	awk '$1 ~ /^cpu-clock[\/:]/ && length($2) == 16 && $2 ~ /^ff[0-9a-f]*$/ { n++ }
	     END { exit !n }' ||
	fail "perf script shows no kernel data address of a decoded sample"
[ -e "${job}/again.cmp" ] && fail "a second prune changed the file"

full=$(stat -c %s "${job}/full.data")
pruned=$(stat -c %s "${job}/pruned.data")
[ $((pruned * factor)) -le "$full" ] ||
	fail "the pruned file is $pruned bytes of $full: not 1/$factor"

for f in full vmlinux; do
	if ! "$perf_bin" dprof report --stdio -i "${job}/${f}.data" --vmlinux "$DPROF_VMLINUX" \
			> "${job}/${f}.txt" 2> "${job}/${f}.err"; then
		fail "report of the $f file"
		cat "${job}/${f}.err"
	fi
done
grep -q '^# (.* slab objects left out when recorded' "${job}/vmlinux.txt" ||
	fail "the file pruned with -k: its report does not say what was left out"
grep -v '^# (.* slab objects left out when recorded' "${job}/vmlinux.txt" > "${job}/rows.txt"
if ! diff "${job}/full.txt" "${job}/rows.txt" > "${job}/report.diff"; then
	fail "the reports of the whole file and the one pruned with -k differ"
	head -n 40 "${job}/report.diff"
fi
# --json too, but for the file's name and the count of objects left out
for f in full vmlinux; do
	"$perf_bin" dprof report --json -i "${job}/${f}.data" --vmlinux "$DPROF_VMLINUX" \
		2> /dev/null | sed 's/"input": "[^"]*"//; s/"left_out": [0-9]*, //g' \
		> "${job}/${f}.json"
done
if [ ! -s "${job}/full.json" ] || ! cmp -s "${job}/full.json" "${job}/vmlinux.json"; then
	fail "the --json reports differ"
fi
grep -q '"address_set": {"allocs": [0-9]*, "frees": [0-9]*, "cache' "${job}/vmlinux.json" ||
	fail "--json: no address_set"
"$perf_bin" dprof report --json -i "${job}/vmlinux.data" --vmlinux "$DPROF_VMLINUX" \
	2> /dev/null | grep -q "\"left_out\": ${dropped_k:-x}," ||
	fail "--json: the address set's left_out is not the prune's ${dropped_k:-?} objects"
counts='^# address set: kmem tracepoints, [0-9]* allocs, [0-9]* frees'
a=$(grep -m1 -o "$counts" "${job}/full.txt")
b=$(grep -m1 -o "$counts" "${job}/vmlinux.txt")
if [ -z "$a" ] || [ "$a" != "$b" ]; then
	fail "allocation counts: '${a}' vs '${b}'"
fi

# launched: the same report, and the objects kept are about those sampled
for f in task-full task; do
	"$perf_bin" dprof report --json -i "${job}/${f}.data" --vmlinux "$DPROF_VMLINUX" \
		2> /dev/null | sed 's/"input": "[^"]*"//; s/"left_out": [0-9]*, //g' \
		> "${job}/${f}.json"
done
if [ ! -s "${job}/task-full.json" ] || ! cmp -s "${job}/task-full.json" "${job}/task.json"; then
	fail "launched: the --json reports of the whole and the pruned file differ"
	diff <(tr ',' '\n' < "${job}/task-full.json") <(tr ',' '\n' < "${job}/task.json") \
		> "${job}/task.diff"
fi
line_t=$(grep -m1 '^\[ perf dprof: kmem events of' "${job}/prune-task.out")
kept=$(echo "$line_t" |
	sed -n 's/.* of \([0-9]*\) objects: \([0-9]*\) objects left out .*/\1 \2/p' |
	awk '{ print $1 - $2 }')
# the objects sampled of the slab and kmalloc rows
sampled=$(tr '{' '\n' < "${job}/task-full.json" |
	awk '/"kind": "(slab|kmalloc)"/ && match($0, /"objects": [0-9]+/) {
		n += substr($0, RSTART + 11, RLENGTH - 11) } END { print n + 0 }')
if [ -z "$kept" ] || [ "$sampled" = 0 ]; then
	fail "launched: no prune line or no sampled slab object: ${line_t:-none}"
elif [ "$kept" -gt $((sampled + sampled / 2 + 20)) ]; then
	fail "launched: the prune kept $kept objects, $sampled sampled"
fi
frees=$("$perf_bin" script -i "${job}/task.data" -F event 2> /dev/null |
	grep -c -E 'kmem:(kmem_cache_free|kfree):')
[ "${frees:-x}" -le "${kept:-0}" ] 2> /dev/null ||
	fail "launched: the pruned file holds ${frees:-?} frees for ${kept:-?} objects kept"

# the whole file pruned here, where the guest's kernel code cannot be read
# (no /proc/kcore of the guest's kernel, no vmlinux given): the objects a
# kernel address in an undecided sample's registers points into are
# kept, which must be all those a decoded sample's address is in: the
# report of that file, with the vmlinux, is the whole file's
cp "${job}/full.data" "${job}/regs.data"
"$perf_bin" dprof prune -i "${job}/regs.data" > "${job}/prune-regs.out" 2>&1 ||
	fail "the prune without the guest's code: $(cat "${job}/prune-regs.out")"
line_r=$(grep -m1 '^\[ perf dprof: kmem events of' "${job}/prune-regs.out")
if grep -q 'kernel samples had no code bytes' "${job}/prune-regs.out"; then
	"$perf_bin" dprof report --stdio -i "${job}/regs.data" --vmlinux "$DPROF_VMLINUX" \
		2> /dev/null | grep -v '^# (.* slab objects left out when recorded' \
		> "${job}/regs.txt"
	if ! diff "${job}/full.txt" "${job}/regs.txt" > "${job}/regs.diff"; then
		fail "the reports of the whole file and the one pruned without code differ"
		head -n 40 "${job}/regs.diff"
	fi
	left=$(echo "$line_r" | sed -n 's/.* objects: \([0-9]*\) objects left out .*/\1/p')
	[ "${left:-0}" -gt 0 ] || fail "without code, the prune kept every object: $line_r"
else
	line_r="(the guest's kernel code was read here: the registers' rule not checked)"
fi

kmem_events() {
	"$perf_bin" script -i "$1" -F event 2> "${job}/script.err" | grep -c 'kmem:'
}
n_full=$(kmem_events "${job}/full.data")
n_pruned=$(kmem_events "${job}/pruned.data") || fail "perf script of the pruned file"
[ -s "${job}/script.err" ] && grep -qi 'error\|corrupt' "${job}/script.err" &&
	fail "perf script: $(head -n 3 "${job}/script.err")"
[ $((n_full - n_pruned)) = "${dropped:-x}" ] ||
	fail "perf script: $n_pruned kmem events of $n_full, the prune left out ${dropped:-?}"

if [ $err -ne 0 ]; then
	cat "${job}/vm.log" "${job}/record.err" "${job}/prune.out" "${job}/prune-task.out"
	# the logs are long: what failed is said again last
	printf '%s' "$failures"
	for f in report.diff task.diff regs.diff; do
		[ -s "${job}/$f" ] && head -n 20 "${job}/$f"
	done
else
	echo "$line"
	echo "file: $full -> $pruned bytes; kmem events in perf script: $n_full -> $n_pruned"
	echo "launched: $kept objects kept, $sampled sampled, $frees frees"
	echo "without the kernel's code: $line_r"
	echo "${dprof_test} [Success]"
fi
cleanup
exit $err

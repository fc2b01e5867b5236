#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: guest objects allocated before recording (exclusive)
#
# Boot a test kernel under QEMU.  Open files before 'perf dprof record -a'
# starts and read them while it runs: their struct file objects were
# allocated before recording, so no alloc event names them.  The kernel's
# slab snapshot (kernel-patches/, kmem:slab_snapshot) must resolve them:
#  - the report says objects were resolved through the snapshot, and the
#    filp row (cache name, not "(no alloc event: DWARF)") has members that
#    the reads touch; with --no-snapshot those samples are DWARF-typed;
#  - every filp object freed during the recording without an alloc event
#    (perf script) lies in a slab of the snapshot, at the start of an
#    object by the snapshot's arithmetic: the object bases agree with the
#    allocator's own free events.
#
# Needs (else skipped): DPROF_KERNEL, DPROF_VMLINUX, DPROF_RUN_IN_VM, as in
# dprof_guest_slab.sh.

set -u

# ---- what the report must show: edit here when the format changes ----
earlier_re='^# objects allocated before recording: slab snapshot of [1-9][0-9]* slabs [^;]*; '
earlier_re+='([1-9][0-9]*\.[0-9]|0\.[1-9])% of samples resolved through it'
row_re='^  struct file +filp '				# the filp row, by cache name
member_re='(f_mode|f_op|f_pos|f_flags|f_count|f_ref|f_inode|f_path|f_cred|f_mapping|f_lock|'
member_re+='f_pos_lock|f_ra|f_version|f_security|private_data)'
# -----------------------------------------------------------------------

secs=${DPROF_TEST_SECONDS:-3}

dprof_test="dprof guest snapshot test"
# shellcheck source=lib/dprof_guest.sh
. "$(dirname "$0")"/lib/dprof_guest.sh

dprof_guest_require DPROF_KERNEL DPROF_VMLINUX

dprof_guest_job dprof_snapshot

# One reader per CPU, each on a file it opened before recording began: it
# waits for /tmp/go, reads at EOF in a loop (read(2) touches f_mode, f_op,
# f_pos, ...), closes the file (its free is recorded) and says so.
cat > "${job}/readers.sh" <<'EOF'
#!/bin/bash
secs=$1
n=$(nproc)
for ((c = 0; c < n; c++)); do
	(
		echo data > /tmp/dprof-snap.$c
		exec 3< /tmp/dprof-snap.$c
		touch /tmp/ready.$c
		while [ ! -e /tmp/go ]; do sleep 0.05; done
		end=$((SECONDS + secs))
		i=0
		while [ $SECONDS -lt $end ]; do
			for k in 1 2 3 4 5 6 7 8 9 10; do
				read -r -u 3 x
			done
			i=$((i + 10))
		done
		exec 3<&-
		echo "readers: cpu slot $c: $i reads"
		touch /tmp/done.$c
	) &
done
EOF
chmod +x "${job}/readers.sh"

dprof_guest_run "$DPROF_KERNEL" 300 '
[ "$(nproc)" -ge 2 ] || echo "guest: only $(nproc) CPU"
[ -e /sys/kernel/debug/slab/snapshot ] || exit 3
n=$(nproc)
/mnt/readers.sh '"$secs"'
for ((c = 0; c < n; c++)); do
	while [ ! -e /tmp/ready.$c ]; do sleep 0.05; done
done
# every kmem event kept (--no-prune): perf script gives the filp bases
"$PERF_GUEST" dprof record -a --no-heap --no-prune --kmem-events=objects -m 32M \
	-o /tmp/perf.data -- bash -c "
	touch /tmp/go
	for ((c = 0; c < $n; c++)); do
		while [ ! -e /tmp/done.\$c ]; do sleep 0.05; done
	done
	sleep 0.5" 2> /mnt/record.err || exit
cp /tmp/perf.data /mnt/perf.data
'
dprof_guest_ran perf.data "3:kernel without the slab snapshot (kernel-patches/ 0005)"

report() {
	# a row per type and source: the DWARF-typed ones are compared
	"$perf_bin" dprof report --stdio --sort=site -i "${job}/perf.data" \
		--vmlinux "$DPROF_VMLINUX" --percent-limit=0 "$@"
}
if ! report > "${job}/report.txt" 2> "${job}/report.err" ||
   ! report --type=filp > "${job}/filp.txt" 2>> "${job}/report.err" ||
   ! report --no-snapshot > "${job}/nosnap.txt" 2>> "${job}/report.err"; then
	fail "report"
	cat "${job}/report.err"
	cleanup
	exit 1
fi

grep -qE "$earlier_re" "${job}/report.txt" ||
	fail "the header does not say that the slab snapshot resolved samples"
sed -n '/^# Type/,$p' "${job}/report.txt" | grep -qE "$row_re" ||
	fail "no 'struct file  filp' row"
grep -qE "$member_re" "${job}/filp.txt" || fail "--type=filp names no member of struct file"
# without the snapshot, the objects allocated earlier are typed by DWARF
grep -q '^# objects allocated before recording: slab snapshot ignored' "${job}/nosnap.txt" ||
	fail "--no-snapshot: the header does not say the snapshot was ignored"
# (samples with no address, an lea or a fused compare typed by its
# operand as perf report --sort type does, are '(operand only)' rows).
# The share of the slab types typed by DWARF only must drop to a tenth of
# what it is without the snapshot, or less: a sample may still land on
# an object no slab of the snapshot held (one task_struct sample in
# 17634 was seen once, 0.01%).
dwarf_share() {
	awk '/^  struct (file|inode|dentry|task_struct) / && /\(no alloc event: DWARF\)/ {
		for (i = 1; i <= NF; i++)
			if ($i ~ /%$/) { sub(/%/, "", $i); sum += $i; break }
	} END { printf "%.2f\n", sum }' "$1"
}
with=$(dwarf_share "${job}/report.txt")
without=$(dwarf_share "${job}/nosnap.txt")
echo "slab types typed by DWARF only: ${with}% of samples, ${without}% without the snapshot"
awk -v w="$with" -v wo="$without" 'BEGIN { exit !(wo > 0 && w <= wo / 10) }' ||
	fail "slab types still typed by DWARF only: ${with}% of samples," \
	     "${without}% without the snapshot"

# The bases, from perf script: the snapshot's filp slabs, and the filp
# frees, after the snapshot was complete, of objects that no alloc event
# of the recording made (a free before it may have emptied a slab that
# then went back to the page allocator).
"$perf_bin" script -i "${job}/perf.data" -F time,event,trace 2> /dev/null |
awk '
function field(name,   i, kv) {
	for (i = 1; i <= NF; i++)
		if (index($i, name "=") == 1) { split($i, kv, "="); return kv[2] }
	return ""
}
/kmem:slab_snapshot:/ {
	snap_end = $1 + 0
	if (field("name") == "filp")
		print "S", field("addr"), field("first"), field("size"), field("objects")
}
/kmem:kmem_cache_alloc:/ { seen[field("ptr")] = 1 }
/kmem:kmem_cache_free:/ && field("name") == "filp" && !(field("ptr") in seen) {
	nf++; ft[nf] = $1 + 0; fp[nf] = field("ptr")
}
END {
	for (i = 1; i <= nf; i++)
		if (ft[i] > snap_end)
			print "F", fp[i]
}' > "${job}/bases.in"
# 64-bit arithmetic: bash, not awk (doubles)
nslab=0 earlier=0 good=0 bad=0 outside=0
declare -a sa sf ss so
while read -r kind a b c d; do
	if [ "$kind" = S ]; then
		sa[nslab]=$a sf[nslab]=$b ss[nslab]=$c so[nslab]=$d
		nslab=$((nslab + 1))
		continue
	fi
	earlier=$((earlier + 1))
	where=outside
	for ((j = 0; j < nslab; j++)); do
		off=$((a - sa[j]))
		[ $off -ge 0 ] && [ $off -lt $((so[j] * ss[j])) ] || continue
		if [ $(((a - sf[j]) % ss[j])) -eq 0 ]; then where=good; else where=bad; fi
		break
	done
	case $where in
	good) good=$((good + 1)) ;;
	bad) bad=$((bad + 1)); echo "not an object start: $a" ;;
	*) outside=$((outside + 1)); echo "in no slab of the snapshot: $a" ;;
	esac
done < "${job}/bases.in" > "${job}/bases.txt"
echo "filp slabs in the snapshot: $nslab; filp objects freed without an alloc event: $earlier, at" \
     "an object start: $good, elsewhere: $bad, outside the snapshot: $outside" >> "${job}/bases.txt"
[ $nslab -gt 0 ] && [ $earlier -gt 0 ] && [ $good -eq $earlier ] ||
	fail "object bases: $(tail -n 1 "${job}/bases.txt")"

if [ $err -ne 0 ]; then
	cat "${job}/vm.log" "${job}/record.err" "${job}/report.txt" "${job}/bases.txt"
else
	grep -E "$earlier_re" "${job}/report.txt"
	tail -n 1 "${job}/bases.txt"
	echo "dprof guest snapshot test [Success]"
fi
cleanup
exit $err

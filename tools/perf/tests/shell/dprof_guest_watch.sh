#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: slab watch histories in a patched guest (exclusive)
#
# Boot the guest kernel built with kernel-patches/ and CONFIG_SLAB_WATCH=y
# under QEMU, run 'perf dprof record -a --watch=filp:0/8' while one bash
# loop per CPU opens and closes a file, and check with stock 'perf script'
# that the slab_watch PMU followed filp objects: hits exist, the first hit
# of a history is the initialisation of the file (alloc_empty_file() and
# what it inlines), the watch re-armed on many objects, and both CPUs
# allocated files.  'perf dprof report' must count the hits apart from the
# access samples.
#
# Needs (else skipped):
#   DPROF_KERNEL     bzImage of a kernel built from scripts/guest/dprof-guest.config
#   DPROF_VMLINUX    its vmlinux
#   DPROF_RUN_IN_VM  scripts/run-in-vm.sh of the perf dprof repository
# Skipped as well when the guest kernel has no slab_watch PMU.

set -u

dprof_test="dprof guest slab watch test"
# shellcheck source=lib/dprof_guest.sh
. "$(dirname "$0")"/lib/dprof_guest.sh

dprof_guest_require DPROF_KERNEL DPROF_VMLINUX

dprof_guest_job dprof_watch

# In the guest: exit 3 without the PMU, else time the workload bare and
# under 'perf dprof record --watch', and print the samples.  N opens per CPU.
dprof_guest_run "$DPROF_KERNEL" 600 '
[ -d /sys/bus/event_source/devices/slab_watch ] || { echo "no slab_watch PMU"; exit 3; }
nproc > /mnt/nproc
echo x > /tmp/f
cat > /tmp/wl.sh <<EOF
# Round r holds r % 64 + 1 files open, so that the allocator does not hand
# out the same few filp objects again and again.
opens() {
	local r j x fd
	for r in \$(seq 0 40); do
		fd=()
		for j in \$(seq 0 \$((r % 64))); do exec {x}< /tmp/f; fd+=(\$x); done
		for j in \${fd[@]}; do exec {j}<&-; done
	done
}
t0=\$(date +%s%N)
if command -v taskset >/dev/null; then
	taskset -c 0 bash -c "\$(declare -f opens); opens" &
	taskset -c 1 bash -c "\$(declare -f opens); opens" &
else
	opens & opens &
fi
wait
echo \$(( (\$(date +%s%N) - t0) / 1000 )) > \$1
EOF
bash /tmp/wl.sh /mnt/bare_us
"$PERF_GUEST" dprof record -q -a --no-heap --no-kmem -o /tmp/nowatch.data -- \
	bash /tmp/wl.sh /mnt/nowatch_us || exit 1
"$PERF_GUEST" dprof record -q -a --no-heap -o /tmp/kmem.data -- \
	bash /tmp/wl.sh /mnt/kmem_us || exit 1
"$PERF_GUEST" dprof record -v -a --no-heap --watch=filp:0/8 -o /tmp/w.data -- \
	bash /tmp/wl.sh /mnt/watch_us 2> /mnt/record.err || { cat /mnt/record.err; exit 1; }
"$PERF_GUEST" evlist -v -i /tmp/w.data > /mnt/evlist.txt 2>&1
"$PERF_GUEST" script -i /tmp/w.data -F cpu,time,event,ip,sym,addr,trace \
	-F trace:cpu,time,event,ip,sym,trace > /tmp/script.txt || exit 1
cp /tmp/script.txt /mnt/script.txt
"$PERF_GUEST" dprof report --stdio -i /tmp/w.data > /mnt/report.txt 2> /mnt/report.err
cp /tmp/w.data /mnt/w.data
# --watch=CACHE without an offset sweeps the object, 8 bytes further on
# for each object
if [ -e /sys/bus/event_source/devices/slab_watch/format/sweep ]; then
	"$PERF_GUEST" dprof record -q -a --no-heap --watch=filp -o /tmp/s.data -- \
		bash /tmp/wl.sh /mnt/sweep_us || exit 1
	"$PERF_GUEST" script -i /tmp/s.data -F event,addr,trace -F trace:event,trace \
		> /mnt/sweep.txt || exit 1
	cat /sys/kernel/slab/filp/object_size > /mnt/filp_size
fi
'
dprof_guest_ran script.txt \
	"3:$DPROF_KERNEL: no slab_watch PMU (kernel-patches/ with CONFIG_SLAB_WATCH=y)"

script=${job}/script.txt

# The watch event: period 1, no frequency, the data address sampled.
watch_attr=$(grep '^slab_watch/' "${job}/evlist.txt")
echo "$watch_attr" | grep -q 'sample_freq }: 1,' ||
	fail "slab_watch event without a period of 1: $watch_attr"
echo "$watch_attr" | grep -qE '(^|, )freq: 1' &&
	fail "slab_watch event with a frequency: $watch_attr"
echo "$watch_attr" | grep -q 'sample_type: [A-Z|]*ADDR' ||
	fail "slab_watch samples without ADDR: $watch_attr"

[ "$(cat "${job}/nproc")" -ge 2 ] || fail "guest has $(cat "${job}/nproc") CPUs, want 2"

# Histories: a filp alloc at ptr P opens one; the next hit on P is its
# first.  Fields: cpu time event ... ; hits end with "addr sym".
awk '
/kmem:kmem_cache_alloc:/ && / name=filp( |$)/ {
	for (i = 1; i <= NF; i++)
		if ($i ~ /^ptr=/) { p = substr($i, 5); sub(/^0x/, "", p); fresh[p] = 1 }
	cpu[$1] = 1
	next
}
/ slab_watch\/cache=/ {
	hits++
	for (i = 1; i <= NF; i++) if ($i ~ /^slab_watch\//) break
	a = $(i + 1); sub(/^0x/, "", a); sub(/^0+/, "", a)
	obj[a] = 1
	if (a in fresh) {
		delete fresh[a]; histories++
		if ($0 ~ /alloc_empty_file|init_file|__alloc_file/) init++
	}
}
END {
	n = 0; for (a in obj) n++
	c = 0; for (k in cpu) c++
	printf "%d %d %d %d %d\n", hits, n, histories, init, c
}' "$script" > "${job}/counts"
read -r hits objs histories init cpus < "${job}/counts"

[ "${hits:-0}" -gt 0 ] || fail "no slab_watch hits in perf script"
[ "${objs:-0}" -ge 50 ] || fail "hits on $objs distinct objects, want >= 50 (watch not re-armed)"
[ "${histories:-0}" -ge 50 ] || fail "$histories histories start after a filp alloc, want >= 50"
# TCG may deliver a hit late, but the first access is the initialisation.
[ $(( ${init:-0} * 100 )) -ge $(( ${histories:-1} * 90 )) ] ||
	fail "only $init of $histories histories start in alloc_empty_file/init_file"
[ "${cpus:-0}" -ge 2 ] || fail "filp allocations on $cpus CPUs, want 2"

grep -qE '^# object histories: [1-9][0-9]* hits on [1-9][0-9]* objects of filp' \
	"${job}/report.txt" ||
	fail "perf dprof report does not count the watch hits"

# The histories as paths and as the flow graph, on the host with the
# guest's vmlinux: the most frequent path starts at the allocation in
# alloc_empty_file(), ends at a free called from the close path, and has
# the file's users in between; every leaf of the graph is a free.
perf dprof report --stdio -i "${job}/w.data" -k "$DPROF_VMLINUX" --view=paths \
	--type=filp > "${job}/paths.txt" 2> "${job}/paths.err" ||
	fail "perf dprof report --view=paths failed"
awk '/^# path 1:/ { p = 1; next } /^# path 2:/ { exit }
     p && !/^#/ { sub(/^ *[0-9.]+[nmu]?s +/, ""); print $1, $2 }' \
	"${job}/paths.txt" > "${job}/path1.txt"
first=$(head -1 "${job}/path1.txt"); last=$(tail -1 "${job}/path1.txt")
between=$(sed '1d;$d' "${job}/path1.txt" | grep -vc '(free)\|(alloc)')
[ "$first" = "alloc_empty_file (alloc)" ] ||
	fail "path 1 starts with '$first', want alloc_empty_file (alloc)"
close_fn='(__x64_sys_close|__fput|____fput|__fput_sync|task_work_run|filp_close|fput|file_free|'
close_fn+='__rcu_free_file|rcu_do_batch)'
echo "$last" | grep -qE "^$close_fn \\(free\\)\$" ||
	fail "path 1 ends with '$last', want a free from the close path"
[ "${between:-0}" -ge 1 ] || fail "path 1 has no access between alloc and free"
perf dprof report --stdio -i "${job}/w.data" -k "$DPROF_VMLINUX" --view=flow \
	--type=filp --graph="${job}/flow.dot" > "${job}/flow.txt" 2>> "${job}/paths.err" ||
	fail "perf dprof report --view=flow failed"
grep -q '^alloc  [1-9]' "${job}/flow.txt" || fail "flow view without its alloc root"
grep -qE -- '-> \[[0-9]+\] alloc_empty_file \(alloc\)' "${job}/flow.txt" ||
	fail "flow view does not start at alloc_empty_file"
grep -qE '^[[:space:]]*n[0-9]+ -> n[0-9]+ ' "${job}/flow.dot" || fail "no edges in flow.dot"
# leaves: nodes with no out edge in the DOT file are all frees
leaves=$(awk '/ -> / { out[$1] = 1 } /\[label="/ { id[$1] = $0 }
	END { for (n in id) if (!(n in out)) print id[n] }' "${job}/flow.dot")
echo "$leaves" | grep -v '(free)' | grep -q . &&
	fail "flow leaves that are not frees: $(echo "$leaves" | grep -v '(free)' | head -3)"

# The sweep: offsets of the hits in their objects (alloc ptr .. free)
sweep="no sweep"
if [ -s "${job}/sweep.txt" ]; then
	sweep=$(python3 - "${job}/sweep.txt" "$(cat "${job}/filp_size")" <<'PY'
import re, sys
size = int(sys.argv[2])
live, offs, hits, outside = {}, set(), 0, 0
for line in open(sys.argv[1]):
    m = re.search(r'kmem:kmem_cache_alloc:.* ptr=(0x[0-9a-f]+).* name=filp(\s|$)', line)
    if m:
        live[int(m.group(1), 16)] = 1
        continue
    m = re.search(r'kmem:kmem_cache_free:.* ptr=(0x[0-9a-f]+)', line)
    if m:
        live.pop(int(m.group(1), 16), None)
        continue
    m = re.match(r'\s*slab_watch/[^ ]*sweep=1[^ ]*: +([0-9a-f]+)', line)
    if m:
        a = int(m.group(1), 16)
        base = [b for b in live if b <= a < b + size]
        if base:
            offs.add((a - base[0]) // 8 * 8)
        else:
            outside += 1
        hits += 1
print(len(offs), (size + 7) // 8, hits, outside)
PY
)
	read -r nr_offs nr_words sweep_hits sweep_out <<<"$sweep"
	# one history per object, up to every word of the object
	[ "${nr_offs:-0}" -ge $(( ${nr_words:-1} / 2 )) ] ||
		fail "--watch=filp swept $nr_offs of the $nr_words words of struct file" \
		     "($sweep_hits hits)"
	sweep="$nr_offs of $nr_words words of filp swept in $sweep_hits hits"
fi

bare=$(cat "${job}/bare_us"); nowatch=$(cat "${job}/nowatch_us")
kmem=$(cat "${job}/kmem_us"); watch=$(cat "${job}/watch_us")
if [ $err -ne 0 ]; then
	cat "${job}/vm.log" "${job}/record.err" "${job}/report.err"
	grep -m10 'slab_watch/cache=' "$script"
	grep -m10 kmem_cache_alloc "$script"
	head -20 "${job}/report.txt"
	cat "${job}/paths.err"
	head -30 "${job}/paths.txt" "${job}/flow.txt"
else
	echo "dprof guest slab watch test [Success: $hits hits, $histories histories on $objs" \
	     "objects," \
	     "$init start in the file init; $sweep; path 1: $(tr '\n' ' ' < "${job}/path1.txt");" \
	     "workload us: bare $bare, sampler $nowatch, +kmem $kmem, +watch $watch]"
fi
cleanup
exit $err

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: patched guest kernel names caches on alloc (exclusive)
#
# Boot the guest kernel built with kernel-patches/ (the perf dprof slab
# series) under QEMU, record kmem:kmem_cache_alloc system wide while a
# workload opens files, and check that the samples carry the cache name
# added by "mm/slab: add the cache name to the kmem_cache_alloc tracepoint":
# perf script must show allocations from the file cache (name=filp).
#
# Needs (else skipped):
#   DPROF_KERNEL     bzImage of a kernel built from scripts/guest/dprof-guest.config
#   DPROF_VMLINUX    its vmlinux
#   DPROF_RUN_IN_VM  scripts/run-in-vm.sh of the perf dprof repository
# Skipped as well when the kernel lacks the name field (kernel-patches/ not
# applied).

set -u

dprof_test="dprof guest kernel patch test"
# shellcheck source=lib/dprof_guest.sh
. "$(dirname "$0")"/lib/dprof_guest.sh

dprof_guest_require DPROF_KERNEL DPROF_VMLINUX

dprof_guest_job dprof_kpatch

# In the guest: exit 3 when the tracepoint has no name field (kernel not
# patched), else record while bash opens a tmpfs file 200 times through
# builtin redirections, and print the samples.
dprof_guest_run "$DPROF_KERNEL" 300 '
fmt=/sys/kernel/tracing/events/kmem/kmem_cache_alloc/format
[ -r $fmt ] || fmt=/sys/kernel/debug/tracing/events/kmem/kmem_cache_alloc/format
grep -q "__data_loc char\[\] name;" $fmt || { echo "no name field in $fmt"; exit 3; }
"$PERF_GUEST" record -q -e kmem:kmem_cache_alloc -a -o /mnt/perf.data -- \
	bash -c "echo x > /tmp/f; for i in \$(seq 200); do : < /tmp/f; done" || exit 1
"$PERF_GUEST" script -i /mnt/perf.data > /mnt/script.txt || exit 1
'
dprof_guest_ran script.txt \
	"3:$DPROF_KERNEL: kmem_cache_alloc has no name field (kernel-patches/ not applied)"

# At least the 200 opens, from the file cache, with the name last on the line.
nfilp=$(grep -cE 'kmem:kmem_cache_alloc:.* name=filp$' "${job}/script.txt")
[ "$nfilp" -ge 200 ] || fail "$nfilp name=filp allocations, want >= 200"
# Every allocation names its cache.
nall=$(grep -c 'kmem:kmem_cache_alloc:' "${job}/script.txt")
nnamed=$(grep -cE 'kmem:kmem_cache_alloc:.* name=[^ ]+$' "${job}/script.txt")
[ "$nall" -eq "$nnamed" ] || fail "$((nall - nnamed)) of $nall allocations without a name"

if [ $err -ne 0 ]; then
	cat "${job}/vm.log"
	head -20 "${job}/script.txt"
else
	echo "dprof guest kernel patch test [Success: $nfilp filp of $nall allocations]"
fi
cleanup
exit $err
